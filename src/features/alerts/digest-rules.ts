import { code, truncate } from '../../slack/mrkdwn.ts';
import { localDay, offsetMs } from '../call-filters.ts';
import { Refusal } from '../feature.ts';

// A channel's daily digest: the words that ask for one, and when each is due and which day it
// covers. Times of day are read in the zone of the person who asked (users.info), kept with the
// subscription, so the digest comes at the same wall-clock time through summer time. Pure.

export const DIGEST_USAGE = '`/cometchat digest daily [HH:MM]`';

/** When a digest is posted if no time is given: the start of a working day. */
export const DEFAULT_DIGEST_TIME = '09:00';

/** What `digest` asks for: a local time of day, `HH:MM` on a 24-hour clock. */
export interface DigestWords {
  time: string;
}

const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** The words after `digest`: `daily`, then perhaps a time. Pure. */
export function parseDigestWords(words: readonly string[]): DigestWords | Refusal {
  const [every, time, ...rest] = words;
  if (every?.toLowerCase() !== 'daily' || rest.length > 0) {
    return new Refusal(
      `Usage: ${DIGEST_USAGE}, a time of day in your time zone (${DEFAULT_DIGEST_TIME} when left out).`,
    );
  }
  if (time === undefined) return { time: DEFAULT_DIGEST_TIME };
  const match = TIME_OF_DAY.exec(time);
  if (!match) {
    return new Refusal(
      `${code(truncate(time, 20))} is not a time of day: give it as HH:MM on a 24-hour clock, such as \`digest daily 17:30\`.`,
    );
  }
  return { time: `${(match[1] ?? '').padStart(2, '0')}:${match[2]}` };
}

/** One day's digest: the day it is posted on, and the time it covers. */
export interface DigestDay {
  /** The calendar day (YYYY-MM-DD) in the digest's zone: with its id, what makes it once. */
  day: string;
  /** Unix ms: when it became due. */
  dueAt: number;
  /**
   * Unix seconds: from where the previous digest ended (24 hours back for the first) up to when
   * this one became due. Each begins where the one before ended, so the days in a row cover
   * every second once: 23 hours across the night summer time begins, 25 across the one it ends.
   */
  from: number;
  to: number;
}

const MINUTE_MS = 60_000;
const HALF_DAY_MS = 12 * 60 * MINUTE_MS;
const DAY_SECONDS = 24 * 60 * 60;

/**
 * The Unix ms at which `zone`'s clock reads `time` (HH:MM) on `day` (YYYY-MM-DD). The offsets
 * half a day either side are the zone's before and after any change that day: the time read
 * with one of them is it. Where the clock is put back and a time comes twice, the first; where
 * it jumps forward over the time (02:30 on a spring day), the moment of the jump, when the time
 * has passed.
 */
export function localInstant(day: string, time: string, zone: string): number {
  const wall = Date.parse(`${day}T${time}:00Z`);
  const wallAt = (ms: number) => ms + offsetMs(ms, zone);
  const before = wall - offsetMs(wall - HALF_DAY_MS, zone);
  const after = wall - offsetMs(wall + HALF_DAY_MS, zone);
  const [early, late] = [Math.min(before, after), Math.max(before, after)];
  const exact = [early, late].find((ms) => wallAt(ms) === wall);
  if (exact !== undefined) return exact;
  // Skipped: the clock reads before the time at `low` and past it at `high`; offsets change on
  // whole minutes, so halving by minutes finds the jump.
  let [low, high] = [early, late];
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (wallAt(middle) >= wall) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * Whether a digest posted at `at` is due at `now` (Unix ms), and for which day: due once its
 * time has come today in its zone, covering the time since `coveredTo` (Unix seconds, where the
 * previous digest ended; the 24 hours before when there was none). Like a reminder, the first
 * comes at the first such time after the subscription was made (`createdAt`), not at once for a
 * time already past that day. Whether today's was posted already is the store's to say: the
 * claim on its day, which every replica asks for (digest.ts). Pure.
 */
export function digestDue(
  at: { time: string; zone: string },
  createdAt: number,
  now: number,
  coveredTo?: number,
): DigestDay | undefined {
  const day = localDay(now, at.zone);
  const dueAt = localInstant(day, at.time, at.zone);
  if (now < dueAt || dueAt < createdAt) return undefined;
  const to = Math.floor(dueAt / 1000);
  // An end at or past this one's could only be a clock put back: the 24 hours, as for a first.
  const from = coveredTo !== undefined && coveredTo < to ? coveredTo : to - DAY_SECONDS;
  return { day, dueAt, from, to };
}
