import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import type { WebApiCall } from '../../offline/slack-standin/server.ts';
import { confirm } from '../../offline/stack/editor-steps.ts';
import { OFFLINE_OPERATOR } from '../../offline/stack/offline-stack.ts';
import { createMemoryStore } from '../../src/store/store.ts';
import type { LogRecord } from '../log-capture.ts';
import {
  commandReply,
  type Harness,
  logsWithRef,
  markupOf,
  referenceOf,
  signedTestValue,
  startHarness,
  textOf,
} from './harness.ts';
import { newestAudit, puts, reviewFlip, useSharedHarness } from './support.ts';

// Faults on the Slack side: a modal Slack will not open, a response_url that refuses the
// reply, an audit channel that rate limits or does not have the bot. The reply still reaches
// the person, every fallback is logged, and an attempted change is still on record.

const EXPIRED_TRIGGER =
  'Slack did not let the app open the window in time (it allows three seconds). Click or run the command again.';
const CHANNEL = 'C0OPS';

function callsOf(h: Harness, method: string, from = 0): WebApiCall[] {
  return h.slack.calls.slice(from).filter((c) => c.method === method);
}

/** The log record with message `msg`, once it is written. */
function logged(h: Harness, msg: string | RegExp): Promise<LogRecord> {
  return h.slack.waitFor(() =>
    h.logs
      .records()
      .find((r) => (typeof msg === 'string' ? r.message === msg : msg.test(r.message))),
  );
}

