import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { CallPage, CallSummary, Participant } from '../../../src/cometchat/model.ts';
import {
  CALLS_PER_PAGE,
  callLine,
  callListMessage,
  describeSearch,
} from '../../../src/features/calls/call-search-view.ts';
import { participantLine, participantState } from '../../../src/features/calls/call-view.ts';
import { statusMark } from '../../../src/features/calls/status-marks.ts';

// The search result as Block Kit: pure, checked against Slack's limits with hostile data.

const HOSTILE = [
  '<!channel>',
  '*bold* _it_',
  '&amp; <https://evil.example|click>',
  '`tick`',
  'שלום 👋',
];

function call(i: number, participants = 3): CallSummary {
  return {
    sessionId: `v1.us.app.17000000${String(i).padStart(2, '0')}abcdef`,
    type: i % 2 ? 'video' : 'audio',
    mode: ['call', 'meet', 'presenter'][i % 3],
    status: ['ended', 'ongoing', 'unanswered', 'rejected'][i % 4],
    receiverType: 'user',
    initiator: { uid: `uid-${i}`, name: HOSTILE[i % HOSTILE.length] },
    receiver: { uid: `uid-${i + 1}` },
    initiatedAt: 1_763_000_000 - i * 600,
    startedAt: 1_763_000_000 - i * 600,
    endedAt: 1_763_000_000 - i * 600 + 300,
    totalParticipants: participants,
    // One in four never joined.
    neverJoined: Math.ceil(participants / 4),
    hasRecording: i % 3 === 0,
    hasTranscription: false,
  };
}

const page = (calls: CallSummary[], extra: Partial<CallPage> = {}): CallPage => ({
  calls,
  page: 1,
  totalPages: 3,
  total: 25,
  ...extra,
});

describe('callLine', () => {
  it('says status, type and mode, who called whom, when, how long, who answered, recorded', () => {
    const line = callLine(call(3));
    expect(line).toContain(':red_circle: *video · call* · rejected');
    expect(line).toContain('<!date^1762998200^');
    expect(line).toContain('5 min');
    expect(line).toContain('3 participants, 1 never answered');
    expect(line).toContain(':movie_camera: recorded');
    expect(line).not.toContain('<!channel>');
  });
});

describe('callListMessage', () => {
  it('lists the page with a Details button per call and page buttons carrying the search', () => {
    const search = { uid: 'cometchat-uid-2', status: 'ended', since: 1_762_900_000 };
    const message = callListMessage(page([call(1), call(2)], { page: 2 }), search);
    const json = JSON.stringify(message);
    expect(json).toContain('calls of `cometchat-uid-2`');
    expect(json).toContain('Page 2 of 3 · 25 calls');
    const buttons = (message.blocks ?? []).flatMap((b): unknown[] =>
      b.type === 'actions' ? b.elements : b.type === 'section' && b.accessory ? [b.accessory] : [],
    ) as { action_id: string; value: string }[];
    expect(
      buttons.filter((b) => b.action_id === 'call_details').map((b) => JSON.parse(b.value)),
    ).toEqual([
      { sessionId: call(1).sessionId, page: 1 },
      { sessionId: call(2).sessionId, page: 1 },
    ]);
    const pages = buttons.filter((b) => b.action_id.startsWith('calls_page'));
    expect(pages.map((b) => JSON.parse(b.value))).toEqual([
      { s: search, page: 1 },
      { s: search, page: 3 },
    ]);
    assertWithinLimits('message', message);
  });

  it('says which filters were applied when no call matches', () => {
    const message = callListMessage(page([], { total: 0, totalPages: 0 }), {
      uid: 'nobody',
      type: 'video',
      recorded: true,
    });
    expect(JSON.stringify(message)).toContain(
      'No calls match: calls of `nobody` · type `video` · recorded.',
    );
    expect(describeSearch({})).toBe('no filters (the newest calls)');
  });

  it('stays within Slack limits with 100 calls of 300 hostile participants each', () => {
    const calls = Array.from({ length: 100 }, (_, i) => call(i, 300));
    const message = callListMessage(page(calls, { total: 100, totalPages: 1 }), {
      uid: '<!here>',
    });
    assertWithinLimits('message', message);
    // What Slack renders (button values are data that comes back, not text).
    const shown = JSON.stringify(message, (key, value) => (key === 'value' ? undefined : value));
    expect(shown).not.toMatch(/<!(channel|here)>/);
    expect(CALLS_PER_PAGE).toBeLessThanOrEqual(20);
  });
});

describe('status marks', () => {
  it('draw a state in the same colour in a search result and in the call it opens', () => {
    for (const state of ['ongoing', 'ended', 'unanswered', 'rejected']) {
      const mark = statusMark(state);
      expect(mark).not.toBe(':grey_question:');
      const someone: Participant = { uid: 'u-1', state, isJoined: false };
      expect(participantLine(someone)).toMatch(new RegExp(`^${mark} ${state} `));
      expect(callLine({ ...call(1), status: state })).toContain(`${mark} *`);
    }
  });
});

describe('participantState', () => {
  const joined: Participant = { uid: 'u-1', isJoined: true };
  it('keeps the state CometChat gives', () => {
    expect(participantState({ ...joined, state: 'rejected' }, 'ongoing')).toBe('rejected');
  });
  it('reads a missing state from the times: in the call while it goes on, else left with it', () => {
    expect(participantState(joined, 'ongoing')).toBe('ongoing');
    expect(participantState({ ...joined, leftAt: 1_700_000_000 }, 'ongoing')).toBe('ended');
    expect(participantState(joined, 'ended')).toBe('ended');
    expect(participantState({ uid: 'u-2', isJoined: false }, 'ongoing')).toBeUndefined();
  });
});
