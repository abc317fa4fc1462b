import type { Call } from '../../cometchat/model.ts';
import { code, truncate } from '../../slack/mrkdwn.ts';
import type { Subscription } from '../../store/store.ts';
import { type CallSearch, parseCallSearch } from '../call-filters.ts';
import { Refusal } from '../feature.ts';
import { MODERATION_WORDS } from './moderation-event.ts';
import { ALERT_TRIGGERS, type AlertFacts, type KnownCall } from './webhook-event.ts';

// Which channels an event reaches: the subscriptions of its app and kind whose filters the call
// matches. The filters are the call search's own words, read by its parser, so a person types
// the same `status:unanswered type:video` in both places. Pure.

export const SUBSCRIBE_USAGE =
  '`/cometchat subscribe calls [&lt;filters&gt;]`, `subscribe recordings`, `subscribe transcripts`, `subscribe moderation [blocked] [failed] [approved]`, `subscribe rules`';

/**
 * What `subscribe` asks for: a kind, and its filters as normalised words (the call search's for
 * calls; for moderation, which alerts).
 */
export interface SubscribeWords {
  kind: 'calls' | 'recordings' | 'transcripts' | 'moderation' | 'rules';
  filters: string[];
}

/**
 * `subscribe moderation`'s words: which alerts, each once, in one order (so that the same ask in
 * another order is the same subscription); none is all three. Pure.
 */
export function parseModerationAlertWords(words: readonly string[]): SubscribeWords | Refusal {
  const asked = new Set(words.map((word) => word.toLowerCase()));
  const unknown = [...asked].find((word) => !MODERATION_WORDS.some((known) => known === word));
  if (unknown !== undefined) {
    return new Refusal(
      `\`subscribe moderation\` takes ${MODERATION_WORDS.map((w) => code(w)).join(', ')} or nothing (all three), not ${code(truncate(unknown, 40))}.`,
    );
  }
  const filters = MODERATION_WORDS.filter((word) => asked.size === 0 || asked.has(word));
  return { kind: 'moderation', filters };
}

/** Filters a subscription cannot take: a time window, or acting as a user (nobody asks then). */
const NOT_FOR_SUBSCRIPTIONS = ['since', 'until', 'onBehalfOf'] as const;

/** The words after `subscribe`. Pure. */
export function parseSubscribeWords(words: readonly string[]): SubscribeWords | Refusal {
  const [kind, ...rest] = words;
  const lower = kind?.toLowerCase();
  if (lower === 'recordings' || lower === 'transcripts' || lower === 'rules') {
    return rest.length > 0
      ? new Refusal(`\`subscribe ${lower}\` takes no filters.`)
      : { kind: lower, filters: [] };
  }
  if (lower === 'moderation') return parseModerationAlertWords(rest);
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

/**
 * A call as a subscription's filters see it: each field may be unknown (undefined), when the
 * call could not be read and the event does not say.
 */
export interface SeenCall {
  /** The uids known to have been in the call; `allPeople` when that is every one of them. */
  people: readonly string[];
  allPeople: boolean;
  status?: string | undefined;
  type?: string | undefined;
  mode?: string | undefined;
  receiverType?: string | undefined;
  recorded?: boolean | undefined;
  transcribed?: boolean | undefined;
}

/**
 * The call as read from CometChat, the event's own status over the record's (the event is the
 * ending; a record read a moment after it may still say `ongoing`); or, unread, what the event
 * says: a one-to-one ringing call names both its people, a group call only who sent the message.
 * Pure.
 */
export function seenCall(known: KnownCall, call: Call | undefined): SeenCall {
  if (!call) {
    return {
      people: known.people ?? [],
      allPeople: known.people !== undefined && known.receiverType === 'user',
      status: known.status,
      type: known.type,
      mode: known.mode,
      receiverType: known.receiverType,
    };
  }
  const uids = [call.initiator?.uid, call.receiver?.uid, ...call.participants.map((p) => p.uid)];
  return {
    people: uids.filter((uid) => uid !== undefined),
    allPeople: true,
    status: known.status ?? call.status,
    type: call.type ?? known.type,
    mode: call.mode ?? known.mode,
    receiverType: call.receiverType ?? known.receiverType,
    recorded: call.hasRecording || call.recordings.length > 0,
    transcribed: call.hasTranscription || call.transcriptions.length > 0,
  };
}

/** A filter's answer: yes, no, or cannot tell (what it asks is not known). */
type Answer = boolean | undefined;

function equals(wanted: string | undefined, value: string | undefined): Answer {
  if (wanted === undefined) return true;
  return value === undefined ? undefined : value === wanted;
}

/**
 * Whether the call is one the filters ask for: true, false, or undefined when a filter asks
 * what is not known of it (and no other filter already says no). Pure.
 */
export function matchesFilters(seen: SeenCall, filters: readonly string[]): Answer {
  const search = parseCallSearch(filters);
  if ('problem' in search) return false;
  const { uid } = search;
  const answers: Answer[] = [
    uid === undefined || seen.people.includes(uid) || (seen.allPeople ? false : undefined),
    equals(search.status, seen.status),
    equals(search.type, seen.type),
    equals(search.mode, seen.mode),
    equals(search.to, seen.receiverType),
    search.recorded ? seen.recorded : true,
    search.transcribed ? seen.transcribed : true,
  ];
  if (answers.includes(false)) return false;
  return answers.includes(undefined) ? undefined : true;
}

/** Whether a call read from CometChat is one the filters ask for. Pure. */
export function callMatches(call: Call, filters: readonly string[]): boolean {
  return matchesFilters(seenCall({}, call), filters) === true;
}

/** Which of an event's subscriptions it reaches, and which cannot tell yet. */
export interface Reach {
  reached: Subscription[];
  /** Subscriptions whose filters ask what is not known until the call can be read. */
  undecided: Subscription[];
}

/**
 * The subscriptions an event reaches: its kind's whose filters the call matches (a recording or
 * a transcript reaches every subscription of its kind). Nothing is said to a channel that asked
 * for calls it cannot be told this one is: those wait in `undecided`. Pure.
 */
export function subscriptionsReached(
  subscriptions: readonly Subscription[],
  facts: AlertFacts,
  call: Call | undefined,
): Reach {
  const kind = ALERT_TRIGGERS[facts.trigger];
  const seen = seenCall(facts.known, call);
  const reach: Reach = { reached: [], undecided: [] };
  for (const subscription of subscriptions) {
    if (subscription.kind !== kind) continue;
    const answer = kind === 'calls' ? matchesFilters(seen, subscription.filters) : true;
    if (answer === true) reach.reached.push(subscription);
    if (answer === undefined) reach.undecided.push(subscription);
  }
  return reach;
}
