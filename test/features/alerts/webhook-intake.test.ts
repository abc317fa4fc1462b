import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CometChatApp } from '../../../src/apps/apps.ts';
import { createWebhookIntake } from '../../../src/features/alerts/webhook-intake.ts';
import type { WebhookOutcome } from '../../../src/observe/metrics.ts';
import { createMemoryStore, type Store, type WebhookEvent } from '../../../src/store/store.ts';
import {
  MODERATION_FIXTURE_TEXT,
  type ModerationFixtureTrigger,
  moderationData,
} from '../../fixtures/moderation-webhooks/index.ts';

// The route's keeping, on a store that fails when asked: a delivery that could not be kept is
// answered 503 and leaves nothing behind, so CometChat's retry of it is kept and handed on. And a
// delivery that names another CometChat app than the route's, or none, is refused, keeping
// nothing; so is one that can never be kept (nested too deep), with a 400 CometChat does not retry.

const webhook = { user: 'cometchat-hooks', password: 'a-long-webhook-password', setting: 'X' };
const app = { name: 'prod', appId: 'prodapp1', webhook } as CometChatApp;
const authorization = `Basic ${Buffer.from(`${webhook.user}:${webhook.password}`).toString('base64')}`;
const deliveryFor = (appId: string | undefined = 'prodapp1') =>
  JSON.stringify({
    trigger: 'call_ended',
    data: { sessionId: 'v1.us.app.1700000000aaaa', destroyed_at: 1_700_000_100 },
    ...(appId === undefined ? {} : { appId }),
  });

describe('webhook intake', () => {
  let server: Server;
  let store: Store;
  let failures: number;
  const counted: WebhookOutcome[] = [];
  const handedOn: WebhookEvent[] = [];

  beforeEach(async () => {
    failures = 0;
    counted.length = 0;
    handedOn.length = 0;
    const memory = createMemoryStore();
    store = {
      ...memory,
      keepWebhookEvent: async (event, seconds) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('store not answering');
        }
        return memory.keepWebhookEvent(event, seconds);
      },
    };
    const intake = createWebhookIntake({
      apps: { byName: (name) => (name === app.name ? app : undefined) },
      store,
      count: (_app, outcome) => counted.push(outcome),
      log: pino({ level: 'silent' }),
      now: () => 1_700_000_200_000,
      stored: (event) => handedOn.push(event),
    });
    server = createServer(intake);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const deliver = async (body = deliveryFor()) => {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/cometchat/webhooks/prod`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body,
    });
    return { status: answer.status, body: await answer.json() };
  };

  it('answers 503 and keeps nothing, then keeps the retry once and hands it on', async () => {
    failures = 1;
    expect(await deliver()).toEqual({ status: 503, body: { error: 'not stored; retry' } });
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(counted).toEqual([]);
    expect(handedOn).toEqual([]);

    expect(await deliver()).toEqual({ status: 200, body: { ok: true, kept: true } });
    expect(await deliver()).toEqual({ status: 200, body: { ok: true, kept: false } });
    expect(counted).toEqual(['received', 'deduplicated']);
    expect(handedOn.map((event) => event.trigger)).toEqual(['call_ended']);
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toHaveLength(1);
  });

  it("refuses a delivery for another CometChat app, and takes one naming the route's", async () => {
    expect(await deliver(deliveryFor('otherapp'))).toEqual({
      status: 400,
      body: { error: "for CometChat app otherapp, not this route's" },
    });
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(counted).toEqual(['refused']);
    expect(await deliver(deliveryFor('prodapp1'))).toEqual({
      status: 200,
      body: { ok: true, kept: true },
    });
    expect(handedOn).toHaveLength(1);
  });

  it('refuses a delivery that names no CometChat app, keeping nothing', async () => {
    const named = JSON.parse(deliveryFor());
    delete named.appId;
    expect(await deliver(JSON.stringify(named))).toEqual({
      status: 400,
      body: { error: "for CometChat app no app, not this route's" },
    });
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(handedOn).toEqual([]);
  });

  it('refuses with 400, not 503, a body nested too deep to keep, and keeps the next one', async () => {
    const depth = 200_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const body = deliveryFor().replace('"destroyed_at"', `"deep":${deep},"destroyed_at"`);
    expect(await deliver(body)).toEqual({ status: 400, body: { error: 'nested too deep' } });
    expect(counted).toEqual(['refused']);
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(await deliver()).toEqual({ status: 200, body: { ok: true, kept: true } });
  });

  const moderation = (trigger: ModerationFixtureTrigger, data: unknown = moderationData(trigger)) =>
    JSON.stringify({ trigger, data, appId: 'prodapp1' });

  it('keeps a moderation event as its facts alone, once, and never its text', async () => {
    const body = moderation('moderation_engine_blocked');
    expect(await deliver(body)).toEqual({ status: 200, body: { ok: true, kept: true } });
    expect(await deliver(body)).toEqual({ status: 200, body: { ok: true, kept: false } });
    expect(counted).toEqual(['received', 'deduplicated']);
    const kept = await store.listWebhookEvents(Number.MAX_SAFE_INTEGER);
    expect(kept.map((e) => e.trigger)).toEqual(['moderation_engine_blocked']);
    expect(JSON.stringify(kept)).not.toContain(MODERATION_FIXTURE_TEXT);
    expect(JSON.stringify(handedOn)).not.toContain(MODERATION_FIXTURE_TEXT);
  });

  it('takes an engine approval and keeps nothing of it', async () => {
    expect(await deliver(moderation('moderation_engine_approved'))).toEqual({
      status: 200,
      body: { ok: true, kept: false },
    });
    expect(counted).toEqual(['dropped']);
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('refuses a moderation event not of its shape in one sentence, keeping nothing', async () => {
    const answer = await deliver(moderation('moderation_engine_failed', { failures: 'none' }));
    expect(answer).toEqual({
      status: 400,
      body: { error: 'not a moderation_engine_failed of the documented shape' },
    });
    expect(counted).toEqual(['refused']);
    expect(handedOn).toEqual([]);
  });
});
