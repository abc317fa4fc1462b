import type { KnownBlock, TableBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import { cellText } from '../../../offline/stack/terminal-render.ts';
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

/** The message's tables, and the one table's rows as the text each cell shows. */
function tablesOf(blocks: readonly KnownBlock[] = []) {
  const tables = blocks.filter((b): b is TableBlock => b.type === 'table');
  return { tables, rows: (tables[0]?.rows ?? []).map((row) => row.map(cellText)) };
}

/** What Slack parses as mrkdwn: the fallback `text` and every mrkdwn text object. */
function markupOf(message: { text?: string; blocks?: KnownBlock[] }): string {
  const found: string[] = [message.text ?? ''];
  JSON.stringify(message.blocks, (_key, value: unknown) => {
    const v = value as { type?: unknown; text?: unknown } | null;
    if (v?.type === 'mrkdwn' && typeof v.text === 'string') found.push(v.text);
    return value;
  });
  return found.join('\n');
}

describe('callListMessage', () => {
  it('lists the page with a Details button per call and page buttons carrying the search', () => {
    const search = { uid: 'cometchat-uid-2', status: 'ended', since: 1_762_900_000 };
    const message = callListMessage(page([call(1), call(2)], { page: 2 }), search);
    const json = JSON.stringify(message);
    expect(json).toContain('calls of `cometchat-uid-2`');
    expect(json).toContain('Page 2 of 3 · 25 calls');
    const buttons = (message.blocks ?? []).flatMap((b): unknown[] =>
      b.type === 'actions' ? b.elements : b.type === 'section' && b.accessory ? [b.accessory] : [],
    ) as { action_id: string; value: string; text: { text: string } }[];
    expect(
      buttons.filter((b) => b.action_id === 'call_details').map((b) => JSON.parse(b.value)),
    ).toEqual([
      { sessionId: call(1).sessionId, page: 1 },
      { sessionId: call(2).sessionId, page: 1 },
    ]);
    // One table; below it a "Details #n" button per row, each in a block of its own.
    const { tables, rows } = tablesOf(message.blocks);
    expect(tables).toHaveLength(1);
    expect(rows[0]).toEqual([
      '#',
      'When',
      'Type',
      'Status',
      'Who',
      'Duration',
      'Participants',
      'Recording',
    ]);
    expect(rows.slice(1).map((row) => row[0])).toEqual(['1', '2']);
    expect(rows[1]?.slice(1)).toEqual([
      '2025-11-13 02:03',
      'video · meet',
      '● ongoing',
      `${HOSTILE[1]} (uid-1) → uid-2`,
      '5 min',
      '3 · 1 never answered',
      '—',
    ]);
    expect(buttons.filter((b) => b.action_id === 'call_details').map((b) => b.text.text)).toEqual([
      'Details #1',
      'Details #2',
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
    // Nothing Slack parses holds a mention; the table shows the names as they are, unparsed.
    expect(markupOf(message)).not.toMatch(/<!(channel|here)>/);
    expect(tablesOf(message.blocks).rows.map((row) => row[4])).toContain(
      '<!channel> (uid-0) → uid-1',
    );
    expect(CALLS_PER_PAGE).toBeLessThanOrEqual(20);
  });

  it('shows a uid exactly, with nothing invisible added, and a hostile name as plain text', () => {
    const tricky = {
      ...call(1),
      initiator: { uid: 'cometchat_uid_1*x', name: '<!channel> *bold*' },
      receiver: { uid: 'uid_2~`' },
    };
    const message = callListMessage(page([tricky]), {});
    const who = tablesOf(message.blocks).rows[1]?.[4];
    expect(who).toBe('<!channel> *bold* (cometchat_uid_1*x) → uid_2~`');
    expect(JSON.stringify(message.blocks)).not.toContain('\u200b');
    expect(JSON.stringify(message.blocks)).not.toMatch(/&lt;|&amp;/);
    // A raw_text cell is not parsed at all: what it holds cannot mention anyone.
    const table = message.blocks?.find((b): b is TableBlock => b.type === 'table');
    expect(table?.rows[1]?.[4]).toEqual({ type: 'raw_text', text: who });
  });

  it('in a modal, which takes no table: a section per call with its Details button beside it', () => {
    const message = callListMessage(page([call(1), call(2)]), {}, { surface: 'modal' });
    expect(tablesOf(message.blocks).tables).toEqual([]);
    const beside = (message.blocks ?? []).flatMap((b) =>
      b.type === 'section' && b.accessory?.type === 'button' ? [b.accessory] : [],
    );
    expect(beside.map((b) => [b.action_id, b.text.text, JSON.parse(b.value ?? '')])).toEqual([
      ['call_details', 'Details', { sessionId: call(1).sessionId, page: 1 }],
      ['call_details', 'Details', { sessionId: call(2).sessionId, page: 1 }],
    ]);
    assertWithinLimits('view', {
      type: 'modal',
      title: { type: 'plain_text', text: 'Calls' },
      blocks: message.blocks,
    });
  });

  it('a call whose Details value would be too long is listed without a button', () => {
    const long = { ...call(1), sessionId: 'x'.repeat(2100) };
    const message = callListMessage(page([call(2), long]), {});
    expect(tablesOf(message.blocks).rows).toHaveLength(3);
    const details = (message.blocks ?? []).flatMap((b) =>
      b.type === 'actions' ? b.elements.filter((e) => e.action_id === 'call_details') : [],
    );
    expect(details.map((b) => (b.type === 'button' ? b.text.text : ''))).toEqual(['Details #1']);
    assertWithinLimits('message', message);
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
