import { describe, expect, it } from 'vitest';
import { callOutputs } from '../../../src/features/calls/call-steps.ts';

// The call lookup step's outputs, without Slack or CometChat.

const call = {
  sessionId: 'v1.us.app.1',
  status: 'ended',
  type: 'video',
  totalDurationInMinutes: 12.5,
  totalParticipants: 3,
  participants: [
    { uid: 'alice', isJoined: true },
    { uid: 'bob', isJoined: true },
    // Rejoined: one participant, twice in CometChat's list.
    { uid: 'alice', isJoined: true },
  ],
  hasRecording: true,
  recordings: [{ rid: 'r1', recording_url: 'https://rec/1.mp4' }, { rid: 'r2' }],
  hasTranscription: false,
  transcriptions: [],
};

describe('callOutputs', () => {
  it("gives the status, type, duration, each participant's uid once and the recording links", () => {
    expect(callOutputs(call)).toEqual({
      status: 'ended',
      type: 'video',
      duration_minutes: 12.5,
      participants: ['alice', 'bob'],
      recordings: ['https://rec/1.mp4'],
    });
  });

  it('leaves out a duration CometChat did not give, and says unknown for no status', () => {
    const { totalDurationInMinutes: _, status: __, ...bare } = call;
    const outputs = callOutputs({ ...bare, participants: [], recordings: [] });
    expect(outputs).toEqual({ status: 'unknown', type: 'video', participants: [], recordings: [] });
  });
});
