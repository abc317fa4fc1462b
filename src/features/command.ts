import type { App } from '@slack/bolt';
import { roleIdProblem } from '../cometchat/id-rules.ts';
import { logFailure } from '../replies/error-handler.ts';
import { failureSentence, ReportedFailure } from '../replies/failure.ts';
import { inputRefused } from '../replies/refusals.ts';
import { failureMessage } from '../replies/sentences.ts';
import { currentRequest } from '../request-context.ts';
import { type Respond, respondOrFallBack, type SlackMessage } from '../slack/deliver.ts';
import { COMMAND } from '../slack/ids.ts';
import { code, truncate } from '../slack/mrkdwn.ts';
import { MAX_PAGE } from '../slack/values.ts';
import type { AppDeps } from './deps.ts';
import { type CommandContext, type ReadWords, Refusal, type Subcommand } from './feature.ts';

// `/cometchat [<app>] <subcommand> ...`: the text read into one feature's subcommand, and the
// one listener Bolt routes the command to.

/** What a command's text asks for: a subcommand to run, or the problem with the words. */
export type ReadCommand = { app?: string | undefined } & (
  | ({ name: string } & ReadWords)
  | { problem: string }
);

/**
 * Slack sends `&`, `<` and `>` in command text as HTML entities. (The other way round, the
 * problems below are mrkdwn: a literal `<role>` would be read as a link, so it is `&lt;role&gt;`.)
 */
export function decodeSlackEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * Reads a command's text. `apps` are the configured app names: when the first word is one of
 * them, it chooses the app and the rest is the subcommand. No words at all ask for `help`.
 */
export function readCommand(
  text: string,
  apps: readonly string[],
  subcommands: readonly Subcommand[],
): ReadCommand {
  const words = decodeSlackEntities(text).trim().split(/\s+/).filter(Boolean);
  const first = words[0]?.toLowerCase();
  const app = first !== undefined && apps.includes(first) ? first : undefined;
  const [verb = 'help', ...rest] = app === undefined ? words : words.slice(1);
  const chosen = subcommands.find((s) => s.names.includes(verb.toLowerCase()));
  if (chosen === undefined) return { app, problem: unknownVerb(verb, apps) };
  const read = chosen.read(rest);
  return read instanceof Refusal
    ? { app, problem: read.problem }
    : { app, name: chosen.names[0], ...read };
}

/** Said, not just answered with help: a typo should not look like the command was ignored. */
function unknownVerb(verb: string, apps: readonly string[]): string {
  const typed = code(truncate(verb, 40));
  return apps.length > 1
    ? `There is no subcommand or app ${typed}. ${theApps(apps)}`
    : `There is no subcommand ${typed}.`;
}

/** A word that should name a configured app and names none (`compare <role> <app> <app>`). */
export function unknownApp(word: string, apps: readonly string[]): string {
  return `There is no app ${code(truncate(word, 40))}. ${theApps(apps)}`;
}

function theApps(apps: readonly string[]): string {
  return apps.length === 1
    ? `The only app is ${code(apps[0] ?? '')}.`
    : `The apps are ${apps.map(code).join(', ')}.`;
}

/**
 * `/cometchat`: acknowledged before anything else happens (Slack allows three seconds), then
 * read and run. A failure before a progress message propagates to the global error handler,
 * which answers the person; one after it is answered here (see {@link runAfterProgress}).
 */
export function registerCommand(
  bolt: App,
  subcommands: readonly Subcommand[],
  deps: AppDeps,
): void {
  const names = deps.apps.all.map((a) => a.name);
  bolt.command(COMMAND, async ({ ack, command, respond }) => {
    // Reading the words is pure and quick: the acknowledgement still leaves at once.
    const read = readCommand(command.text, names, subcommands);
    const recipient = { userId: command.user_id, channelId: command.channel_id };
    const reply = respondOrFallBack(respond, recipient, deps.deliver);
    if ('problem' in read) {
      await ack();
      // Like every refusal, under the request's reference, so a report can be found.
      const { log, ref } = currentRequest();
      log.info({ problem: read.problem }, 'command refused: malformed input');
      return reply(inputRefused(read.problem, ref));
    }
    const app =
      (read.app ? deps.apps.byName(read.app) : undefined) ??
      deps.apps.forChannel(command.channel_id);
    const ctx: CommandContext = {
      body: command,
      respond: reply,
      app,
      deps,
    };
    let progress: string | undefined;
    try {
      progress = read.progress?.(ctx);
    } catch (error) {
      // Acknowledged all the same: Slack hears back in time, the error handler tells the person.
      await ack();
      throw error;
    }
    if (progress === undefined) {
      await ack();
      return read.run(ctx);
    }
    await ack(progressMessage(progress));
    await runAfterProgress(read, ctx);
  });
}

/** What the person sees at once while a subcommand waits on CometChat. */
export function progressMessage(doing: string): SlackMessage {
  return { response_type: 'ephemeral', text: `:hourglass_flowing_sand: ${doing}` };
}

/**
 * Runs a subcommand acknowledged with a progress message: its answer, and its failure, replace
 * that message (`replace_original`). The failure is logged and told here, where the progress
 * message is known (the error handler knows none), then thrown on as reported, so that
 * the request still counts as failed.
 */
async function runAfterProgress(read: ReadWords, ctx: CommandContext): Promise<void> {
  const respond: Respond = (message) => ctx.respond({ ...message, replace_original: true });
  try {
    await read.run({ ...ctx, respond });
  } catch (error) {
    const { log, ref } = currentRequest();
    logFailure(error, log, ref, ref);
    await respond(failureMessage(failureSentence(error, ctx.deps), ref));
    throw new ReportedFailure(error);
  }
}

// Words several subcommands read the same way.

/** `/cometchat apps` and the like take nothing after their name. */
export function noWords(usage: string) {
  return (words: readonly string[]): true | Refusal =>
    words.length > 0 ? new Refusal(`Usage: ${usage}.`) : true;
}

/** A page number as typed: a whole number from 1 to MAX_PAGE, else undefined. */
export function pageWord(text: string): number | undefined {
  if (!/^\d{1,6}$/.test(text)) return undefined;
  const page = Number(text);
  return page >= 1 && page <= MAX_PAGE ? page : undefined;
}

export const PAGE_PROBLEM = `The page must be a whole number from 1 to ${MAX_PAGE}.`;

/** A role id as the service accepts it; the service lower-cases ids, so we do too. */
export function roleWord(input: string): string | Refusal {
  const role = input.toLowerCase();
  const problem = roleIdProblem(role);
  return problem === undefined ? role : new Refusal(problem);
}
