import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CometChatApp } from '../../../src/apps/apps.ts';
import type { Call } from '../../../src/cometchat/model.ts';
import {
  type DeliveryDeps,
  deliverEvent,
  SWEEP_AFTER_MS,
  sweepEvents,
} from '../../../src/features/alerts/alert-delivery.ts';
import { createBurstGate } from '../../../src/features/alerts/burst.ts';
import { deliveryId } from '../../../src/features/alerts/webhook-event.ts';
import { createMemoryStore, type Store, type WebhookEvent } from '../../../src/store/store.ts';

// Alerts posted while Slack fails: with Slack answering 429 and 500 to individual posts, to the
// count message and to its updates, every event stored is, in the end, posted or counted once
// in each channel in a message Slack accepted, and no event leaves the store before that.

const CHANNELS = ['C1', 'C2', 'C3'];
const EVENTS = 300;

/** Errors shaped as the Web API client throws them for an HTTP 500 and a rate limit. */
function slackError(kind: 'http' | 'ratelimited'): Error {
  return kind === 'http'
    ? Object.assign(new Error('An HTTP protocol error occurred: statusCode = 500'), {
        code: 'slack_webapi_http_error',
        statusCode: 500,
      })
    : Object.assign(new Error('A rate limit was exceeded'), {
        code: 'slack_webapi_rate_limited_error',
        retryAfter: 1,
      });
}

/** A Slack that fails some calls (by a seeded draw) and keeps those it accepted. */
function flakySlack(seed: number) {
  let state = seed;
  const draw = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const accepted: { method: string; channel: string; ts: string; text: string }[] = [];
  let failing = true;
  let next = 0;
  const answer = (method: string, args: { channel: string; ts?: string; text?: string }) => {
    // Count messages and their updates fail half the time, single posts a fifth.
    const odds = (args.text ?? '').startsWith(':bell:') ? 0.5 : 0.2;
    if (failing && draw() < odds) {
      return Promise.reject(slackError(draw() < 0.5 ? 'http' : 'ratelimited'));
    }
    next += 1;
    const ts = args.ts ?? `1700000000.${String(next).padStart(6, '0')}`;
    accepted.push({ method, channel: args.channel, ts, text: args.text ?? '' });
    return Promise.resolve({ ok: true, ts });
  };
  return {
    accepted,
    heal: () => {
      failing = false;
    },
    client: {
      chat: {
        postMessage: (args: { channel: string; text?: string }) => answer('postMessage', args),
        update: (args: { channel: string; ts: string; text?: string }) => answer('update', args),
      },
    },
  };
}

/** What Slack shows in a channel: alerts posted one by one, and what count messages say. */
function shown(accepted: ReturnType<typeof flakySlack>['accepted'], channel: string) {
  const here = accepted.filter((call) => call.channel === channel);
  const posts = here.filter(
    (call) => call.method === 'postMessage' && !call.text.startsWith(':bell:'),
  );
  // Each count message shows what its latest accepted post or update says.
  const counts = new Map<string, number>();
  for (const call of here.filter((c) => c.text.startsWith(':bell:'))) {
    counts.set(call.ts, Number(/:bell: (\d+) more/.exec(call.text)?.[1] ?? 0));
  }
  return posts.length + [...counts.values()].reduce((sum, n) => sum + n, 0);
}

describe('alerts while Slack fails', () => {
  let now: number;
  let store: Store;
  let removed: Set<string>;
  let deps: DeliveryDeps;
  let slack: ReturnType<typeof flakySlack>;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    now = 1_700_000_000_000;
    const memory = createMemoryStore(() => now);
    removed = new Set();
    // The store lists at most 100 events at a time: what left it is counted as it leaves.
    store = {
      ...memory,
      removeWebhookEvent: async (id) => {
        removed.add(id);
        await memory.removeWebhookEvent(id);
      },
    };
    slack = flakySlack(42);
    const app = {
      name: 'default',
      cometchat: {
        getCall: async (sessionId: string): Promise<Call> => ({
          sessionId,
          status: 'ended',
          totalParticipants: 0,
          participants: [],
          hasRecording: false,
          recordings: [],
          hasTranscription: false,
          transcriptions: [],
        }),
      },
    } as unknown as CometChatApp;
    deps = {
      apps: { byName: () => app, multiple: false },
      store,
      client: slack.client as unknown as DeliveryDeps['client'],
      count: () => undefined,
      callCard: () => [],
      log: pino({ level: 'silent' }),
      now: () => now,
      burst: createBurstGate(store),
    };
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs the deliveries, letting the count messages' timers fire until all have settled. */
  async function settle(work: Promise<unknown>) {
    let done = false;
    void work.finally(() => {
      done = true;
    });
    while (!done) await vi.advanceTimersByTimeAsync(500);
  }

  it('ends with every one of 300 events posted or counted once in each channel, none removed before', async () => {
    for (const channel of CHANNELS) {
      await store.putSubscription({
        id: `s-${channel}`,
        app: 'default',
        channel,
        kind: 'calls',
        filters: [],
        createdBy: 'U1',
        createdAt: now,
      });
    }
    const events: WebhookEvent[] = Array.from({ length: EVENTS }, (_, i) => {
      const body = {
        trigger: 'call_ended',
        appId: 'app',
        data: { sessionId: `s${i}`, destroyed_at: 1_700_000_000 + i },
      };
      return {
        id: deliveryId('default', body),
        app: 'default',
        trigger: 'call_ended',
        receivedAt: now,
        body,
      };
    });
    for (const event of events) await store.keepWebhookEvent(event, 86_400);

    // As they arrive: all at once, while Slack fails some of everything.
    await settle(Promise.allSettled(events.map((event) => deliverEvent(deps, event))));
    expect(removed.size).toBeGreaterThan(0);
    expect(removed.size).toBeLessThan(EVENTS);
    // An event left the store only once every channel showed it: no channel shows fewer.
    for (const channel of CHANNELS) {
      expect(shown(slack.accepted, channel)).toBeGreaterThanOrEqual(removed.size);
      expect(shown(slack.accepted, channel)).toBeLessThanOrEqual(EVENTS);
    }

    // Slack recovers; the sweeps take what is left until nothing is.
    slack.heal();
    for (let round = 0; round < 10 && removed.size < EVENTS; round += 1) {
      now += SWEEP_AFTER_MS + 60_000;
      await settle(sweepEvents(deps));
    }
    expect(removed.size).toBe(EVENTS);
    expect(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).toEqual([]);
    // Each event once in each channel: none lost, none shown twice.
    for (const channel of CHANNELS) expect(shown(slack.accepted, channel)).toBe(EVENTS);
  });

  it('lets the posting claim go when the store fails, so that the next sweep takes the event', async () => {
    const event: WebhookEvent = {
      id: 'e1',
      app: 'default',
      trigger: 'call_ended',
      receivedAt: now,
      body: { trigger: 'call_ended', appId: 'app', data: { sessionId: 's1' } },
    };
    await store.keepWebhookEvent(event, 86_400);
    const failing = {
      ...deps,
      store: { ...store, listSubscriptions: () => Promise.reject(new Error('store down')) },
    };
    await expect(deliverEvent(failing, event)).rejects.toThrow('store down');
    // Taken again at once, not ten minutes later.
    expect(await store.claim('webhook-posting:e1', 60)).toBe(true);
  });
});
