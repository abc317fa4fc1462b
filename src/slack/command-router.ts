import type { App, SlashCommand } from '@slack/bolt';
import type { Apps, CometChatApp } from '../apps/apps.ts';
import { parseCommand, type Subcommand } from './command.ts';
import type { SlackMessage } from './deliver.ts';
import { type Deliverer, destinationOf } from './deliver.ts';
import { COMMAND } from './ids.ts';
import { type RequestScope, scopeOf } from './request-context.ts';

type Of<N extends Subcommand['name']> = Extract<Subcommand, { name: N }>;

export interface CommandContext {
  body: SlashCommand;
  scope: RequestScope;
  /** The app named in the command, else the channel's default, else the first. */
  app: CometChatApp;
}

/** One handler per subcommand; each feature supplies its own. */
export interface SubcommandHandlers {
  roles(sub: Of<'roles'>, ctx: CommandContext): Promise<void>;
  perms(sub: Of<'perms'>, ctx: CommandContext): Promise<void>;
  call(sub: Of<'call'>, ctx: CommandContext): Promise<void>;
  calls(sub: Of<'calls'>, ctx: CommandContext): Promise<void>;
  audit(sub: Of<'audit'>, ctx: CommandContext): Promise<void>;
  apps(sub: Of<'apps'>, ctx: CommandContext): Promise<void>;
  approvals(sub: Of<'approvals'>, ctx: CommandContext): Promise<void>;
  /** Usage; with a problem, it leads with the problem and its reference (`ref`). */
  help(problem?: string, ref?: string): SlackMessage;
}

/**
 * `/cometchat`: acknowledged before anything else happens (Slack allows three seconds), then
 * routed. Failures propagate to the global error handler, which answers the user.
 */
export function registerCommand(
  app: App,
  handlers: SubcommandHandlers,
  deps: { deliver: Deliverer; apps: Apps },
): void {
  const { deliver, apps } = deps;
  const names = apps.all.map((a) => a.name);
  app.command(COMMAND, async ({ ack, body, context }) => {
    await ack();
    const scope = scopeOf(context);
    const sub = parseCommand(body.text ?? '', names);
    const chosen = (sub.app ? apps.byName(sub.app) : undefined) ?? apps.forChannel(body.channel_id);
    const ctx: CommandContext = { body, scope, app: chosen };
    switch (sub.name) {
      case 'help':
        return void (await deliver(destinationOf(body), handlers.help(), scope.log));
      case 'invalid':
        // Like every refusal, under the request's reference, so a report can be found.
        scope.log.info({ problem: sub.problem }, 'command refused: malformed input');
        return void (await deliver(
          destinationOf(body),
          handlers.help(sub.problem, scope.ref),
          scope.log,
        ));
      case 'roles':
        return handlers.roles(sub, ctx);
      case 'perms':
        return handlers.perms(sub, ctx);
      case 'call':
        return handlers.call(sub, ctx);
      case 'calls':
        return handlers.calls(sub, ctx);
      case 'audit':
        return handlers.audit(sub, ctx);
      case 'apps':
        return handlers.apps(sub, ctx);
      case 'approvals':
        return handlers.approvals(sub, ctx);
    }
  });
}
