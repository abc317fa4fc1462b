import type { SlackStandIn } from '../offline/slack-standin/server.ts';
import { countText } from '../src/features/alerts/alert-view.ts';
import { POSTS_PER_WINDOW } from '../src/features/alerts/burst.ts';

// What a channel got from a burst of alerts, read from the Slack stand-in's records: shared by
// the bench of replicas (replica-intake.ts) and the test of replicas in processes of their own
// (test/integration/alert-burst-processes.test.ts), so both judge a burst by one rule.

/** What a channel got from a burst of alerts, read from the Slack stand-in's records. */
export interface ChannelBurst {
  /** Alerts posted one by one. */
  alerts: number;
  /** Count messages posted (each then updated in place). */
  countMessages: number;
  /** What the count messages say in the end: the alerts they count. */
  counted: number;
  /** The highest count a count message ever said: above `counted`, an alert was counted twice. */
  highest: number;
  /** Updates of the count messages: as many as the timing makes, so reported, not compared. */
  updates: number;
  /** Posts and updates Slack did not take. */
  refused: number;
}

/** The count a count message says (its text as the app writes it), or undefined for another. */
function countIn(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const count = Number(/(\d+) more alerts? from CometChat/.exec(text)?.[1]);
  return Number.isInteger(count) && text === countText(count, undefined) ? count : undefined;
}

/**
 * What `channel` got from the Slack calls at `from` and after: alert posts, count messages and
 * their updates, each count message at the last count Slack took for it.
 */
export function channelBurst(slack: SlackStandIn, channel: string, from = 0): ChannelBurst {
  const shown = new Map<string, number>();
  const burst: ChannelBurst = {
    alerts: 0,
    countMessages: 0,
    counted: 0,
    highest: 0,
    updates: 0,
    refused: 0,
  };
  for (const call of slack.calls.slice(from)) {
    if (call.args.channel !== channel) continue;
    if (call.method !== 'chat.postMessage' && call.method !== 'chat.update') continue;
    if (call.answer?.ok !== true) {
      burst.refused += 1;
      continue;
    }
    const count = countIn(call.args.text);
    if (count === undefined) {
      if (call.method === 'chat.postMessage') burst.alerts += 1;
      continue;
    }
    if (call.method === 'chat.postMessage') burst.countMessages += 1;
    else burst.updates += 1;
    shown.set(String(call.answer.ts ?? call.args.ts), count);
    burst.highest = Math.max(burst.highest, count);
  }
  burst.counted = [...shown.values()].reduce((sum, count) => sum + count, 0);
  return burst;
}

/** What a person sees in the channel in the end: the burst without the updates that made it. */
export type ShownBurst = Omit<ChannelBurst, 'updates'>;

export function shownInChannel({ updates: _, ...shown }: ChannelBurst): ShownBurst {
  return shown;
}

/** What the burst gate's rule gives a channel for `events` alerts in one window. */
export function burstRule(events: number): ShownBurst {
  const counted = Math.max(0, events - POSTS_PER_WINDOW);
  return {
    alerts: Math.min(events, POSTS_PER_WINDOW),
    countMessages: counted > 0 ? 1 : 0,
    counted,
    highest: counted,
    refused: 0,
  };
}

const sleep = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));

/** Waits until `channel` got no Slack call for `quietMs`: posting has settled. */
export async function settled(slack: SlackStandIn, channel: string, quietMs = 300): Promise<void> {
  const seen = () => slack.calls.filter((c) => c.args.channel === channel).length;
  for (let before = -1; before !== seen(); ) {
    before = seen();
    await sleep(quietMs);
  }
}
