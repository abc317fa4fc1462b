import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { textOf } from './harness.ts';
import { useHarness } from './support.ts';

// A subcommand that waits on CometChat shows at once what it is doing, in the acknowledgement
// itself, and its answer (or its failure) replaces that line: the person never looks at nothing.

describe('the working line', () => {
  const h = useHarness();

  it('acknowledges `call` with what it is doing, then replaces it with the answer', async () => {
    h.sandbox.inject({ kind: 'delay', delayMs: 2_000, pathIncludes: '/v3/calls/' });
    const sent = await h.driver.command(`call ${SANDBOX_SESSION_IDS.audioEnded}`);
    expect(sent.status).toBe(200);
    // Slack's deadline for the acknowledgement, with CometChat taking two seconds.
    expect(sent.elapsedMs).toBeLessThan(3_000);
    const ack = JSON.parse(sent.body) as { response_type?: string; text?: string };
    expect(ack.response_type).toBe('ephemeral');
    expect(ack.text).toBe(
      `:hourglass_flowing_sand: Looking up call \`${SANDBOX_SESSION_IDS.audioEnded}\`…`,
    );
    const reply = await h.slack.nextResponse(0, 10_000);
    expect(reply.body.replace_original).toBe(true);
    expect(textOf(reply.body)).toContain('Audio call');
    expect(h.slack.responses).toHaveLength(1);
  });

  it('replaces the line with the failure when CometChat fails', async () => {
    h.sandbox.inject({ kind: 'status', status: 404, pathIncludes: '/v3/calls/' });
    const sent = await h.driver.command('call v1.us.nosuchcall');
    expect(JSON.parse(sent.body).text).toContain('Looking up call');
    const reply = await h.slack.nextResponse(0, 10_000);
    expect(reply.body.replace_original).toBe(true);
    expect(textOf(reply.body)).toContain('CometChat has no call with that session id');
  });

  it('says what a search looks for', async () => {
    const sent = await h.driver.command('calls cometchat-uid-2 status:ended');
    expect(JSON.parse(sent.body).text).toMatch(
      /^:hourglass_flowing_sand: Searching calls of `cometchat-uid-2` · status `ended`…$/,
    );
    const reply = await h.slack.nextResponse(0, 10_000);
    expect(reply.body.replace_original).toBe(true);
  });

  it('answers help and a refused input directly, with no working line', async () => {
    for (const [index, text] of ['help', 'roles 0'].entries()) {
      const sent = await h.driver.command(text);
      expect(sent.body).toBe('');
      const reply = await h.slack.nextResponse(index, 10_000);
      expect(reply.body.replace_original).toBeUndefined();
      expect(textOf(reply.body)).toContain('/cometchat');
    }
  });
});
