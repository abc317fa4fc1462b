import { describe, expect, it, vi } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { commandReply, type Harness, interactionReply, textOf } from './harness.ts';
import { driverIn, useHarnessStarter, useReplicas } from './support.ts';

// Alerts through the real app: CometChat's webhooks, sent by the stand-in with Basic
// authentication to the app's listener, posted to the channels subscribed to them.

const USER = 'cometchat-hooks';
const PASSWORD = 'a-webhook-password-of-some-length';
const WEBHOOK_ENV = { COMETCHAT_WEBHOOK_USER: USER, COMETCHAT_WEBHOOK_PASSWORD: PASSWORD };

/** The app's webhook address for `app`, on the listener Slack's requests arrive on. */
function webhookUrl(h: Harness, app = 'default'): string {
  return h.appUrl.replace('/slack/events', `/cometchat/webhooks/${app}`);
}

/** The alerts posted so far (not the subscription's own announcement), by channel. */
function alertsIn(h: Harness, channel: string): string[] {
  return h.slack.calls
    .filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel)
    .map((c) => textOf(c.args))
    .filter((text) => !text.includes('subscribed this channel'));
}

/**
 * Each way a call ends, as CometChat's calls documentation publishes it: the seeded call, how it
 * is ended first (when the seed has not), the trigger it ends with, and a filter that matches it
 * and one that does not.
 */
const FLOWS = [
  {
    session: 'audioEnded',
    trigger: 'call_ended',
    says: 'A call ended (ended)',
    match: 'status:ended mode:call',
    miss: 'status:unanswered',
  },
  {
    session: 'unanswered',
    trigger: 'call_unanswered',
    says: 'A call was not answered',
    match: 'status:unanswered cometchat-uid-4',
    miss: 'status:ended',
  },
  {
    session: 'videoRejected',
    trigger: 'call_rejected',
    says: 'A call was declined',
    match: 'status:rejected type:video',
    miss: 'type:audio',
  },
  {
    session: 'customId',
    end: 'canceled',
    trigger: 'call_cancelled',
    says: 'A call was cancelled by its caller',
    match: 'status:canceled to:user',
    miss: 'to:group',
  },
  {
    session: 'customId',
    end: 'busy',
    trigger: 'call_busy',
    says: 'A call found the person busy',
    match: 'status:busy',
    miss: 'status:rejected',
  },
  {
    session: 'groupOngoing',
    end: 'ended',
    trigger: 'meeting_ended',
    says: 'A call session ended',
    match: 'mode:meet',
    miss: 'mode:call',
  },
] as const;

/**
 * Subscribes two channels (one whose filters match the flow's call, one whose do not), ends the
 * call as the flow says and sends its webhook twice, to each replica in turn.
 */
async function sendFlowTwice(replicas: Harness[], flow: (typeof FLOWS)[number]) {
  const [a] = replicas;
  if (!a) throw new Error('no replica');
  await commandReply(a, `subscribe calls ${flow.match}`, a.driver, { channel_id: 'C0MATCH' });
  await commandReply(a, `subscribe calls ${flow.miss}`, a.driver, { channel_id: 'C0MISS' });
  const sessionId = SANDBOX_SESSION_IDS[flow.session];
  if ('end' in flow) {
    a.sandbox.webhooks.clear();
    await a.sandbox.webhooks.endCall(sessionId, { status: flow.end });
  }
  const { trigger, data } = a.sandbox.webhooks.endedFlow(sessionId);
  expect(trigger).toBe(flow.trigger);
  const answers = [];
  for (const h of [...replicas, ...replicas]) {
    a.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    answers.push((await a.sandbox.webhooks.send(trigger, data))?.status);
  }
  expect(answers).toEqual(Array(replicas.length * 2).fill(200));
  await a.slack.waitFor(() => alertsIn(a, 'C0MATCH')[0]);
  // A moment for a second post, were there one.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(alertsIn(a, 'C0MATCH')).toHaveLength(1);
  expect(alertsIn(a, 'C0MISS')).toEqual([]);
  return alertsIn(a, 'C0MATCH')[0] ?? '';
}

