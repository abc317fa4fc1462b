import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertWithinLimits,
  checkMessage,
} from '../../../offline/slack-standin/block-kit-limits.ts';
import { toCall } from '../../../src/cometchat/model.ts';
import { CallRecordSchema } from '../../../src/cometchat/schemas.ts';
import { callMessage } from '../../../src/features/calls/call-view.ts';

// A call card is one message: however long the service's strings, Slack must accept it whole
// (msg_blocks_too_long refuses it all, and the person on call sees nothing).

const RECORDINGS = 'https://recordings.example.com/';

function record(long: (n: number) => string, participants: number, urlPath = 'r'): unknown {
  const person = (i: number) => ({ uid: long(i), name: long(i), avatar: long(i) });
  return {
    sessionId: long(0),
    type: long(1),
    mode: long(2),
    status: long(3),
    receiverType: long(4),
    totalParticipants: participants,
    hasRecording: true,
    hasTranscription: true,
    participants: Array.from({ length: participants }, (_, i) => ({
      ...person(i),
      state: long(i + 1),
      deviceId: long(i + 2),
    })),
    recordings: Array.from({ length: 12 }, (_, i) => ({
      rid: long(i),
      recording_url: `${RECORDINGS}${urlPath}${i}`,
    })),
    data: { entities: { initiator: { entity: person(0) }, receiver: { entity: person(1) } } },
  };
}

function messageOf(raw: unknown) {
  return callMessage(toCall(CallRecordSchema.parse(raw)), 'agent_1');
}

const textOf = (value: unknown) => JSON.stringify(value);

describe('the call card within Slack limits', () => {
  it('fits when every string from the service is 6000 characters that escaping lengthens', () => {
    for (const unit of ['&', '<', '*', 'a']) {
      const message = messageOf(record(() => unit.repeat(6000), 14, 'a'.repeat(1800)));
      expect(checkMessage(message)).toEqual([]);
      // Fewer are listed, and the card says how many are left out and offers them all.
      expect(textOf(message)).toMatch(/\d+ more participants? not shown here/);
      expect(textOf(message)).toContain('Recordings* (12)');
    }
  });

  it('lists ten participants and every recording of an ordinary call', () => {
    const message = messageOf(record((i) => `user${i}`, 12));
    expect(checkMessage(message)).toEqual([]);
    expect(textOf(message)).toContain('2 more participants not shown here');
    expect(textOf(message)).toContain('Show all 12 participants');
    expect(textOf(message).match(/Recording user/g)).toHaveLength(10);
  });

  it('fits for any strings the service may send', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc
        .tuple(fc.constantFrom('&', '<', '>', '*', '_', '`', 'é', '😀'), fc.nat(6000))
        .map(([unit, n]) => unit.repeat(n)),
    );
    fc.assert(
      fc.property(fc.array(text, { minLength: 8, maxLength: 8 }), fc.nat(14), (texts, n) => {
        assertWithinLimits('message', messageOf(record((i) => texts[i % 8] || 'x', n, texts[0])));
      }),
      { numRuns: 60 },
    );
  });
});
