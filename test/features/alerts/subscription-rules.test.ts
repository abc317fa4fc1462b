import { describe, expect, it } from 'vitest';
import type { Call } from '../../../src/cometchat/model.ts';
import {
  callMatches,
  parseSubscribeWords,
  subscriptionsReached,
} from '../../../src/features/alerts/subscription-rules.ts';
import type { AlertFacts } from '../../../src/features/alerts/webhook-event.ts';
import { Refusal } from '../../../src/features/feature.ts';
import type { Subscription } from '../../../src/store/store.ts';

// Which channels an event reaches, without Slack or CometChat: the words `subscribe` takes, and
// the subscriptions a call (or a recording, or a transcript) matches.

/** The sentence of a refusal, or a failure naming what was returned instead. */
function refusal(words: string[]): string {
  const parsed = parseSubscribeWords(words);
  if (!(parsed instanceof Refusal)) throw new Error(`not refused: ${JSON.stringify(parsed)}`);
  return parsed.problem;
}

describe('parseSubscribeWords', () => {
  it('reads each kind, whatever its case', () => {
    expect(parseSubscribeWords(['calls'])).toEqual({ kind: 'calls', filters: [] });
    expect(parseSubscribeWords(['Recordings'])).toEqual({ kind: 'recordings', filters: [] });
    expect(parseSubscribeWords(['TRANSCRIPTS'])).toEqual({ kind: 'transcripts', filters: [] });
  });

  it('keeps the filters normalised in one order, however they were typed', () => {
    const typed = ['calls', 'transcribed', 'TO:group', 'recorded', 'Type:Video', 'alice'];
    const expected = ['alice', 'type:video', 'to:group', 'recorded', 'transcribed'];
    expect(parseSubscribeWords(typed)).toEqual({ kind: 'calls', filters: expected });
    // The same filters in another order are the same subscription's words.
    const again = ['calls', 'alice', 'recorded', 'transcribed', 'to:group', 'type:video'];
    expect(parseSubscribeWords(again)).toEqual({ kind: 'calls', filters: expected });
    expect(parseSubscribeWords(['calls', 'mode:meet', 'status:UNANSWERED'])).toEqual({
      kind: 'calls',
      filters: ['status:unanswered', 'mode:meet'],
    });
  });

  it('refuses a time window and acting as a user: a subscription takes the call’s own filters', () => {
    expect(refusal(['calls', 'since:2h'])).toContain('not `since`');
    expect(refusal(['calls', 'until:1d'])).toContain('not `until`');
    expect(refusal(['calls', 'status:ended', 'as', 'bob'])).toContain('not `as`');
  });

  it('refuses filters on recordings and transcripts, and what the call search refuses', () => {
    expect(refusal(['recordings', 'recorded'])).toBe('`subscribe recordings` takes no filters.');
    expect(refusal(['transcripts', 'alice'])).toBe('`subscribe transcripts` takes no filters.');
    expect(refusal(['calls', 'status:lost'])).toContain('Accepted:');
  });

  it('refuses no kind, or another, with the usage', () => {
    expect(refusal([])).toMatch(/^Usage: /);
    expect(refusal(['users'])).toMatch(/^Usage: /);
  });
});

/** An unanswered video call from alice to bob, carol invited, nothing recorded. */
const call = (changes: Partial<Call> = {}): Call => ({
  sessionId: 'v1.us.app.1700000000aaaa',
  type: 'video',
  mode: 'call',
  status: 'unanswered',
  receiverType: 'user',
  initiator: { uid: 'alice' },
  receiver: { uid: 'bob' },
  totalParticipants: 3,
  participants: [{ uid: 'carol', isJoined: false }],
  hasRecording: false,
  recordings: [],
  hasTranscription: false,
  transcriptions: [],
  ...changes,
});

describe('callMatches', () => {
  it('matches no filters, and each filter the call has', () => {
    expect(callMatches(call(), [])).toBe(true);
    const each = ['status:unanswered', 'type:video', 'mode:call', 'to:user'];
    for (const filter of each) expect(callMatches(call(), [filter]), filter).toBe(true);
    expect(callMatches(call(), each)).toBe(true);
  });

  it('does not match a filter the call has not', () => {
    const others = [
      'status:ended',
      'type:audio',
      'mode:meet',
      'to:group',
      'recorded',
      'transcribed',
    ];
    for (const filter of others) expect(callMatches(call(), [filter]), filter).toBe(false);
    expect(callMatches(call(), ['status:unanswered', 'type:audio'])).toBe(false);
  });

  it('reads recorded and transcribed from the flag or the files', () => {
    expect(callMatches(call({ hasRecording: true }), ['recorded'])).toBe(true);
    const recording = { rid: 'r1', recording_url: 'https://example.com/r1' };
    expect(callMatches(call({ recordings: [recording] }), ['recorded'])).toBe(true);
    expect(callMatches(call({ hasTranscription: true }), ['transcribed'])).toBe(true);
    expect(callMatches(call({ transcriptions: [{ tid: 't1' }] }), ['transcribed'])).toBe(true);
  });

  it('matches a uid who called, was called or took part', () => {
    for (const uid of ['alice', 'bob', 'carol']) expect(callMatches(call(), [uid]), uid).toBe(true);
    expect(callMatches(call(), ['dave'])).toBe(false);
    expect(callMatches(call({ initiator: undefined, receiver: undefined }), ['alice'])).toBe(false);
  });

  it('matches nothing with filters it cannot read (kept by an older version)', () => {
    expect(callMatches(call(), ['status:lost'])).toBe(false);
  });
});

const subscription = (id: string, kind: Subscription['kind'], filters: string[] = []) => ({
  id,
  app: 'default',
  channel: `C${id}`,
  kind,
  filters,
  createdBy: 'U1',
  createdAt: 1_700_000_000_000,
});

describe('subscriptionsReached', () => {
  const all = [
    subscription('calls', 'calls'),
    subscription('unanswered', 'calls', ['status:unanswered']),
    subscription('ended', 'calls', ['status:ended']),
    subscription('audio', 'calls', ['type:audio']),
    subscription('recordings', 'recordings'),
    subscription('recordings2', 'recordings'),
    subscription('transcripts', 'transcripts'),
    subscription('digest', 'digest'),
  ];
  const ids = ({ reached }: { reached: Subscription[] }) => reached.map((s) => s.id);
  const facts = (trigger: AlertFacts['trigger']): AlertFacts => ({
    trigger,
    sessionId: 's1',
    known: {},
  });

  it('reaches the calls subscriptions whose filters the call matches', () => {
    expect(ids(subscriptionsReached(all, facts('call_ended'), call()))).toEqual([
      'calls',
      'unanswered',
    ]);
    const ended = call({ status: 'ended', type: 'audio' });
    expect(ids(subscriptionsReached(all, facts('call_ended'), ended))).toEqual([
      'calls',
      'ended',
      'audio',
    ]);
  });

  it('reaches only subscriptions without filters when the call could not be read', () => {
    expect(ids(subscriptionsReached(all, facts('call_ended'), undefined))).toEqual(['calls']);
  });

  it('reaches every subscription of a recording’s or a transcript’s kind, read or not', () => {
    for (const read of [call(), undefined]) {
      expect(ids(subscriptionsReached(all, facts('recording_generated'), read))).toEqual([
        'recordings',
        'recordings2',
      ]);
      expect(ids(subscriptionsReached(all, facts('transcription_generated'), read))).toEqual([
        'transcripts',
      ]);
    }
  });
});
