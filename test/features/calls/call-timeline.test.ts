import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { Call, Participant } from '../../../src/cometchat/model.ts';
import {
  BAR_WIDTH,
  callShape,
  callSpan,
  offset,
  preText,
  timelineLine,
  timelineSections,
  transcriptsText,
} from '../../../src/features/calls/call-timeline.ts';
import { callMessage, participantsView } from '../../../src/features/calls/call-view.ts';

// Who was there when, as text: pure, with the clock ("now") given.

const START = 1_763_000_000;

function person(uid: string, at: Partial<Participant> = {}): Participant {
  return { uid, name: uid, isJoined: at.joinedAt !== undefined, ...at };
}

function call(participants: Participant[], at: Partial<Call> = {}): Call {
  return {
    sessionId: 'v1.us.app.1',
    status: 'ended',
    startedAt: START,
    endedAt: START + 600,
    totalParticipants: participants.length,
    participants,
    hasRecording: false,
    recordings: [],
    hasTranscription: false,
    transcriptions: [],
    ...at,
  };
}

const bar = (line: string) => line.match(/[█·]+/)?.[0] ?? '';

describe('timelineLine', () => {
  it('draws when someone was in the call, from its start to its end', () => {
    const span = { start: START, end: START + 600 };
    const whole = timelineLine(
      person('a', { joinedAt: START, leftAt: START + 600, state: 'ended' }),
      span,
    );
    expect(bar(whole)).toBe('█'.repeat(BAR_WIDTH));
    expect(whole).toContain('+0:00 → +10:00');
    const second = timelineLine(person('b', { joinedAt: START + 300, leftAt: START + 450 }), span);
    expect(bar(second)).toBe(`${'·'.repeat(12)}${'█'.repeat(6)}${'·'.repeat(6)}`);
    // Times outside the call are held to it; someone still in runs to its end.
    const early = timelineLine(person('c', { joinedAt: START - 50 }), span);
    expect(bar(early)).toBe('█'.repeat(BAR_WIDTH));
    expect(early).toContain('still in');
  });

  it('lines names up by columns, wide letters counted twice, and keeps markup inert', () => {
    const span = { start: START, end: START + 60 };
    const lines = ['Ana', '田中 太郎', '<!channel> `x` *b* &amp;'].map((name) =>
      timelineLine({ ...person('u', { joinedAt: START }), name }, span),
    );
    const barAt = (line: string) => {
      const before = line.slice(0, line.indexOf(bar(line))).replace(/&(lt|gt|amp);/g, '_');
      return Array.from(before).reduce((n, c) => n + (/[\u3000-\u9fff]/.test(c) ? 2 : 1), 0);
    };
    expect(new Set(lines.map(barAt)).size).toBe(1);
    expect(lines[2]).not.toContain('<!channel>');
    expect(lines[2]).not.toContain('`');
    expect(preText('a&b<c>', 4)).toBe('a&amp;b…');
    expect(preText('a<b', 5)).toBe('a&lt;b  ');
  });
});

describe('callSpan', () => {
  it('runs a call still going on up to now, and dates one without a start by its first join', () => {
    const ongoing = call([person('a', { joinedAt: START })], {
      endedAt: undefined,
      status: 'ongoing',
    });
    expect(callSpan(ongoing, START + 900)).toEqual({ start: START, end: START + 900 });
    const undated = call([person('a', { joinedAt: START + 5, leftAt: START + 65 })], {
      startedAt: undefined,
      endedAt: undefined,
    });
    expect(callSpan(undated)).toEqual({ start: START + 5, end: START + 65 });
    expect(callSpan(call([], { startedAt: undefined, endedAt: undefined }))).toBeUndefined();
  });
});

