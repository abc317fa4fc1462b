import type { SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { CometChatApp } from '../../../src/apps/apps.ts';
import type { Call } from '../../../src/cometchat/model.ts';
import { callCard, missingCallCard } from '../../../src/features/calls/call-card.ts';
import { slackDate } from '../../../src/slack/mrkdwn.ts';

// A dashboard link to a call, as a card: pure, with CometChat's words as long and as hostile as
// they come.

const app = { name: 'prod', sign: () => 'signature' } as unknown as CometChatApp;

const START = 1_763_000_000;

function call(at: Partial<Call> = {}): Call {
  return {
    sessionId: 'v1.us.app.1',
    type: 'video',
    mode: 'call',
    status: 'ended',
    initiator: { uid: 'cometchat-uid-1', name: 'Ana' },
    receiver: { uid: 'cometchat-uid-2', name: 'Bo' },
    startedAt: START,
    endedAt: START + 300,
    totalParticipants: 2,
    participants: [],
    hasRecording: false,
    recordings: [],
    hasTranscription: false,
    transcriptions: [],
    ...at,
  };
}

const lineOf = (card: ReturnType<typeof callCard>) =>
  (card.blocks[0] as SectionBlock).text?.text ?? '';

describe('callCard', () => {
  it("cuts CometChat's long words before escaping them: the line keeps its date and people", () => {
    // Each `&` is five characters escaped: cut after escaping, the first words would have
    // filled the section and the date, the people and the counts would be gone.
    const amps = '&'.repeat(3_000);
    const card = callCard(
      call({ type: amps, mode: `*${amps}`, status: `${amps}<!here>` }),
      app,
      undefined,
    );
    assertWithinLimits('message', { blocks: card.blocks });
    const line = lineOf(card);
    expect(line.length).toBeLessThan(1_000);
    expect(line).toContain(slackDate(START));
    expect(line).toContain('*Ana* (`cometchat-uid-1`) → *Bo* (`cometchat-uid-2`)');
    expect(line).toContain('2 participants');
    // Each word is whole characters, escaped: seven `&amp;` and the ellipsis, no part of one.
    expect(line).toContain(` · ${'&amp;'.repeat(7)}…\n`);
    expect(line).not.toMatch(/&(?!amp;|lt;|gt;)/);
    expect(line).not.toContain('<!here>');
  });

  it('names the call and a missing one by a session id shown as code, cut first', () => {
    const id = `${'&'.repeat(300)}x`;
    const card = callCard(call({ sessionId: id }), app, 'prod');
    expect(JSON.stringify(card.blocks)).toContain(`CometChat call \`${'&amp;'.repeat(39)}…\``);
    const missing = JSON.stringify(missingCallCard(id, undefined).blocks);
    expect(missing).toContain(`CometChat has no call \`${'&amp;'.repeat(39)}…\``);
  });
});
