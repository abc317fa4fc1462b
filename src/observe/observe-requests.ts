import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { currentRequestIfAny } from '../request-context.ts';
import { ackClockIn } from '../slack/ack-clock.ts';
import { type BodyFacts, factsOf } from '../slack/body-facts.ts';
import { ACTIONS, CALLBACKS } from '../slack/ids.ts';
import { inSpan, resumeCurrentSpan } from '../spans.ts';
import { bounded, type Metrics } from './metrics.ts';

// Every command, action, view submission and shortcut counted by name and outcome. The name is
// the subcommand, action_id or callback_id when it is one of the app's own; anything else is
// `other`, so a forged payload adds no series.

const ACTION_IDS: ReadonlySet<string> = new Set(Object.values(ACTIONS));
const CALLBACK_IDS: ReadonlySet<string> = new Set(Object.values(CALLBACKS));

/**
 * What a request is, as a metric labels it: its kind and a name from a fixed set. Read from the
 * body's facts (factsOf): a signed body may hold any type in any field.
 */
export function handledName(
  facts: BodyFacts,
  appNames: ReadonlySet<string>,
  subcommands: ReadonlySet<string>,
): { kind: string; name: string } {
  if (facts.command) {
    const words = facts.words.map((word) => word.toLowerCase());
    // `/cometchat prod roles`: the subcommand follows the app's name.
    const word = appNames.has(words[0] ?? '') ? words[1] : words[0];
    return { kind: 'command', name: word ? bounded(subcommands, word) : 'help' };
  }
  switch (facts.kind) {
    case 'block_actions':
      // `promote_change:<app>`: the app's name is not a label.
      return { kind: 'action', name: bounded(ACTION_IDS, facts.action?.split(':')[0]) };
    case 'view_submission':
    case 'view_closed':
      return { kind: 'view', name: bounded(CALLBACK_IDS, facts.callback) };
    case 'shortcut':
    case 'message_action':
      return { kind: 'shortcut', name: bounded(CALLBACK_IDS, facts.callback) };
    case 'event_callback':
      return {
        kind: 'event',
        name: facts.eventType === 'app_home_opened' ? 'app_home_opened' : 'other',
      };
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
    const { kind, name } = handledName(factsOf(body), names, subcommands);
    ackClockIn(context)?.name(kind, name);
    const request = currentRequestIfAny();
    const attributes = {
      'slack.request.kind': kind,
      'slack.request.name': name,
      'cometchat_ops.ref': request?.ref ?? '',
    };
    try {
      await inSpan(`slack ${kind} ${name}`, 'server', attributes, () => {
        // For Bolt's error handler, which runs after the span has ended (RequestContext).
        if (request) request.resumeSpan = resumeCurrentSpan();
        return next();
      });
    } catch (error) {
      metrics.handled(kind, name, 'error');
      throw error;
    }
    metrics.handled(kind, name, 'ok');
  };
}
