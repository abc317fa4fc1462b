import { z } from 'zod';
import { idProblem, MAX_UID, storedUid, uidProblem } from '../cometchat/id-rules.ts';
import type { CallQuery } from '../cometchat/model.ts';
import { code, truncate } from '../slack/mrkdwn.ts';
import { zoneFormat } from '../zone-formats.ts';

// The call search's words, the way chat-ops search reads: an optional uid, `key:value` filters
// and flags in any order, and `as <uid>`. Parsing is pure; relative times (`since:2h`) stay
// relative until `resolveSearch` fixes them against a clock, so that the page buttons carry
// the same absolute times however late they are clicked.

export const STATUSES = [
  'ongoing',
  'ended',
  'unanswered',
  'rejected',
  'busy',
  'initiated',
  'canceled',
];
export const TYPES = ['audio', 'video'];
export const MODES = ['call', 'meet', 'presenter'];
export const RECEIVER_TYPES = ['user', 'group'];

/** How long ago, a calendar day, or an instant (Unix seconds, from the form's pickers). */
export type TimeBound = { ago: number } | { day: string } | { at: number };

const Uid = z
  .string()
  .max(MAX_UID)
  .refine((uid) => idProblem(uid, 'A uid', MAX_UID) === undefined);

/**
 * A search with its times fixed (Unix seconds): what the API is asked, page after page, and
 * what a page button carries back, checked again like any value from Slack.
 */
export const ResolvedSearchSchema = z.object({
  uid: Uid.optional(),
  status: z.enum(STATUSES).optional(),
  type: z.enum(TYPES).optional(),
  mode: z.enum(MODES).optional(),
  /** `user` or `group`: who was called. */
  to: z.enum(RECEIVER_TYPES).optional(),
  recorded: z.boolean().optional(),
  transcribed: z.boolean().optional(),
  since: z.number().int().nonnegative().optional(),
  until: z.number().int().nonnegative().optional(),
  onBehalfOf: Uid.refine((uid) => uidProblem(uid) === undefined).optional(),
  /** The time zone a calendar day was read in (the person's, from Slack), when one was typed. */
  zone: z.string().max(64).optional(),
});

export type ResolvedSearch = z.infer<typeof ResolvedSearchSchema>;

/** A search as typed: the same filters, its times still as written (relative or a day). */
export type CallSearch = Omit<ResolvedSearch, 'since' | 'until' | 'zone'> & {
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
};

/** What a person may type, said whenever they typed something else. */
export const ACCEPTED_FILTERS = `Accepted: a uid, ${[
  `status:${STATUSES.join('|')}`,
  `type:${TYPES.join('|')}`,
  `mode:${MODES.join('|')}`,
  `to:${RECEIVER_TYPES.join('|')}`,
  'recorded',
  'transcribed',
  'since:30m|2h|3d|2026-11-20',
  'until:(same forms)',
]
  .map((filter) => code(filter))
  .join(', ')} and ${code('as <uid>')}.`;

const MAX_DAYS_BACK = 366;
const UNITS: Record<string, number> = { m: 60, h: 3_600, d: 86_400 };

/** The words after `/cometchat calls`: the search, or the one sentence that says what is wrong. */
export function parseCallSearch(words: readonly string[]): CallSearch | { problem: string } {
  const search: CallSearch = {};
  const refuse = (what: string) => ({ problem: `${what} ${ACCEPTED_FILTERS}` });
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    const lower = word.toLowerCase();
    if (lower === 'as') {
      const uid = words[i + 1];
      if (uid === undefined) return refuse('`as` needs the uid to act for.');
      if (search.onBehalfOf !== undefined) return refuse('`as` is given twice.');
      const problem = uidProblem(uid);
      if (problem) return { problem };
      search.onBehalfOf = storedUid(uid);
      i += 1;
      continue;
    }
    if (lower === 'recorded' || lower === 'transcribed') {
      if (search[lower]) return refuse(`${code(lower)} is given twice.`);
      search[lower] = true;
      continue;
    }
    const colon = word.indexOf(':');
    if (colon === -1) {
      if (search.uid !== undefined) {
        return refuse(
          `Only one uid can be searched for (${code(truncate(word, 40))} is a second).`,
        );
      }
      const problem = idProblem(word, 'A uid', MAX_UID);
      if (problem) return { problem };
      search.uid = storedUid(word);
      continue;
    }
    const key = lower.slice(0, colon);
    const value = word.slice(colon + 1);
    const problem = applyFilter(search, key, value);
    if (problem) return refuse(problem);
  }
  const { since, until } = search;
  // Two bounds of the same kind can be compared now; a mixed pair simply matches nothing.
  const conflict =
    since && until && 'ago' in since && 'ago' in until
      ? since.ago < until.ago
      : since && until && 'day' in since && 'day' in until
        ? since.day > until.day
        : false;
  if (conflict) return { problem: '`since` is later than `until`, so no call could match.' };
  return search;
}