describe('timelineSections and callShape', () => {
  const participants = [
    person('host', { joinedAt: START, leftAt: START + 600, state: 'ended' }),
    person('early', { joinedAt: START + 10, leftAt: START + 250, state: 'ended' }),
    person('missed', { state: 'unanswered' }),
    person('no', { state: 'rejected' }),
    person('<!here>', { state: 'unanswered' }),
  ];

  it('puts the joined in a preformatted block and the never-joined apart', () => {
    const [timeline, never] = timelineSections(call(participants), participants);
    expect(timeline).toMatch(/^```[\s\S]*```$/);
    expect(timeline).toContain('+10:00');
    expect(timeline).not.toContain('missed');
    expect(never).toBe(
      '*Never joined* (3): missed (unanswered), no (rejected), &lt;!here&gt; (unanswered)',
    );
  });

  it('shows a never-joined participant without a name by their uid, exact to copy', () => {
    const nameless: Participant = { uid: 'guest_7781', isJoined: false, state: 'unanswered' };
    const [never] = timelineSections(call([nameless]), [nameless]);
    expect(never).toBe('*Never joined* (1): `guest_7781` (unanswered)');
    expect(never).not.toMatch(/\u200B/);
  });

  it('lists as many never-joined as fit, each whole, and counts the rest', () => {
    const many = Array.from({ length: 80 }, (_, i) =>
      person(`${'&'.repeat(60)}-${i}`, { state: 'unanswered' }),
    );
    const [never = ''] = timelineSections(call(many), many);
    expect(never.length).toBeLessThanOrEqual(2_900);
    const [head, list = ''] = never.split(': ');
    expect(head).toBe('*Never joined* (80)');
    const shown = list.split(', ');
    const more = shown.pop();
    expect(more).toMatch(/^…and \d+ more$/);
    expect(shown.length + Number(more?.match(/\d+/)?.[0])).toBe(80);
    // Each name cut to 60 characters before it was escaped: whole entities, then the state.
    for (const name of shown) expect(name).toBe(`${'&amp;'.repeat(11)}… (unanswered)`);
  });

  it('says the shape in one line', () => {
    expect(callShape(call(participants))).toBe(
      '2 joined, 2 unanswered, 1 rejected; first to leave after 4 min',
    );
    expect(callShape(call([person('a', { state: 'ongoing', joinedAt: START })]))).toBe('1 joined');
    expect(offset(3_725)).toBe('+1:02:05');
  });

  it('keeps a page of 20 from 300 hostile participants within Block Kit limits', () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      i % 7 === 0
        ? person(`<!channel>${'x'.repeat(90)}${i}`, { state: 'unanswered' })
        : person(`user-${i}`, { joinedAt: START + i, leftAt: START + 300 + i, state: 'ended' }),
    );
    const big = call(many);
    for (const page of [1, 8, 15]) {
      const view = participantsView(big, { sessionId: big.sessionId, page }, { now: START + 900 });
      assertWithinLimits('view', view);
      expect(JSON.stringify(view)).not.toContain('<!channel>');
    }
    assertWithinLimits('message', callMessage(big));
  });
});

describe('transcriptsText', () => {
  it('lists transcripts with date and length, linking http(s) addresses only', () => {
    const text = transcriptsText(
      [
        {
          tid: 't1',
          transcriptDate: '2026-11-20T10:00:00Z',
          transcriptUrl: 'https://transcripts.example/t1.txt',
          startTime: START,
          endTime: START + 90,
        },
        { tid: 't2', transcriptDate: 'not a date', transcriptUrl: 'javascript:alert(1)' },
      ],
      true,
    );
    expect(text).toContain('<https://transcripts.example/t1.txt|Transcript t1>');
    expect(text).toContain(`<!date^${Date.UTC(2026, 10, 20, 10) / 1000}^`);
    expect(text).toContain('00:01:30');
    expect(text).not.toContain('javascript:');
    expect(transcriptsText([], false)).toBeUndefined();
    expect(transcriptsText([], true)).toContain('no transcript is listed yet');
  });
});
