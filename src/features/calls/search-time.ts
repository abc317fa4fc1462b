import { code, truncate } from '../../slack/mrkdwn.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import type { TimeZones } from '../../slack/time-zones.ts';
import { type CallSearch, namesADay, resolveSearch } from './call-filters.ts';
import { describeSearch } from './call-search-view.ts';

// A search's times fixed for the person who asked: `since:2h` from when the request arrived, a
// calendar day (`since:2026-11-20`) from its midnight in their own time zone.

/** When the request arrived, in Unix seconds. */
function arrived(scope: RequestScope): number {
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
 * What the working line says a search looks for, at once: a calendar day is not fixed yet (its
 * zone is still being asked), so such a search names only whose calls it looks for.
 */
export function workingDescription(search: CallSearch, scope: RequestScope): string {
  if (!namesADay(search)) return describeSearch(resolveSearch(search, arrived(scope)));
  return search.uid === undefined ? 'calls' : `calls of ${code(truncate(search.uid, 100))}`;
}
