import { currentRequest } from '../../request-context.ts';
import { slackDate } from '../../slack/mrkdwn.ts';
import type { TimeZones } from '../../slack/time-zones.ts';
import { type CallSearch, namesADay, resolveSearch, type TimeBound } from '../call-filters.ts';
import { describeFilters } from './call-search-view.ts';

// A search's times fixed for the person who asked: `since:2h` from when the request arrived, a
// calendar day (`since:2026-11-20`) from its midnight in their own time zone.

/** An instant in Unix ms, in Unix seconds. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** The search's times fixed; a calendar day read in the person's time zone (asked of Slack). */
export async function resolvedFor(
  search: CallSearch,
  userId: string,
  deps: { timeZones: TimeZones },
) {
  const { log, receivedAt } = currentRequest();
  const zone = namesADay(search) ? await deps.timeZones.of(userId, log) : undefined;
  return resolveSearch(search, seconds(receivedAt), zone);
}

/**
 * What the progress message says a search looks for, at once and in the answer's own words:
 * every filter, a relative time fixed from when the request arrived (`receivedAt`, Unix ms), and
 * a calendar day as typed (`since 2026-11-20`): the zone it is read in is asked of Slack only
 * after the acknowledgement, and the answer says which zone that was.
 */
export function workingDescription(search: CallSearch, receivedAt: number): string {
  const fixed = resolveSearch(search, seconds(receivedAt));
  const written = (typed: TimeBound | undefined, at: number | undefined) =>
    typed !== undefined && 'day' in typed ? typed.day : at;
  return describeFilters(
    {
      ...search,
      since: written(search.since, fixed.since),
      until: written(search.until, fixed.until),
    },
    (time) => (typeof time === 'string' ? time : slackDate(time)),
  );
}
