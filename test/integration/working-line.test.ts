import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { logsWithRef, referenceOf, textOf } from './harness.ts';
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

  it('logs the failure that replaces the line once, under the reference it shows', async () => {
    h.sandbox.inject({ kind: 'status', status: 404, pathIncludes: '/v3/calls/' });
    await h.driver.command('call v1.us.nosuchcall');
    const reply = await h.slack.nextResponse(0, 10_000);
    const ref = referenceOf(reply.body) ?? '';
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    // The error handler runs after the reply; its line would come then, and it writes none.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const told = logsWithRef(h, ref).filter((r) => r.message.startsWith('request refused'));
    expect(told).toHaveLength(1);
    expect(told[0]?.log.level).toBe('info');
    expect(logsWithRef(h, ref).filter((r) => r.message === 'request failed')).toEqual([]);
    expect(h.slack.responses).toHaveLength(1);
  });

  it('says what a search looks for', async () => {
    const sent = await h.driver.command('calls cometchat-uid-2 status:ended');
    expect(JSON.parse(sent.body).text).toMatch(
      /^:hourglass_flowing_sand: Searching calls of `cometchat-uid-2` · status `ended`…$/,
    );
    const reply = await h.slack.nextResponse(0, 10_000);
    expect(reply.body.replace_original).toBe(true);
  });

  it('says every filter of a search for a calendar day, without waiting for the time zone', async () => {
    // The day is read in the person's zone, asked of Slack after the acknowledgement.
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true, tz: 'America/Los_Angeles' }]);
    h.slack.setMethodLatency('users.info', 2_000);
    const sent = await h.driver.command(
      'calls cometchat-uid-2 status:ended type:video since:2026-11-20',
    );
    expect(sent.elapsedMs).toBeLessThan(2_000);
    expect(JSON.parse(sent.body).text).toBe(
      ':hourglass_flowing_sand: Searching calls of `cometchat-uid-2` · status `ended` · type `video` · since 2026-11-20…',
    );
    const reply = await h.slack.nextResponse(0, 10_000);
    expect(reply.body.replace_original).toBe(true);
    expect(textOf(reply.body)).toContain('days in `America/Los_Angeles`');
    expect(h.slack.responses).toHaveLength(1);
  });

  // Every other subcommand that asks CometChat: its line at once, with CometChat taking a second
  // and a half for the first request, then its answer in the same message.
  it.for([
    {
      text: 'roles',
      path: '/v3/roles',
      line: 'Asking CometChat for the roles…',
      answer: 'support-agent',
    },
    { text: 'apps', path: '/v3/roles', line: "Checking 1 app's key…", answer: 'Key works.' },
    {
      text: 'user cometchat-uid-2',
      path: '/v3/users/',
      line: 'Looking up user `cometchat-uid-2`…',
      answer: 'George Alan',
    },
    {
      text: 'user cometchat-uid-2 can sendMessage cometchat-uid-1',
      path: '/v3/users/',
      line: 'Working out whether `cometchat-uid-2` can `sendMessage`…',
      answer: 'Can `cometchat-uid-2` `sendMessage` towards `cometchat-uid-1`?',
    },
    {
      text: 'users',
      path: '/v3/users',
      line: 'Searching users: all active users…',
      answer: 'cometchat-uid-1',
    },
  ])('acknowledges `$text` with its working line, which the answer replaces', async (step) => {
    h.sandbox.inject({ kind: 'delay', delayMs: 1_500, pathIncludes: step.path });
    const sent = await h.driver.command(step.text);
    expect(sent.status).toBe(200);
    expect(sent.elapsedMs).toBeLessThan(1_500);
    const ack = JSON.parse(sent.body) as { response_type?: string; text?: string };
    expect(ack.response_type).toBe('ephemeral');
    expect(ack.text).toBe(`:hourglass_flowing_sand: ${step.line}`);
    const reply = await h.slack.nextResponse(0, 10_000);
    expect(reply.body.replace_original).toBe(true);
    expect(textOf(reply.body)).toContain(step.answer);
    expect(textOf(reply.body)).not.toContain('hourglass');
    expect(h.slack.responses).toHaveLength(1);
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