describe('alerts from CometChat webhooks', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withWebhooks = async () => {
    store = createMemoryStore();
    const h = await start({ store, env: WEBHOOK_ENV });
    h.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    return h;
  };

  it('posts an unanswered call once to exactly the channels whose filters match, even delivered twice', async () => {
    const h = await withWebhooks();
    const subscribed = await commandReply(h, 'subscribe calls status:unanswered', h.driver, {
      channel_id: 'C0ALERTS',
    });
    expect(textOf(subscribed)).toContain('Subscribed <#C0ALERTS> to *calls* `status:unanswered`');
    await commandReply(h, 'subscribe calls status:ended', h.driver, { channel_id: 'C0ENDED' });
    // The ringing flow's end of a call nobody answered: `call_unanswered`, with its message.
    const { trigger, data } = h.sandbox.webhooks.endedFlow(SANDBOX_SESSION_IDS.unanswered);
    expect(trigger).toBe('call_unanswered');
    const first = await h.sandbox.webhooks.send(trigger, data);
    expect(first?.status).toBe(200);
    const again = await h.sandbox.webhooks.send(trigger, data);
    expect(again?.status).toBe(200);
    await h.slack.waitFor(() => alertsIn(h, 'C0ALERTS')[0]);
    // A moment for a second post, were there one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alertsIn(h, 'C0ALERTS')).toHaveLength(1);
    // The call's card, read through its message's session.
    expect(alertsIn(h, 'C0ALERTS')[0]).toContain('A call was not answered');
    expect(alertsIn(h, 'C0ALERTS')[0]).toContain(SANDBOX_SESSION_IDS.unanswered);
    expect(alertsIn(h, 'C0ENDED')).toEqual([]);
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('refuses a wrong password, an oversized body (declared or not) and an unknown app, posting nothing', async () => {
    const h = await withWebhooks();
    await commandReply(h, 'subscribe calls', h.driver, { channel_id: 'C0ALERTS' });
    h.sandbox.webhooks.configure({
      url: webhookUrl(h),
      username: USER,
      password: 'wrong-password-of-length',
    });
    const data = h.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
    expect((await h.sandbox.webhooks.send('call_ended', data))?.status).toBe(401);
    const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const big = JSON.stringify({
      trigger: 'call_ended',
      data: { sessionId: 'x', pad: 'x'.repeat(1_100_000) },
    });
    const oversized = await fetch(webhookUrl(h), {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: big,
    });
    expect(oversized.status).toBe(413);
    // Sent in pieces with no length declared: refused once past 1 MB, as it streams in.
    const pieces = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 12; i += 1)
          controller.enqueue(new TextEncoder().encode('x'.repeat(100_000)));
        controller.close();
      },
    });
    const streamed = await fetch(webhookUrl(h), {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: pieces,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    expect(streamed instanceof Response ? streamed.status : 'reset').toBe(413);
    const unknown = await fetch(webhookUrl(h, 'nowhere'), {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ trigger: 'call_ended', data }),
    });
    // As a wrong password is: the answers do not tell which apps exist.
    expect(unknown.status).toBe(401);
    // A trigger alerts are not made of: taken, and dropped.
    h.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    expect((await h.sandbox.webhooks.send('message_sent', { id: '1' }))?.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alertsIn(h, 'C0ALERTS')).toEqual([]);
    const metrics = await h.app.metrics.registry.getSingleMetricAsString(
      'cometchat_ops_webhook_events_total',
    );
    expect(metrics).toMatch(/app="default",outcome="refused"} 3/);
    expect(metrics).toMatch(/app="-",outcome="refused"} 1/);
    expect(metrics).toMatch(/app="default",outcome="dropped"} 1/);
    // The password is never logged, and a sender that fails leaves the app ready.
    expect(h.logs.lines.join('\n')).not.toContain(PASSWORD);
    const ready = await fetch(h.appUrl.replace('/slack/events', '/readyz'));
    expect(ready.status).toBe(200);
  });

  it('posts a recording with its link, lists the subscriptions and removes one', async () => {
    const h = await withWebhooks();
    await commandReply(h, 'subscribe recordings', h.driver, { channel_id: 'C0ALERTS' });
    const data = h.sandbox.webhooks.recordingGeneratedData(SANDBOX_SESSION_IDS.withRecordings);
    await h.sandbox.webhooks.send('recording_generated', data);
    await h.slack.waitFor(() => alertsIn(h, 'C0ALERTS')[0]);
    expect(alertsIn(h, 'C0ALERTS')[0]).toContain('Open the recording');
    const listed = await commandReply(h, 'subscriptions', h.driver, { channel_id: 'C0ALERTS' });
    expect(textOf(listed)).toContain('*recordings*');
    expect(await store.listSubscriptions({ channel: 'C0ALERTS' })).toHaveLength(1);
    // Each subscription's Remove sits beside it, as the section's accessory.
    const remove = (listed.blocks as { accessory?: { action_id: string; value: string } }[]).find(
      (block) => block.accessory,
    )?.accessory;
    const reply = await interactionReply(
      h,
      driverIn(h, 'C0ALERTS').blockAction({
        actionId: String(remove?.action_id),
        value: String(remove?.value),
      }),
    );
    expect(textOf(reply)).toContain('Removed the subscription');
    expect(await store.listSubscriptions({ channel: 'C0ALERTS' })).toEqual([]);
  });

  it('keeps an alert it cannot match yet (the call cannot be read) for the sweep, posting nothing', async () => {
    const h = await withWebhooks();
    // Whether a call was transcribed, only the call tells.
    await commandReply(h, 'subscribe calls transcribed', h.driver, {
      channel_id: 'C0ALERTS',
    });
    h.sandbox.inject({
      kind: 'status',
      status: 503,
      method: 'GET',
      pathIncludes: '/calls/',
      times: 50,
    });
    const data = h.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
    expect((await h.sandbox.webhooks.send('call_ended', data))?.status).toBe(200);
    // The call's read is retried within its budget, then the alert is kept, not dropped.
    await h.slack.waitFor(
      () => h.logs.records().find((r) => r.message === 'alert kept to be tried again'),
      12_000,
    );
    expect(alertsIn(h, 'C0ALERTS')).toEqual([]);
    const left = await store.listWebhookEvents(Number.MAX_SAFE_INTEGER);
    expect(left.map((event) => event.trigger)).toEqual(['call_ended']);
  }, 15_000);

  it('after app_uninstalled, keeps a delivered event and posts nothing', async () => {
    const h = await withWebhooks();
    await commandReply(h, 'subscribe calls', h.driver, { channel_id: 'C0ALERTS' });
    expect((await h.driver.event({ type: 'app_uninstalled' })).status).toBe(200);
    await h.slack.waitFor(() =>
      h.logs.errors().find((r) => r.message.includes('has stopped serving this workspace')),
    );
    const data = h.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
    expect((await h.sandbox.webhooks.send('call_ended', data))?.status).toBe(200);
    // A moment for a post, were there one: nothing reaches Slack, and the event stays kept.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alertsIn(h, 'C0ALERTS')).toEqual([]);
    const kept = await store.listWebhookEvents(Number.MAX_SAFE_INTEGER);
    expect(kept.map((event) => event.trigger)).toEqual(['call_ended']);
  });

  it.each(FLOWS)('posts $trigger once, only where the filters match', async (flow) => {
    const h = await withWebhooks();
    const posted = await sendFlowTwice([h], flow);
    expect(posted).toContain(flow.says);
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('posts a ringing outcome with what it says when CometChat cannot be read', async () => {
    const h = await withWebhooks();
    await commandReply(h, 'subscribe calls status:unanswered cometchat-uid-3', h.driver, {
      channel_id: 'C0ALERTS',
    });
    h.sandbox.inject({
      kind: 'status',
      status: 503,
      method: 'GET',
      pathIncludes: '/messages/',
      times: 50,
    });
    const { trigger, data } = h.sandbox.webhooks.endedFlow(SANDBOX_SESSION_IDS.unanswered);
    expect((await h.sandbox.webhooks.send(trigger, data))?.status).toBe(200);
    const posted = await h.slack.waitFor(() => alertsIn(h, 'C0ALERTS')[0], 12_000);
    expect(posted).toContain('A call was not answered');
    expect(posted).toContain('Between `cometchat-uid-3` and `cometchat-uid-4`');
    expect(posted).toContain('/cometchat calls cometchat-uid-3');
    await vi.waitFor(async () =>
      expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]),
    );
  }, 15_000);

  it('refuses a subscription filter it cannot keep, in one sentence', async () => {
    const h = await withWebhooks();
    const refused = await commandReply(h, 'subscribe calls since:2d', h.driver, {
      channel_id: 'C0ALERTS',
    });
    expect(textOf(refused)).toContain('not `since`');
    expect(await store.listSubscriptions({})).toEqual([]);
  });

  it('makes 30 matching alerts in a minute a few posts and one count message updated in place', async () => {
    const h = await withWebhooks();
    await commandReply(h, 'subscribe calls status:ended', h.driver, {
      channel_id: 'C0ALERTS',
    });
    const data = h.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
    const sent = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        // Thirty deliveries, each its own (a repeat would be kept once).
        h.sandbox.webhooks.send('call_ended', { ...data, destroyed_at: 1_700_000_800 + i }),
      ),
    );
    expect(sent.map((answer) => answer?.status)).toEqual(Array(30).fill(200));
    const updated = await h.slack.waitFor(
      () =>
        h.slack.calls.find(
          (c) => c.method === 'chat.update' && textOf(c.args).includes('27 more alerts'),
        ),
      10_000,
    );
    expect(updated.args.channel).toBe('C0ALERTS');
    const posts = alertsIn(h, 'C0ALERTS');
    // Three alerts one by one, then the one message that counts the rest.
    expect(posts.filter((text) => text.includes('A call ended'))).toHaveLength(3);
    expect(posts.filter((text) => text.includes('in the last minute'))).toHaveLength(1);
    expect(posts).toHaveLength(4);
  }, 20_000);
});