function applyFilter(search: CallSearch, key: string, value: string): string | undefined {
  const once = (name: keyof CallSearch) =>
    search[name] === undefined ? undefined : `${code(key)} is given twice.`;
  const oneOf = (name: 'status' | 'type' | 'mode' | 'to', allowed: readonly string[]) => {
    const lower = value.toLowerCase();
    if (!allowed.includes(lower)) {
      return `${code(`${key}:${truncate(value, 30)}`)} is not a value this filter takes.`;
    }
    search[name] = lower;
    return undefined;
  };
  switch (key) {
    case 'status':
      return once('status') ?? oneOf('status', STATUSES);
    case 'type':
      return once('type') ?? oneOf('type', TYPES);
    case 'mode':
      return once('mode') ?? oneOf('mode', MODES);
    case 'to':
      return once('to') ?? oneOf('to', RECEIVER_TYPES);
    case 'since':
    case 'until': {
      const twice = once(key);
      if (twice) return twice;
      const bound = parseTimeBound(value);
      if (!bound)
        return `${code(`${key}:${truncate(value, 30)}`)} is not a time this filter takes.`;
      search[key] = bound;
      return undefined;
    }
    default:
      return `There is no filter ${code(truncate(key || ':', 30))}.`;
  }
}

/** `30m`, `2h`, `3d` (at most a year back), or a calendar day `2026-11-20`. */
export function parseTimeBound(text: string): TimeBound | undefined {
  const relative = /^(\d{1,6})([mhd])$/i.exec(text);
  if (relative) {
    const seconds = Number(relative[1]) * (UNITS[(relative[2] ?? '').toLowerCase()] ?? 0);
    return seconds > 0 && seconds <= MAX_DAYS_BACK * 86_400 ? { ago: seconds } : undefined;
  }
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!day) return undefined;
  const at = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
  // Date.UTC rolls 2026-02-31 over into March: a day that does not exist is refused.
  return new Date(at).toISOString().slice(0, 10) === text ? { day: text } : undefined;
}

/** The first second a bound allows: `ago` back from now, or the day's start in `zone`. */
function lowerBound(bound: TimeBound, nowSeconds: number, zone: string): number {
  if ('at' in bound) return bound.at;
  return 'ago' in bound ? nowSeconds - bound.ago : dayStart(bound.day, zone);
}

/** The last second a bound allows: `ago` back from now, or the day's last second in `zone`. */
function upperBound(bound: TimeBound, nowSeconds: number, zone: string): number {
  if ('at' in bound) return bound.at;
  if ('ago' in bound) return nowSeconds - bound.ago;
  const next = new Date(Date.parse(`${bound.day}T00:00:00Z`) + 86_400_000).toISOString();
  return dayStart(next.slice(0, 10), zone) - 1;
}

/** Whether the search names a calendar day, which needs the person's time zone to be read. */
export function namesADay(search: CallSearch): boolean {
  return [search.since, search.until].some((bound) => bound !== undefined && 'day' in bound);
}

/**
 * The search with its times fixed against `nowSeconds` (Unix seconds), a calendar day read in
 * `zone` (an IANA name such as `America/Los_Angeles`; UTC when Slack did not say).
 */
export function resolveSearch(
  search: CallSearch,
  nowSeconds: number,
  zone = 'UTC',
): ResolvedSearch {
  const { since, until, ...rest } = search;
  return {
    ...rest,
    ...(since ? { since: lowerBound(since, nowSeconds, zone) } : {}),
    ...(until ? { until: upperBound(until, nowSeconds, zone) } : {}),
    ...(namesADay(search) ? { zone } : {}),
  };
}

/** The Unix second at which `day` (YYYY-MM-DD) begins in `zone`. */
export function dayStart(day: string, zone: string): number {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  // The zone's offset at UTC midnight, then again at the instant it gives: a day that begins
  // across a change of offset (summer time) lands on the right side of it.
  const first = midnightUtc - offsetMs(midnightUtc, zone);
  const second = midnightUtc - offsetMs(first, zone);
  // Where summer time starts at midnight (Santiago), that midnight does not exist: the day
  // begins at the change, and `second` would fall an hour into the day before.
  return (localDay(second, zone) < day ? first : second) / 1000;
}

/** The calendar day (YYYY-MM-DD) the instant `ms` falls on in `zone`. */
export function localDay(ms: number, zone: string): string {
  return zoneFormat(zone, 'day').format(ms);
}

/** How far `zone`'s wall clock is ahead of UTC at the instant `ms`. */
export function offsetMs(ms: number, zone: string): number {
  const parts = zoneFormat(zone, 'clock').formatToParts(ms);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return wall - Math.floor(ms / 1000) * 1000;
}

/** What the API is asked for one page of a search. */
export function callQuery(search: ResolvedSearch, page: number, perPage: number): CallQuery {
  return {
    uid: search.uid,
    status: search.status,
    type: search.type,
    mode: search.mode,
    receiverType: search.to,
    hasRecording: search.recorded,
    hasTranscription: search.transcribed,
    startedAt: search.since,
    endedAt: search.until,
    page,
    perPage,
  };
}
