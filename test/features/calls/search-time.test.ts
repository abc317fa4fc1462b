import { describe, expect, it } from 'vitest';
import { parseCallSearch } from '../../../src/features/call-filters.ts';
import { describeSearch } from '../../../src/features/calls/call-search-view.ts';
import { workingDescription } from '../../../src/features/calls/search-time.ts';
import { slackDate } from '../../../src/slack/mrkdwn.ts';

// The working line of `/cometchat calls`: said before anything is asked of Slack or CometChat,
// in the same words the answer then uses for the search's filters.

/** When the request arrived: 2026-11-20 12:00 UTC. */
const ARRIVED_MS = Date.UTC(2026, 10, 20, 12);
const NOW = ARRIVED_MS / 1000;

function typed(text: string) {
  const search = parseCallSearch(text.split(' '));
  if ('problem' in search) throw new Error(search.problem);
  return search;
}

describe('workingDescription', () => {
  it('names every filter of a search with a calendar day, the day as typed', () => {
    expect(
      workingDescription(
        typed('cometchat-uid-2 status:ended type:video since:2026-11-20'),
        ARRIVED_MS,
      ),
    ).toBe('calls of `cometchat-uid-2` · status `ended` · type `video` · since 2026-11-20');
    expect(
      workingDescription(
        typed('mode:meet to:group recorded until:2026-11-19 as ops-1'),
        ARRIVED_MS,
      ),
    ).toBe('mode `meet` · to a `group` · recorded · until 2026-11-19 · as `ops-1`');
  });

  it('fixes a relative time beside a day, and writes the day as typed', () => {
    expect(workingDescription(typed('since:2h until:2026-11-20'), ARRIVED_MS)).toBe(
      `since ${slackDate(NOW - 7_200)} · until 2026-11-20`,
    );
  });

  it('says no more than the answer will for a search without a day', () => {
    const search = typed('cometchat-uid-2 status:ended since:2h transcribed');
    const line = workingDescription(search, ARRIVED_MS);
    expect(line).toBe(
      `calls of \`cometchat-uid-2\` · status \`ended\` · transcribed · since ${slackDate(NOW - 7_200)}`,
    );
    // The same sentence as the answer's header, fixed from the same instant.
    expect(line).toBe(
      describeSearch({
        uid: 'cometchat-uid-2',
        status: 'ended',
        transcribed: true,
        since: NOW - 7_200,
      }),
    );
    expect(workingDescription({}, ARRIVED_MS)).toBe('no filters (the newest calls)');
  });
});
