import { describe, expect, it } from 'vitest';
import { type FaultSpec, SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { editorShown } from '../../offline/stack/editor-steps.ts';
import {
  expectNoInjectedMarkup,
  type Harness,
  logsWithRef,
  markupOf,
  referenceOf,
  textOf,
} from './harness.ts';
import { callRequests, expectNoSecretLeaked, STACK_TRACE, useHarness } from './support.ts';

const CALL = SANDBOX_SESSION_IDS.audioEnded;

/**
 * Checks a failure reply: one `:warning:` sentence, a reference, and a log line under that
 * reference at the expected level (info for a person's mistake, error for a fault).
 */
function expectFailure(
  h: Harness,
  reply: unknown,
  sentence: string,
  level: 'info' | 'error',
): string {
  const blocks = (reply as { blocks?: unknown[] }).blocks ?? [];
  expect(blocks).toHaveLength(2);
  const [lead] = markupOf({ blocks });
  expect(lead, lead).toBe(`:warning: ${sentence}`);
  const ref = referenceOf(reply);
  expect(ref).toMatch(/^[0-9a-f]{10}$/);
  expect(String((reply as { text?: string }).text)).toBe(`${sentence} (ref ${ref})`);
  const logged = logsWithRef(h, ref ?? '').find((r) => /^request (failed|refused)/.test(r.message));
  expect(logged?.log.level).toBe(level);
  // Once: a JSON line with a duplicate key is refused by some log pipelines.
  const raw = h.logs.lines.find(
    (line) =>
      line.includes(`"cometchat_ops.ref":"${ref}"`) &&
      /"message":"request (failed|refused)/.test(line),
  );
  expect(raw?.match(/"cometchat_ops\.ref":/g)).toHaveLength(1);
  expect(JSON.stringify(reply)).not.toMatch(STACK_TRACE);
  expectNoInjectedMarkup(reply);
  return ref ?? '';
}

async function lookUp(h: Harness, fault?: FaultSpec, text = `call ${CALL}`) {
  if (fault) h.sandbox.inject(fault);
  const before = h.slack.responses.length;
  const sent = await h.driver.command(text);
  // Acknowledged within Slack's three seconds, whatever CometChat does.
  expect(sent.status).toBe(200);
  expect(sent.elapsedMs).toBeLessThan(3000);
  return (await h.slack.nextResponse(before)).body;
}

describe('errors a person can act on, through the real app', () => {
  const h = useHarness(
    // A small CometChat budget keeps the retry and timeout paths quick.
    { env: { COMETCHAT_TIMEOUT_MS: '300', COMETCHAT_BUDGET_MS: '1000' } },
    { alsoCheck: expectNoSecretLeaked },
  );

  it('unknown call', async () => {
    const reply = await lookUp(h, undefined, 'call v1.us.sandbox-app.1799999999nothere');
    expectFailure(
      h,
      reply,
      'CometChat has no call with that session id (`ERR_CALL_SESSION_NOT_FOUND`). Check the id: it is case-sensitive and must be complete.',
      'info',
    );
    expect(callRequests(h)).toHaveLength(1);
  });

  it('unknown role', async () => {
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true }]);
    const mark = h.slack.calls.length;
    await h.driver.command('perms no-such-role');
    const filled = await editorShown(h, mark);
    expect(markupOf(filled).join('\n')).toContain(
      'CometChat has no role `no-such-role`. Check the id with `/cometchat roles`.',
    );
    const logged = await h.slack.waitFor(() =>
      h.logs.records().find((r) => r.message === 'editor: unknown role'),
    );
    expect(logged).toMatchObject({
      log: { level: 'info' },
      cometchat_ops: { role: 'no-such-role' },
    });
    expect(logged?.cometchat_ops.ref).toMatch(/^[0-9a-f]{10}$/);
  });

  it('key rejected (401): said once, not retried', async () => {
    const reply = await lookUp(h, { kind: 'status', status: 401, times: Infinity });
    const ref = expectFailure(
      h,
      reply,
      "CometChat refused the app's API key (`AUTH_ERR_APIKEY_NOT_FOUND`). An admin should check that COMETCHAT_API_KEY is a REST API key with full access for this app.",
      'error',
    );
    expect(callRequests(h)).toHaveLength(1);
    expect(
      logsWithRef(h, ref).find((r) => r.message === 'request failed')?.cometchat_ops,
    ).toMatchObject({
      kind: 'unauthorized',
      status: 401,
      code: 'AUTH_ERR_APIKEY_NOT_FOUND',
    });
  });

  it('service unavailable (503): retried within the budget, then said', async () => {
    const reply = await lookUp(h, { kind: 'status', status: 503, times: Infinity });
    expectFailure(
      h,
      reply,
      "CometChat is not answering the call lookup right now (HTTP 503). Try again in a minute; if it lasts, check CometChat's status page.",
      'error',
    );
    expect(callRequests(h).length).toBeGreaterThan(1);
  });

  it('a proxy error page (502, HTML) is read as unavailable', async () => {
    const reply = await lookUp(h, {
      kind: 'status',
      status: 502,
      rawBody: '<html><body>Bad gateway</body></html>',
      times: Infinity,
    });
    expectFailure(
      h,
      reply,
      "CometChat is not answering the call lookup right now (HTTP 502). Try again in a minute; if it lasts, check CometChat's status page.",
      'error',
    );
    expect(textOf(reply)).not.toContain('html');
  });

  it('rate limited (429 with a long Retry-After): no retry, the wait is told', async () => {
    const reply = await lookUp(h, {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '120' },
      times: Infinity,
    });
    expectFailure(
      h,
      reply,
      'CometChat is rate limiting this app (`ERR_TOO_MANY_REQUESTS`); try again in 120 seconds.',
      'error',
    );
    // Waiting two minutes does not fit a chat reply's budget, so CometChat is asked once.
    expect(callRequests(h)).toHaveLength(1);
  });

  it('timed out: told within the budget', async () => {
    const started = Date.now();
    const reply = await lookUp(h, { kind: 'delay', delayMs: 5000, times: Infinity });
    expect(Date.now() - started).toBeLessThan(3000);
    expectFailure(
      h,
      reply,
      'CometChat did not answer the call lookup within 1 second. Try again in a moment.',
      'error',
    );
  });

  it('a dropped connection is read as unavailable', async () => {
    const reply = await lookUp(h, { kind: 'reset', times: Infinity });
    expectFailure(
      h,
      reply,
      "CometChat is not answering the call lookup right now. Try again in a minute; if it lasts, check CometChat's status page.",
      'error',
    );
  });

  it('an answer that is not JSON, or not the documented shape', async () => {
    const sentence =
      'CometChat answered the call lookup with something this app cannot read. Report the reference; the details are in the log.';
    const ref = expectFailure(h, await lookUp(h, { kind: 'malformed' }), sentence, 'error');
    expect(
      logsWithRef(h, ref).find((r) => r.message === 'request failed')?.cometchat_ops,
    ).toMatchObject({
      kind: 'invalid_response',
      cause: 'body is not JSON',
    });
    expectFailure(h, await lookUp(h, { kind: 'schema' }), sentence, 'error');
  });

  it('the role list names itself in its failures', async () => {
    const reply = await lookUp(
      h,
      { kind: 'status', status: 503, pathIncludes: '/roles', times: Infinity },
      'roles',
    );
    expectFailure(
      h,
      reply,
      "CometChat is not answering the role list right now (HTTP 503). Try again in a minute; if it lasts, check CometChat's status page.",
      'error',
    );
  });

  it('a failure in a button is told where the button is', async () => {
    const list = await lookUp(h, undefined, 'roles');
    h.sandbox.inject({ kind: 'status', status: 401, times: Infinity });
    const before = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'share_roles',
        message: { ts: '1700000000.000100', blocks: list.blocks as unknown[] },
      }),
    );
    const reply = (await h.slack.nextResponse(before)).body;
    expect(reply.response_type).toBe('ephemeral');
    expectFailure(
      h,
      reply,
      "CometChat refused the app's API key (`AUTH_ERR_APIKEY_NOT_FOUND`). An admin should check that COMETCHAT_API_KEY is a REST API key with full access for this app.",
      'error',
    );
  });

  it('Slack refusing a call: one sentence naming Slack, a reference, the detail in the log', async () => {
    // A shortcut whose modal Slack refuses to open: no response_url, so the reply is a DM.
    h.slack.fail('views.open', { error: 'internal_error' });
    await h.driver.interaction(h.driver.globalShortcut({ callbackId: 'lookup_call_global' }));
    const dm = await h.slack.nextCall('chat.postMessage');
    expect(String(dm.args.channel)).toMatch(/^D/);
    const ref = expectFailure(
      h,
      dm.args,
      "Slack refused the app's reply (`internal_error`). Try again; report the reference if it keeps happening.",
      'error',
    );
    const logged = logsWithRef(h, ref).find((r) => r.message === 'request failed');
    // The log keeps what happened, stack included, for whoever reads the reference.
    expect(JSON.stringify(logged)).toContain('internal_error');
  });
});
