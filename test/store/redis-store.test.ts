import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRedisStore } from '../../src/store/redis-store.ts';
import {
  type AuditRecord,
  DEFAULT_APP,
  type Store,
  type Subscription,
} from '../../src/store/store.ts';
import { StoreDataError, StoreUnavailableError } from '../../src/store/store-errors.ts';
import {
  type RedisServer,
  skipRedisSuites,
  startRedisServer,
  useRedisServer,
} from './redis-server.ts';
import { loadV1Redis, V1_CLAIMS, V1_KNOWN_ROLES, v1Audit, v1Known } from './version-1-state.ts';

/** A client of the test's own, outside the store (RESP3, redis 6's default). */
const newClient = (url: string) => createClient({ url });
type RedisClient = ReturnType<typeof newClient>;

const record: AuditRecord = {
  ref: 'ref-1',
  at: 1_700_000_000_000,
  app: 'staging',
  teamId: 'T1',
  userId: 'U1',
  role: 'moderator',
  changes: [{ key: 'send', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'last-update',
  outcome: 'applied',
  promotedFrom: 'ref-0',
};

const subscription: Subscription = {
  id: 'sub-1',
  app: 'prod',
  channel: 'C0ALERTS',
  kind: 'calls',
  filters: ['status:unanswered'],
  createdBy: 'U0OPERATOR',
  createdAt: 1_700_000_000_000,
};

describe.skipIf(skipRedisSuites)('redis store', { tags: ['redis'] }, () => {
  const server = useRedisServer();
  const open: Store[] = [];
  /** One store per call: its own connection, as one replica of the app. */
  const replica = async (url: string, keyPrefix: string) => {
    const store = await createRedisStore(url, { keyPrefix });
    open.push(store);
    return store;
  };
  /** A server of the test's own, to stop and restart; stopped after the test, whatever happens. */
  const started: RedisServer[] = [];
  const ownServer = async (port?: number) => {
    const server = await startRedisServer(port === undefined ? {} : { port });
    started.push(server);
    return server;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    for (const server of started.splice(0)) await server.stop();
  });

  describe('shared by two replicas', () => {
    let a: Store;
    let b: Store;
    beforeEach(async () => {
      const prefix = `replicas:${randomUUID()}:`;
      a = await replica(server().url, prefix);
      b = await replica(server().url, prefix);
    });

    it('gives one of 100 concurrent claims on one id, whichever replica asks', async () => {
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).claim('confirm-raced', 60)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('applies each of 20 confirmations raced from both replicas once', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `confirm-${i}`);
      const results = await Promise.all(
        ids.flatMap((id) => [a.claim(id, 60), b.claim(id, 60), a.claim(id, 60), b.claim(id, 60)]),
      );
      for (let i = 0; i < ids.length; i += 1) {
        expect(results.slice(i * 4, i * 4 + 4).filter(Boolean)).toHaveLength(1);
      }
    });

    it('lists through one a record written through the other', async () => {
      await a.appendAudit(record);
      expect(await b.listAudit({ offset: 0, limit: 10 })).toEqual({ records: [record], total: 1 });
      for (const query of [
        { role: 'moderator' },
        { app: 'staging' },
        { app: 'staging', role: 'moderator' },
      ]) {
        expect(await b.listAudit({ ...query, offset: 0, limit: 10 })).toEqual({
          records: [record],
          total: 1,
        });
      }
    });

    it('reads through one the permissions written through the other', async () => {
      const known = { app: 'staging', role: 'mod', permissions: { send: ['own'] }, seenAt: 42 };
      await b.setKnownPermissions(known);
      expect(await a.getKnownPermissions('staging', 'mod')).toEqual(known);
    });

    it('lists and removes through one the subscriptions and events put through the other', async () => {
      await a.putSubscription(subscription);
      expect(await b.listSubscriptions({ app: 'prod', channel: 'C0ALERTS' })).toEqual([
        subscription,
      ]);
      expect(await b.removeSubscription(subscription.id)).toBe(true);
      expect(await a.removeSubscription(subscription.id)).toBe(false);
      const event = { id: 'ev', app: 'prod', trigger: 'call_ended', receivedAt: 5, body: [1] };
      expect(await b.keepWebhookEvent(event, 60)).toBe(true);
      expect(await a.keepWebhookEvent(event, 60)).toBe(false);
      expect(await a.listWebhookEvents(6)).toEqual([event]);
      await a.removeWebhookEvent(event.id);
      expect(await b.listWebhookEvents(6)).toEqual([]);
    });

    it('lets one replica take a claim the other released', async () => {
      expect(await a.claim('handover', 60)).toBe(true);
      expect(await b.claim('handover', 60)).toBe(false);
      await a.release('handover');
      expect(await b.claim('handover', 60)).toBe(true);
    });
  });

  describe('on the keys version 1 wrote', () => {
    let prefix: string;
    beforeEach(async () => {
      // Glob characters in the prefix: version 1's keys are found by it, not by a pattern.
      prefix = `v1[*]?:${randomUUID()}:`;
      await loadV1Redis(server().url, prefix);
    });
    /** Runs `read` on a client of the test's own, outside the store. */
    const inspect = async <T>(read: (client: RedisClient) => Promise<T>): Promise<T> => {
      const client = newClient(server().url);
      await client.connect();
      try {
        return await read(client);
      } finally {
        await client.close();
      }
    };
    const keysUnder = () =>
      inspect(async (client) => {
        const keys: string[] = [];
        for await (const batch of client.scanIterator({ COUNT: 1_000 })) keys.push(...batch);
        return keys
          .filter((key) => key.startsWith(prefix))
          .map((key) => key.slice(prefix.length))
          .sort();
      });

    it('moves them into the default app and records the layout version', async () => {
      const records = v1Audit().map((r) => `audit:${r.ref}`);
      const read = () =>
        inspect(async (client) => ({
          records: await client.mGet(records.map((key) => prefix + key)),
          all: await client.zRangeWithScores(`${prefix}audit-by-time`, 0, -1),
          byRole: await Promise.all(
            V1_KNOWN_ROLES.map((role) =>
              client.zRangeWithScores(`${prefix}audit-by-role:${role}`, 0, -1),
            ),
          ),
        }));
      const before = await read();
      await replica(server().url, prefix);

      expect(await keysUnder()).toEqual(
        [
          'schema-version',
          'audit-roles-filed',
          ...V1_CLAIMS.map((c) => `claim:${c.id}`),
          ...records,
          'audit-by-time',
          `app:${DEFAULT_APP}:audit-by-time`,
          ...V1_KNOWN_ROLES.flatMap((role) => [
            `audit-by-role:${role}`,
            `app:${DEFAULT_APP}:audit-by-role:${role}`,
            `app:${DEFAULT_APP}:known:${role}`,
          ]),
        ].sort(),
      );
      expect(await inspect((client) => client.get(`${prefix}schema-version`))).toBe('2');
      // The records stay as written, without `app`; the indexes of every app keep theirs, and
      // the default app's are copies of them.
      expect(await read()).toEqual(before);
      expect(before.records.every((text) => !text?.includes('"app"'))).toBe(true);
      expect(
        await inspect((client) =>
          client.zRangeWithScores(`${prefix}app:${DEFAULT_APP}:audit-by-time`, 0, -1),
        ),
      ).toEqual(before.all);
    });

    it('is moved once, by one of several replicas starting at once', async () => {
      const replicas = await Promise.all(
        Array.from({ length: 5 }, () => replica(server().url, prefix)),
      );
      for (const store of replicas) {
        expect(await store.getKnownPermissions(DEFAULT_APP, 'moderator')).toEqual(
          v1Known('moderator'),
        );
        expect(await store.listAudit({ app: DEFAULT_APP, offset: 0, limit: 10 })).toEqual({
          records: v1Audit(),
          total: v1Audit().length,
        });
      }
      // What a version-1 replica writes later is not moved by a replica starting after that:
      // the recorded version says the move is done.
      const late = JSON.stringify({ role: 'moderator', permissions: {}, seenAt: 1 });
      await inspect((client) => client.set(`${prefix}known:moderator`, late));
      const after = await replica(server().url, prefix);
      expect(await after.getKnownPermissions(DEFAULT_APP, 'moderator')).toEqual(
        v1Known('moderator'),
      );
      expect(await inspect((client) => client.get(`${prefix}known:moderator`))).toBe(late);
    });

    it('refuses a server a newer version of the app wrote, and moves nothing', async () => {
      await inspect((client) => client.set(`${prefix}schema-version`, '3'));
      const before = await keysUnder();
      const error = await createRedisStore(server().url, { keyPrefix: prefix }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreDataError);
      expect(String(error)).toMatch(/newer version of the app \(schema 3, this one knows 2\)/);
      expect(await keysUnder()).toEqual(before);
    });
  });

  it("files under both roles the users' role changes an earlier version wrote, once", async () => {
    const prefix = `moves:${randomUUID()}:`;
    const move: AuditRecord = {
      ...record,
      ref: 'move-1',
      role: 'premium',
      subject: { kind: 'user', uid: 'cometchat-uid-4' },
      beforeSource: 'service',
      changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
    };
    const first = await replica(server().url, prefix);
    await first.appendAudit(record);
    await first.appendAudit(move);
    // As an earlier version left them: the move under `premium` alone, nothing filed yet, and
    // a record a hand damaged.
    const client = newClient(server().url);
    await client.connect();
    const vipEntries = async () => ({
      all: await client.zRange(`${prefix}audit-by-role:vip`, 0, -1),
      app: await client.zRange(`${prefix}app:staging:audit-by-role:vip`, 0, -1),
    });
    try {
      expect(await vipEntries()).toEqual({ all: ['move-1'], app: ['move-1'] });
      await client.del([
        `${prefix}audit-by-role:vip`,
        `${prefix}app:staging:audit-by-role:vip`,
        `${prefix}audit-roles-filed`,
      ]);
      await client.set(`${prefix}audit:damaged`, '{"not": "a record"');

      const upgraded = await replica(server().url, prefix);
      const list = async (query: { app?: string; role: string }) =>
        (await upgraded.listAudit({ ...query, offset: 0, limit: 10 })).records;
      expect(await list({ role: 'vip' })).toEqual([move]);
      expect(await list({ app: 'staging', role: 'vip' })).toEqual([move]);
      expect(await list({ app: 'staging', role: 'premium' })).toEqual([move]);
      expect(await list({ role: 'moderator' })).toEqual([record]);
      expect(await client.get(`${prefix}audit-roles-filed`)).toBe('1');
      // Filed once: a replica starting later reads the mark and files nothing again.
      await client.del(`${prefix}audit-by-role:vip`);
      await replica(server().url, prefix);
      expect((await vipEntries()).all).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('keeps installs with different key prefixes apart', async () => {
    const one = await replica(server().url, `one:${randomUUID()}:`);
    const two = await replica(server().url, `two:${randomUUID()}:`);
    expect(await one.claim('x', 60)).toBe(true);
    expect(await two.claim('x', 60)).toBe(true);
    await one.appendAudit(record);
    expect((await two.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
  });

  it("reads a role's map as an earlier version wrote it (no ref), and writes the ref beside it", async () => {
    const prefix = `known:${randomUUID()}:`;
    const store = await replica(server().url, prefix);
    const key = `${prefix}app:staging:known:mod`;
    const client = newClient(server().url);
    await client.connect();
    try {
      // Exactly the JSON the store wrote before it kept a reference.
      await client.set(
        key,
        '{"app":"staging","role":"mod","permissions":{"x":"allow"},"seenAt":1}',
      );
      expect(await store.getKnownPermissions('staging', 'mod')).toStrictEqual({
        app: 'staging',
        role: 'mod',
        permissions: { x: 'allow' },
        seenAt: 1,
      });
      await store.setKnownPermissions({
        app: 'staging',
        role: 'mod',
        permissions: { x: 'deny' },
        seenAt: 2,
        ref: '0a1b2c3d4e',
      });
      expect(JSON.parse((await client.get(key)) ?? 'null')).toEqual({
        app: 'staging',
        role: 'mod',
        permissions: { x: 'deny' },
        seenAt: 2,
        ref: '0a1b2c3d4e',
      });
    } finally {
      await client.close();
    }
  });

  describe('subscriptions and webhook events', () => {
    let prefix: string;
    let store: Store;
    let client: RedisClient;
    beforeEach(async () => {
      prefix = `alerts:${randomUUID()}:`;
      store = await replica(server().url, prefix);
      client = newClient(server().url);
      await client.connect();
    });
    afterEach(async () => {
      await client.close();
    });
    const keysUnder = async () => {
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1_000 })) {
        keys.push(...batch);
      }
      return keys.map((key) => key.slice(prefix.length)).sort();
    };

    it('keeps them in the keys the layout names, an index entry only where each is', async () => {
      await store.putSubscription(subscription);
      const event = { id: 'ev', app: 'prod', trigger: 'call_ended', receivedAt: 5, body: {} };
      expect(await store.keepWebhookEvent(event, 60)).toBe(true);
      expect(await keysUnder()).toEqual(
        [
          'schema-version',
          'audit-roles-filed',
          'subscriptions',
          'subscriptions-by-time',
          'app:prod:subscriptions',
          'channel:C0ALERTS:subscriptions',
          'webhook-events',
          'webhook-events-by-time',
          'claim:webhook:ev',
        ].sort(),
      );
      expect(await client.zRangeWithScores(`${prefix}webhook-events-by-time`, 0, -1)).toEqual([
        { value: 'ev', score: 5 },
      ]);
      // Moved to another app and channel: the old indexes lose it (and, empty, are gone).
      await store.putSubscription({ ...subscription, app: 'staging', channel: 'C0OTHER' });
      const moved = await keysUnder();
      expect(moved).toContain('app:staging:subscriptions');
      expect(moved).toContain('channel:C0OTHER:subscriptions');
      expect(moved).not.toContain('app:prod:subscriptions');
      expect(moved).not.toContain('channel:C0ALERTS:subscriptions');
      await store.removeSubscription(subscription.id);
      await store.removeWebhookEvent('ev');
      // The delivery's claim outlives the event: a late retry is still refused.
      expect(await keysUnder()).toEqual([
        'audit-roles-filed',
        'claim:webhook:ev',
        'schema-version',
      ]);
    });

    it('keeps no claim for an event it could not store, so that the retry is kept', async () => {
      const event = { id: 'ev', app: 'prod', trigger: 'call_ended', receivedAt: 5, body: {} };
      // The events' hash made a string: the script's HSET fails, as a full server's write would.
      await client.set(`${prefix}webhook-events`, 'not a hash');
      await expect(store.keepWebhookEvent(event, 60)).rejects.toThrow();
      expect(await keysUnder()).not.toContain('claim:webhook:ev');
      await client.del(`${prefix}webhook-events`);
      expect(await store.keepWebhookEvent(event, 60)).toBe(true);
      expect(await store.listWebhookEvents(6)).toEqual([event]);
    });

    it('moves a subscription stored without an app out of the default app when replaced', async () => {
      const { app: _, ...withoutApp } = subscription;
      await client.hSet(`${prefix}subscriptions`, subscription.id, JSON.stringify(withoutApp));
      for (const index of [
        'subscriptions-by-time',
        `app:${DEFAULT_APP}:subscriptions`,
        'channel:C0ALERTS:subscriptions',
      ]) {
        await client.zAdd(prefix + index, { score: 1, value: subscription.id });
      }
      expect(await store.listSubscriptions({ app: DEFAULT_APP })).toEqual([
        { ...subscription, app: DEFAULT_APP },
      ]);
      await store.putSubscription(subscription);
      expect(await keysUnder()).not.toContain(`app:${DEFAULT_APP}:subscriptions`);
      expect(await store.listSubscriptions({ app: 'prod' })).toEqual([subscription]);
    });

    it('reports one that does not decode as a StoreDataError, and replaces or removes it', async () => {
      await store.putSubscription(subscription);
      await client.hSet(`${prefix}subscriptions`, subscription.id, '{"id":"sub-1","kind":"sms"}');
      await expect(store.listSubscriptions({})).rejects.toBeInstanceOf(StoreDataError);
      await expect(store.listSubscriptions({ channel: 'C0ALERTS' })).rejects.toThrow(
        /subscription sub-1 in the store is not valid/,
      );
      await store.putSubscription({ ...subscription, channel: 'C0OTHER' });
      // Its old entries are left (the script could not read where it was), and list nothing.
      expect(await store.listSubscriptions({ channel: 'C0ALERTS' })).toEqual([]);
      expect(await store.listSubscriptions({ channel: 'C0OTHER' })).toHaveLength(1);
      await client.hSet(`${prefix}subscriptions`, subscription.id, 'not json');
      expect(await store.removeSubscription(subscription.id)).toBe(true);
      expect(await store.listSubscriptions({})).toEqual([]);

      await client.hSet(`${prefix}webhook-events`, 'ev', '{"id":"ev"}');
      await client.zAdd(`${prefix}webhook-events-by-time`, { score: 1, value: 'ev' });
      await expect(store.listWebhookEvents(2)).rejects.toThrow(
        /webhook event ev in the store is not valid/,
      );
    });
  });

  it('rejects, without the password, when no server answers', async () => {
    const gone = await ownServer();
    await gone.stop();
    const url = `redis://:hunter2-secret@127.0.0.1:${gone.port}`;
    const error = await createRedisStore(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(String(error)).toMatch(/cannot connect to Redis at .*ECONNREFUSED/);
    expect(String(error)).not.toContain('hunter2');
  });

  it('rejects operations while the server is down, and recovers when it is back', async () => {
    const own = await ownServer();
    const store = await replica(own.url, `outage:${randomUUID()}:`);
    expect(await store.claim('before', 60)).toBe(true);

    await own.stop();
    const failure = await store.claim('during', 60).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(String(failure)).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/);
    await expect(store.listAudit({ offset: 0, limit: 5 })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );

    await ownServer(own.port);
    // The client reconnects on its own; the new server is empty (nothing is persisted).
    await vi.waitFor(async () => expect(await store.claim('after', 60)).toBe(true), {
      timeout: 5_000,
      interval: 50,
    });
  });

  it('closes while the server is down', async () => {
    const own = await ownServer();
    const store = await createRedisStore(own.url);
    await own.stop();
    // Closed once the client knows the server is gone, not while it still believes it is up.
    await expect(store.claim('x', 60)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.close()).resolves.toBeUndefined();
  });
});