describe('Slack refuses to open a modal', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });

  it('`/cometchat perms` with an expired trigger: one sentence on the response_url, nothing changed', async () => {
    h.slack.fail('views.open', { error: 'expired_trigger_id' });
    const reply = await commandReply(h, 'perms default');
    const [lead] = markupOf({ blocks: reply.blocks });
    expect(lead).toBe(`:warning: ${EXPIRED_TRIGGER}`);
    const ref = referenceOf(reply) ?? '';
    expect(reply.text).toBe(`${EXPIRED_TRIGGER} (ref ${ref})`);
    const failed = logsWithRef(h, ref).find((r) => r.message === 'request failed');
    expect(failed?.log.level).toBe('error');
    expect(JSON.stringify(failed)).toContain('expired_trigger_id');
    // The editor's data was read (it is shown with the modal's opening), nothing written.
    expect(h.sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(callsOf(h, 'views.update')).toHaveLength(0);
  });

  it('`/cometchat perms` while views.open hangs: one attempt, and the same sentence within seconds', async () => {
    h.slack.setMethodLatency('views.open', 30_000);
    const started = performance.now();
    const reply = await commandReply(h, 'perms default');
    // One attempt within the trigger's three seconds, not retries over half a minute.
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(reply.text).toBe(`${EXPIRED_TRIGGER} (ref ${referenceOf(reply) ?? ''})`);
    expect(callsOf(h, 'views.open')).toHaveLength(1);
    expect(h.sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('"Show all participants" with an expired trigger: told in the channel the button was in', async () => {
    const value = signedTestValue(h, { sessionId: SANDBOX_SESSION_IDS.groupOngoing, page: 1 });
    h.slack.fail('views.open', { error: 'expired_trigger_id' });
    const mark = h.slack.responses.length;
    const sent = await h.driver.interaction(
      h.driver.blockAction({ actionId: 'call_participants', value }),
    );
    expect(sent.status).toBe(200);
    const reply = (await h.slack.nextResponse(mark)).body;
    expect(textOf(reply)).toContain(EXPIRED_TRIGGER);
    const ref = referenceOf(reply) ?? '';
    expect(JSON.stringify(logsWithRef(h, ref))).toContain('expired_trigger_id');
    expect(h.sandbox.requests).toHaveLength(0);
  });
});

describe('a response_url that refuses the reply', () => {
  const h = useSharedHarness(
    { env: { COMETCHAT_TIMEOUT_MS: '300', COMETCHAT_BUDGET_MS: '1200' } },
    { resetAfterEach: true },
  );

  for (const status of [404, 500]) {
    it(`${status}: the reply comes as an ephemeral message instead, and the fallback is logged`, async () => {
      h.slack.failResponseUrls(status);
      const sent = await h.driver.command('roles');
      expect(sent.status).toBe(200);
      const ephemeral = await h.slack.nextCall('chat.postEphemeral');
      expect(ephemeral.args).toMatchObject({ channel: CHANNEL, user: OFFLINE_OPERATOR });
      expect(textOf(ephemeral.args)).toContain('CometChat roles');
      expect(h.slack.responses).toHaveLength(0);
      expect(h.slack.refusedResponses.map((r) => r.status)).toEqual([status]);
      const warning = await logged(h, 'response_url refused the reply; falling back');
      expect(warning).toMatchObject({ log: { level: 'warn' }, cometchat_ops: { status } });
      expect(warning.cometchat_ops.ref).toMatch(/^[0-9a-f]{10}$/);
    });
  }

  it('a failure sentence takes the same way round', async () => {
    h.sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    h.slack.failResponseUrls(404);
    await h.driver.command(`call ${SANDBOX_SESSION_IDS.audioEnded}`);
    const ephemeral = await h.slack.nextCall('chat.postEphemeral', 0, 5000);
    expect(markupOf({ blocks: ephemeral.args.blocks })[0]).toMatch(
      /^:warning: CometChat is not answering the call lookup right now \(HTTP 503\)/,
    );
    const ref = referenceOf(ephemeral.args) ?? '';
    const lines = logsWithRef(h, ref).map((r) => r.message);
    expect(lines).toContain('request failed');
    expect(lines).toContain('response_url refused the reply; falling back');
  });

  it('and when the ephemeral message is refused too (not_in_channel), a direct message', async () => {
    h.slack.failResponseUrls(500);
    h.slack.fail('chat.postEphemeral', { error: 'not_in_channel' });
    await h.driver.command('roles');
    const dm = await h.slack.nextCall('chat.postMessage');
    expect(String(dm.args.channel)).toMatch(/^D/);
    expect(textOf(dm.args)).toContain('CometChat roles');
    expect(callsOf(h, 'conversations.open')[0]?.args.users).toBe(OFFLINE_OPERATOR);
    const fallback = await logged(h, 'chat.postEphemeral failed; falling back to a DM');
    expect(fallback).toMatchObject({
      log: { level: 'warn' },
      cometchat_ops: { cause: 'not_in_channel' },
    });
  });

  it('a shared reply whose response_url fails is posted in the channel, or else sent as a DM', async () => {
    const list = await commandReply(h, 'roles');
    h.slack.failResponseUrls(404);
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'share_roles',
        message: { ts: '1700000000.000100', blocks: list.blocks as unknown[] },
      }),
    );
    await h.slack.nextCall('conversations.open', mark);
    const posts = await h.slack.waitFor(() => {
      const found = callsOf(h, 'chat.postMessage', mark);
      return found.length >= 2 ? found : undefined;
    });
    expect(posts.map((p) => String(p.args.channel).slice(0, 1))).toEqual(['C', 'D']);
    expect(textOf(posts[1]?.args)).toContain('CometChat roles');
    expect(
      await logged(h, 'chat.postMessage to the channel failed; falling back to a DM'),
    ).toMatchObject({ cometchat_ops: { cause: 'not_in_channel' } });
  });

  it('when every route fails, the loss is logged as an error and the app carries on', async () => {
    h.slack.failResponseUrls(404);
    h.slack.fail('chat.postEphemeral', { error: 'channel_not_found' });
    h.slack.fail('conversations.open', { error: 'user_not_found' });
    await h.driver.command('help');
    const lost = await logged(h, 'reply could not be delivered by any route');
    expect(lost).toMatchObject({
      log: { level: 'error' },
      cometchat_ops: { cause: 'user_not_found' },
    });
    expect(lost.cometchat_ops.ref).toMatch(/^[0-9a-f]{10}$/);
    // Still answering the next person.
    const reply = await commandReply(h, 'help');
    expect(textOf(reply)).toContain('CometChat ops');
  });
});

