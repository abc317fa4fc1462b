import type { Call } from '../../cometchat/model.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { Subscription } from '../../store/store.ts';
import { type CallSearch, parseCallSearch } from '../call-filters.ts';
import { Refusal } from '../feature.ts';
import { ALERT_TRIGGERS, type AlertFacts } from './webhook-event.ts';

// Which channels an event reaches: the subscriptions of its app and kind whose filters the call
// matches. The filters are the call search's own words, read by its parser, so a person types
// the same `status:unanswered type:video` in both places. Pure.

export const SUBSCRIBE_USAGE =
  '`/cometchat subscribe calls [&lt;filters&gt;]`, `subscribe recordings`, `subscribe transcripts`';

/** What `subscribe` asks for: a kind, and for calls the filters as normalised words. */
export interface SubscribeWords {
  kind: 'calls' | 'recordings' | 'transcripts';
  filters: string[];
}

/** Filters a subscription cannot take: a time window, or acting as a user (nobody asks then). */
const NOT_FOR_SUBSCRIPTIONS = ['since', 'until', 'onBehalfOf'] as const;

/** The words after `subscribe`. Pure. */
export function parseSubscribeWords(words: readonly string[]): SubscribeWords | Refusal {
  const [kind, ...rest] = words;
  const lower = kind?.toLowerCase();
  if (lower === 'recordings' || lower === 'transcripts') {
    return rest.length > 0
      ? new Refusal(`\`subscribe ${lower}\` takes no filters.`)
      : { kind: lower, filters: [] };
  }
  if (lower !== 'calls') return new Refusal(`Usage: ${SUBSCRIBE_USAGE}.`);
  const search = parseCallSearch(rest);
  if ('problem' in search) return new Refusal(search.problem);
  const unfit = NOT_FOR_SUBSCRIPTIONS.find((key) => search[key] !== undefined);
  if (unfit) {
    return new Refusal(
      `A subscription takes the call's own filters (status, type, mode, to, recorded, transcribed, a uid), not ${code(unfit === 'onBehalfOf' ? 'as' : unfit)}.`,
    );
  }
  return { kind: 'calls', filters: filterWords(search) };
}

/** A search as the words that make it, in one order: how a subscription keeps its filters. */
export function filterWords(search: CallSearch): string[] {
  return [
    ...(search.uid ? [search.uid] : []),
    ...(['status', 'type', 'mode', 'to'] as const).flatMap((key) =>
      search[key] ? [`${key}:${search[key]}`] : [],
    ),
    ...(search.recorded ? ['recorded'] : []),
    ...(search.transcribed ? ['transcribed'] : []),
  ];
}

/** Whether the call is one the filters ask for. Pure. */
export function callMatches(call: Call, filters: readonly string[]): boolean {
  const search = parseCallSearch(filters);
  if ('problem' in search) return false;
  const people = [call.initiator?.uid, call.receiver?.uid, ...call.participants.map((p) => p.uid)];
  return (
    (!search.uid || people.includes(search.uid)) &&
    (!search.status || call.status === search.status) &&
    (!search.type || call.type === search.type) &&
    (!search.mode || call.mode === search.mode) &&
    (!search.to || call.receiverType === search.to) &&
    (!search.recorded || call.hasRecording || call.recordings.length > 0) &&
    (!search.transcribed || call.hasTranscription || call.transcriptions.length > 0)
  );
}

/**
 * The subscriptions an event reaches: its kind's whose filters the call matches (a recording or
 * a transcript reaches every subscription of its kind). A call that could not be read matches
 * only subscriptions without filters: nothing is said to a channel that asked for calls it
 * cannot be told this one is. Pure.
 */
export function subscriptionsReached(
  subscriptions: readonly Subscription[],
  facts: AlertFacts,
  call: Call | undefined,
): Subscription[] {
  const kind = ALERT_TRIGGERS[facts.trigger];
  return subscriptions.filter(
    (s) =>
      s.kind === kind &&
      (kind !== 'calls' || (call ? callMatches(call, s.filters) : s.filters.length === 0)),
  );
}