describe.skipIf(skipRedisSuites)(
  'alerts with two replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const replicas = useReplicas();

    it('posts a delivery once when it reaches both replicas (CometChat or a proxy retrying)', async () => {
      const [a, b] = await replicas({ STORE_URL: redis().url, ...WEBHOOK_ENV });
      await commandReply(a, 'subscribe calls status:unanswered', a.driver, {
        channel_id: 'C0REDIS',
      });
      const { trigger, data } = a.sandbox.webhooks.endedFlow(SANDBOX_SESSION_IDS.unanswered);
      const answers = [];
      for (const h of [a, b, a, b]) {
        a.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
        answers.push((await a.sandbox.webhooks.send(trigger, data))?.status);
      }
      expect(answers).toEqual([200, 200, 200, 200]);
      await a.slack.waitFor(() => alertsIn(a, 'C0REDIS')[0]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(alertsIn(a, 'C0REDIS')).toHaveLength(1);
    });

    it.each(FLOWS.map((flow, i) => ({ ...flow, db: i + 1 })))(
      'posts $trigger once across both, only where the filters match',
      async (flow) => {
        // A database of its own: what an earlier test kept (its claims too) is not seen here.
        const STORE_URL = `${redis().url}/${flow.db}`;
        const [a, b] = await replicas({ STORE_URL, ...WEBHOOK_ENV });
        const posted = await sendFlowTwice([a, b], flow);
        expect(posted).toContain(flow.says);
      },
    );
  },
);

describe('alerts in Socket Mode', () => {
  const start = useHarnessStarter();

  it('takes webhooks on the listener of the health routes, the one public path', async () => {
    const store = createMemoryStore();
    const h = await start({
      mode: 'socket',
      store,
      env: { ...WEBHOOK_ENV, SLACK_SIGNING_SECRET: undefined },
    });
    // In Socket Mode a command arrives as an envelope on the connection.
    const subscribing = h.slack.responses.length;
    await h.slack.sendEnvelope(
      'slash_commands',
      h.driver.commandFields('subscribe calls', { channel_id: 'C0SOCKET' }),
    );
    await h.slack.nextResponse(subscribing);
    const url = `http://127.0.0.1:${h.app.opsPort}/cometchat/webhooks/default`;
    h.sandbox.webhooks.configure({ url, username: USER, password: PASSWORD });
    const data = h.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
    expect((await h.sandbox.webhooks.send('call_ended', data))?.status).toBe(200);
    await h.slack.waitFor(() => alertsIn(h, 'C0SOCKET')[0]);
    expect(alertsIn(h, 'C0SOCKET')).toHaveLength(1);
  });
});
