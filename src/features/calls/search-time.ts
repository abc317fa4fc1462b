import { slackDate } from '../../slack/mrkdwn.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import type { TimeZones } from '../../slack/time-zones.ts';
import { type CallSearch, namesADay, resolveSearch, type TimeBound } from '../call-filters.ts';
import { describeFilters } from './call-search-view.ts';

// A search's times fixed for the person who asked: `since:2h` from when the request arrived, a
// calendar day (`since:2026-11-20`) from its midnight in their own time zone.

/** When the request arrived, in Unix seconds. */
function arrived(scope: Pick<RequestScope, 'receivedAt'>): number {
  return Math.floor(scope.receivedAt / 1000);
}

/** The search's times fixed; a calendar day read in the person's time zone (asked of Slack). */
export async function resolvedFor(
  search: CallSearch,
  userId: string,
  scope: RequestScope,
  deps: { timeZones: TimeZones },
) {
  const zone = namesADay(search) ? await deps.timeZones.of(userId, scope.log) : undefined;
  return resolveSearch(search, arrived(scope), zone);
}

/**
 * What the working line says a search looks for, at once and in the answer's own words: every
 * filter, a relative time fixed from when the request arrived, and a calendar day as typed
 * (`since 2026-11-20`): the zone it is read in is asked of Slack only after the acknowledgement,
 * and the answer says which zone that was.
 */
export function workingDescription(
  search: CallSearch,
  scope: Pick<RequestScope, 'receivedAt'>,
): string {
  const fixed = resolveSearch(search, arrived(scope));
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
