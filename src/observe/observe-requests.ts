import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { ACTIONS, CALLBACKS } from '../slack/ids.ts';
import { scopeIfAny } from '../slack/request-context.ts';
import { inSpan, resumeCurrentSpan } from '../spans.ts';
import { ackClockIn } from './ack-clock.ts';
import { bounded, type Metrics } from './metrics.ts';

// Every command, action, view submission and shortcut counted by name and outcome. The name is
// the subcommand, action_id or callback_id when it is one of the app's own; anything else is
// `other`, so a forged payload adds no series.

const ACTION_IDS: ReadonlySet<string> = new Set(Object.values(ACTIONS));
const CALLBACK_IDS: ReadonlySet<string> = new Set(Object.values(CALLBACKS));

interface Body {
  command?: string;
  text?: string;
  type?: string;
  actions?: { action_id?: string }[];
  callback_id?: string;
  view?: { callback_id?: string };
  event?: { type?: string };
}

/** What a request is, as a metric labels it: its kind and a name from a fixed set. */
export function handledName(
  body: unknown,
  appNames: ReadonlySet<string>,
  subcommands: ReadonlySet<string>,
): { kind: string; name: string } {
  const b = body as Body;
  if (b.command) {
    const words = (b.text ?? '').trim().toLowerCase().split(/\s+/);
    // `/cometchat prod roles`: the subcommand follows the app's name.
    const word = appNames.has(words[0] ?? '') ? words[1] : words[0];
    return { kind: 'command', name: word ? bounded(subcommands, word) : 'help' };
  }
  switch (b.type) {
    case 'block_actions': {
      // `promote_change:<app>`: the app's name is not a label.
      const id = b.actions?.[0]?.action_id?.split(':')[0];
      return { kind: 'action', name: bounded(ACTION_IDS, id) };
    }
    case 'view_submission':
    case 'view_closed':
      return { kind: 'view', name: bounded(CALLBACK_IDS, b.view?.callback_id) };
    case 'shortcut':
    case 'message_action':
      return { kind: 'shortcut', name: bounded(CALLBACK_IDS, b.callback_id) };
    case 'event_callback':
      return { kind: 'event', name: b.event?.type === 'app_home_opened' ? b.event.type : 'other' };
    default:
      return { kind: 'other', name: 'other' };
  }
}

/**
 * Counts each request once its listeners are done (`error` when one of them threw), names its
 * acknowledgement clock with the same labels, and runs the rest of it in a span (when tracing
 * is on) under which its CometChat and Slack calls appear.
 */
export function observeRequests(
  metrics: Pick<Metrics, 'handled'>,
  appNames: readonly string[],
  subcommandNames: readonly string[],
): Middleware<AnyMiddlewareArgs> {
  const names = new Set(appNames);
  const subcommands = new Set(subcommandNames);
  return async ({ body, context, next }) => {
    const { kind, name } = handledName(body, names, subcommands);
    ackClockIn(context)?.name(kind, name);
    const scope = scopeIfAny(context);
    const attributes = {
      'slack.request.kind': kind,
      'slack.request.name': name,
      'cometchat_ops.ref': scope?.ref ?? '',
    };
    try {
      await inSpan(`slack ${kind} ${name}`, 'server', attributes, () => {
        if (scope) scope.resumeSpan = resumeCurrentSpan();
        return next();
      });
    } catch (error) {
      metrics.handled(kind, name, 'error');
      throw error;
    }
    metrics.handled(kind, name, 'ok');
  };
}