describe('the audit channel refuses the post', () => {
  const store = createMemoryStore();
  const h = useSharedHarness(
    () =>
      startHarness({
        store,
        env: {
          AUDIT_CHANNEL: 'C0AUDIT',
          COMETCHAT_TIMEOUT_MS: '300',
          COMETCHAT_BUDGET_MS: '1200',
        },
      }),
    { resetAfterEach: true },
  );
  // A post left kept by a test is not for the next one: the harness's minute sweep would make it.
  afterEach(async () => {
    for (const post of await store.listAuditPosts(Number.MAX_SAFE_INTEGER)) {
      await store.removeAuditPost(post.record.ref);
    }
  });

  const kept = () => store.listAuditPosts(Number.MAX_SAFE_INTEGER);

  it('rate limited: the person sees the result at once; the post is kept for the sweep, tried once now', async () => {
    h.slack.fail('chat.postMessage', { retryAfter: 2 });
    const { confirmation } = await reviewFlip(h);
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain('Resulting permissions');
    const audit = await newestAudit(h);
    expect(audit.Outcome).toBe('✔ applied');
    const limited = await logged(h, 'audit post failed; kept in the store and tried again later');
    expect(limited).toMatchObject({
      log: { level: 'warn' },
      // Retry-After (2 s) is shorter than the sweep's first wait.
      cometchat_ops: { channel: 'C0AUDIT', attempts: 1, retryInSeconds: 60 },
    });
    expect(String(limited.cometchat_ops.cause)).toMatch(/rate_limited/);
    expect(await kept()).toMatchObject([{ record: { ref: audit.Reference }, attempts: 1 }]);
    // Neither the client nor a timer tries it again meanwhile: the store's sweep alone does.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(callsOf(h, 'chat.postMessage').filter((c) => c.args.channel === 'C0AUDIT')).toHaveLength(
      1,
    );
  });

  it('rate limited throughout: applied, recorded, the post kept, and nobody else held up', async () => {
    h.slack.fail('chat.postMessage', { retryAfter: 2, times: Number.POSITIVE_INFINITY });
    const { confirmation } = await reviewFlip(h);
    const confirming = confirm(h, confirmation);
    await h.slack.nextCall('chat.postMessage');

    // While the audit channel is rate limited, the app's other Slack calls go on: a modal
    // opened now must open within its trigger's three seconds.
    const started = performance.now();
    await h.driver.command('perms default');
    await h.slack.nextCall('views.open');
    expect(performance.now() - started).toBeLessThan(3000);

    const { outcome } = await confirming;
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(puts(h)).toHaveLength(1);
    const event = h.logs.records().find((r) => r.cometchat_ops.event === 'permission_change');
    expect(event?.cometchat_ops).toMatchObject({ audit: { outcome: 'applied', role: 'default' } });

    expect((await newestAudit(h)).Outcome).toBe('✔ applied');
    const failedPost = await logged(
      h,
      'audit post failed; kept in the store and tried again later',
    );
    expect(failedPost).toMatchObject({
      log: { level: 'warn' },
      cometchat_ops: { channel: 'C0AUDIT' },
    });
    expect(String(failedPost.cometchat_ops.cause)).toMatch(/rate_limited/);
    expect(await kept()).toHaveLength(1);
  });

  it('not_in_channel on a failed update: the attempt is still recorded as failed', async () => {
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    const { confirmation } = await reviewFlip(h);
    h.sandbox.inject({
      kind: 'status',
      status: 500,
      method: 'PUT',
      times: Number.POSITIVE_INFINITY,
    });
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toMatch(/not answering the permission update right now \(HTTP 500\)/);
    const ref = referenceOf(outcome) ?? '';
    const failedPost = await logged(h, /^audit post failed/);
    expect(failedPost.cometchat_ops).toMatchObject({ cause: 'not_in_channel', ref });
    const audit = await newestAudit(h);
    expect(audit.Outcome).toBe('✘ failed');
    expect(audit.Reference).toBe(ref);
    expect(
      h.logs
        .records()
        .find((r) => r.cometchat_ops.event === 'permission_change' && r.cometchat_ops.ref === ref)
        ?.cometchat_ops,
    ).toMatchObject({ audit: { outcome: 'failed', errorKind: 'unavailable' } });
  });
});
