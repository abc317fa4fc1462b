import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_FILTERS,
  callQuery,
  dayStart,
  parseCallSearch,
  parseTimeBound,
  resolveSearch,
} from '../../../src/features/call-filters.ts';
import { readCommand } from '../../../src/features/command.ts';
import { SUBCOMMANDS } from '../../../src/features/index.ts';

// The call search's words: pure, and times stay relative until resolved against a given clock.

const NOW = 1_800_000_000; // Unix seconds

const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe('parseCallSearch', () => {
  it('reads a uid, filters and flags in any order, and `as <uid>`', () => {
    expect(
      parseCallSearch(
        words(
          'status:ended cometchat-uid-2 TYPE:Video mode:meet to:group recorded since:2h as ops-1',
        ),
      ),
    ).toEqual({
      uid: 'cometchat-uid-2',
      status: 'ended',
      type: 'video',
      mode: 'meet',
      to: 'group',
      recorded: true,
      since: { ago: 7_200 },
      onBehalfOf: 'ops-1',
    });
    // Uids as CometChat stores them: typed in capitals, they are sent in lower case.
    expect(parseCallSearch(words('CometChat-UID-2 as OPS-1'))).toEqual({
      uid: 'cometchat-uid-2',
      onBehalfOf: 'ops-1',
    });
    expect(parseCallSearch([])).toEqual({});
    expect(parseCallSearch(words('transcribed until:2026-11-20'))).toEqual({
      transcribed: true,
      until: { day: '2026-11-20' },
    });
  });

  it('refuses an unknown filter or a bad value in one sentence that lists what is accepted', () => {
    for (const text of [
      'colour:red',
      'status:dropped',
      'type:hologram',
      'mode:party',
      'to:channel',
      'since:yesterday',
      'since:0m',
      'since:400d',
      'until:2026-02-31',
      ':x',
      'uid-1 uid-2',
      'status:ended status:ongoing',
      'as',
      'recorded recorded',
    ]) {
      const result = parseCallSearch(words(text));
      expect(result, text).toHaveProperty('problem');
      expect((result as { problem: string }).problem, text).toContain(ACCEPTED_FILTERS);
    }
    expect(parseCallSearch(words('colour:red'))).toEqual({
      problem: `There is no filter \`colour\`. ${ACCEPTED_FILTERS}`,
    });
    // Escaped once, for mrkdwn: Slack shows `as <uid>`.
    expect(ACCEPTED_FILTERS).toContain('`as &lt;uid&gt;`');
    expect(ACCEPTED_FILTERS).not.toContain('&amp;');
  });

  it('refuses a uid it could never send, and bounds that cannot both hold', () => {
    expect(parseCallSearch(['x'.repeat(101)])).toEqual({
      problem: 'A uid is at most 100 characters.',
    });
    expect(parseCallSearch(words('as ŭid'))).toHaveProperty('problem');
    expect(parseCallSearch(words('since:1h until:2h'))).toHaveProperty('problem');
    expect(parseCallSearch(words('since:2026-11-21 until:2026-11-20'))).toHaveProperty('problem');
    expect(parseCallSearch(words('since:2h until:1h'))).not.toHaveProperty('problem');
  });

  it('is what `/cometchat calls` parses, with its problem as the answer', () => {
    expect(readCommand('calls cometchat-uid-2 since:3d', [], SUBCOMMANDS)).toMatchObject({
      name: 'calls',
      parsed: { uid: 'cometchat-uid-2', since: { ago: 259_200 } },
    });
    const refused = readCommand('staging calls status:nope', ['staging', 'prod'], SUBCOMMANDS);
    expect(refused).toMatchObject({ app: 'staging' });
    expect(refused).toHaveProperty('problem');
  });
});

describe('parseTimeBound', () => {
  it('takes minutes, hours, days and calendar days', () => {
    expect(parseTimeBound('30m')).toEqual({ ago: 1_800 });
    expect(parseTimeBound('2H')).toEqual({ ago: 7_200 });
    expect(parseTimeBound('3d')).toEqual({ ago: 259_200 });
    expect(parseTimeBound('2026-11-20')).toEqual({ day: '2026-11-20' });
    for (const bad of ['2w', '-1h', '1.5h', '20261120', '2026-13-01', '']) {
      expect(parseTimeBound(bad), bad).toBeUndefined();
    }
  });
});

describe('resolveSearch and callQuery', () => {
  it('fixes relative times against the clock, and a day from its start or to its end', () => {
    const since = resolveSearch({ since: { ago: 7_200 }, until: { ago: 60 } }, NOW);
    expect(since).toEqual({ since: NOW - 7_200, until: NOW - 60 });
    const day = { since: { day: '2026-11-20' }, until: { day: '2026-11-20' } };
    expect(resolveSearch(day, NOW)).toEqual({
      since: Date.UTC(2026, 10, 20) / 1000,
      until: Date.UTC(2026, 10, 20) / 1000 + 86_399,
      zone: 'UTC',
    });
    // In the person's zone: Los Angeles is eight hours behind UTC in November.
    expect(resolveSearch(day, NOW, 'America/Los_Angeles')).toEqual({
      since: Date.UTC(2026, 10, 20, 8) / 1000,
      until: Date.UTC(2026, 10, 21, 8) / 1000 - 1,
      zone: 'America/Los_Angeles',
    });
  });

  it("finds a day's midnight across a change of summer time", () => {
    // Summer time starts in Los Angeles at 02:00 on 8 March 2026: that day has 23 hours.
    expect(dayStart('2026-03-08', 'America/Los_Angeles')).toBe(Date.UTC(2026, 2, 8, 8) / 1000);
    expect(dayStart('2026-03-09', 'America/Los_Angeles')).toBe(Date.UTC(2026, 2, 9, 7) / 1000);
    expect(dayStart('2026-11-20', 'Asia/Kolkata')).toBe(Date.UTC(2026, 10, 19, 18, 30) / 1000);
    // In Santiago summer time started at midnight on 8 September 2024: that day began at 01:00.
    expect(dayStart('2024-09-08', 'America/Santiago')).toBe(Date.UTC(2024, 8, 8, 4) / 1000);
    expect(dayStart('2024-09-07', 'America/Santiago')).toBe(Date.UTC(2024, 8, 7, 4) / 1000);
  });

  it('asks the API with its own parameter names', () => {
    expect(
      callQuery(
        {
          uid: 'u1',
          status: 'ended',
          type: 'audio',
          mode: 'call',
          to: 'user',
          recorded: true,
          transcribed: true,
          since: 10,
          until: 20,
          onBehalfOf: 'ops',
        },
        3,
        10,
      ),
    ).toEqual({
      uid: 'u1',
      status: 'ended',
      type: 'audio',
      mode: 'call',
      receiverType: 'user',
      hasRecording: true,
      hasTranscription: true,
      startedAt: 10,
      endedAt: 20,
      page: 3,
      perPage: 10,
    });
  });
});
