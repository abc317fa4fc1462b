import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/store/redis-store.ts';
import { createSqliteStore, LISTING_SQL } from '../../src/store/sqlite-store.ts';
import {
  type AuditRecord,
  DEFAULT_APP,
  type Store,
  type Subscription,
} from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from './redis-server.ts';

/*
 * How a listing's cost grows with the data: the shape of each query, not a time. A page of the
 * audit trail, and its total, must read about a page of the store however long the trail is.
 */

const PAGE = 10;

function record(i: number): AuditRecord {
  return {
    ref: `ref-${String(i).padStart(6, '0')}`,
    // Pairs of equal times: the order of equal times (by ref) is part of the page.
    at: 1_700_000_000_000 + Math.floor(i / 2) * 1_000,
    app: i % 3 === 0 ? 'other' : DEFAULT_APP,
    teamId: 'T1',
    userId: 'U1',
    role: i % 2 === 0 ? 'moderator' : 'member',
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    beforeSource: 'last-update',
    outcome: 'applied',
  };
}

async function fill(store: Store, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await store.appendAudit(record(i));
}

/** The first ten in channels C0 to C9, two apps in each; the rest in 300 other channels. */
function subscription(i: number): Subscription {
  return {
    id: `sub-${String(i).padStart(4, '0')}`,
    app: i % 2 === 0 ? DEFAULT_APP : 'other',
    channel: i < 10 ? `C${i % 5}` : `C${100 + (i % 300)}`,
    kind: 'calls',
    filters: [],
    createdBy: 'U1',
    createdAt: 1_700_000_000_000 + i,
  };
}

/** A person's channels: half of the first ten's, and some with no subscription. */
const CHANNELS = ['C0', 'C2', 'C4', 'C0NONE', 'C0EMPTY'];

/** The same page, listed the slow way: every record sorted in memory. */
function expectedPage(count: number, app: string | undefined, role: string | undefined) {
  const all = Array.from({ length: count }, (_, i) => record(i))
    .filter((r) => (app === undefined || r.app === app) && (role === undefined || r.role === role))
    .sort((a, b) => b.at - a.at || b.ref.localeCompare(a.ref));
  return { refs: all.slice(PAGE, 2 * PAGE).map((r) => r.ref), total: all.length };
}

const FILTERS = [
  [undefined, undefined],
  [DEFAULT_APP, undefined],
  [undefined, 'moderator'],
  [DEFAULT_APP, 'moderator'],
] as const;

describe('sqlite listings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'listing-shape-'));
  const path = join(dir, 'state.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('read each page, and its total, through an index: no scan of the trail, no sort', async () => {
    const store = createSqliteStore(path);
    await fill(store, 200);
    await store.close();
    const db = new DatabaseSync(path, { readOnly: true });
    const values = new Map<string, string | number>([
      ['app', 'x'],
      ['role', 'x'],
      ['channel', 'x'],
      ['limit', PAGE],
      ['offset', 0],
    ]);
    // Only the parameters a query names: node:sqlite refuses any other.
    const plan = (sql: string) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(
          Object.fromEntries(
            [...sql.matchAll(/@(\w+)/g)].map(([, name = '']) => [name, values.get(name) ?? 0]),
          ),
        )
        .map((row) => String(row.detail));
    try {
      for (const [name, sql] of Object.entries(LISTING_SQL)) {
        const steps = typeof sql === 'string' ? plan(sql) : plan(sql.page);
        for (const step of steps) {
          // A SCAN of a listed table walks an index in the page's order, stopping at the page.
          if (/^SCAN (audit_records|audit_roles|subscriptions)\b/.test(step)) {
            expect(step, name).toMatch(/ USING (COVERING )?INDEX /);
          }
          expect(step, name).not.toMatch(/TEMP B-TREE/);
        }
        if (typeof sql !== 'string') {
          // The total is read from audit_counts, never counted over the trail.
          expect(plan(sql.count).join(' '), name).not.toMatch(/audit_records|audit_roles/);
        }
      }
    } finally {
      db.close();
    }
  });

  it("reads the subscriptions of some channels through the channel index, in the index's order", async () => {
    const file = join(dir, 'channels.db');
    const store = createSqliteStore(file);
    for (let i = 0; i < 200; i += 1) await store.putSubscription(subscription(i));
    expect((await store.listSubscriptionsIn(CHANNELS)).map((s) => s.id)).toEqual([
      'sub-0000',
      'sub-0005',
      'sub-0002',
      'sub-0007',
      'sub-0004',
      'sub-0009',
    ]);
    await store.close();
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const steps = db
        .prepare(`EXPLAIN QUERY PLAN ${LISTING_SQL.subscriptionsIn}`)
        .all({ channels: JSON.stringify(CHANNELS) })
        .map((row) => String(row.detail));
      // One probe of the index per channel named, no walk of every subscription, no sort.
      expect(steps).toContainEqual(
        expect.stringMatching(
          /^SEARCH subscriptions USING INDEX subscriptions_by_channel_time_id \(channel=\?\)$/,
        ),
      );
      for (const step of steps) {
        expect(step).not.toMatch(/^SCAN subscriptions\b/);
        expect(step).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      db.close();
    }
  });

  it('lists the same pages and totals as sorting every record', async () => {
    const store = createSqliteStore(join(dir, 'pages.db'));
    await fill(store, 300);
    // A record stored twice is counted once.
    await store.appendAudit(record(7));
    for (const [app, role] of FILTERS) {
      const page = await store.listAudit({ app, role, offset: PAGE, limit: PAGE });
      expect({ refs: page.records.map((r) => r.ref), total: page.total }).toEqual(
        expectedPage(300, app, role),
      );
    }
    await store.close();
  });
});

describe.skipIf(skipRedisSuites)('redis listings', { tags: ['redis'] }, () => {
  const server = useRedisServer();

  /** The server's own counters (INFO stats): no MONITOR, nothing in the store changed. */
  async function serverStats(): Promise<{ keysRead: number; bytesOut: number }> {
    const client = createClient({ url: server().url });
    await client.connect();
    try {
      const info = await client.info('stats');
      const stat = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(info)?.[1]);
      return {
        keysRead: stat('keyspace_hits') + stat('keyspace_misses'),
        bytesOut: stat('total_net_output_bytes'),
      };
    } finally {
      await client.close();
    }
  }

  /** What the server read and sent for the second page of each listing over `count` records. */
  async function costOfPages(count: number) {
    const store = await createRedisStore(server().url, { keyPrefix: `shape:${randomUUID()}:` });
    try {
      await fill(store, count);
      const costs = [];
      for (const [app, role] of FILTERS) {
        const before = await serverStats();
        const page = await store.listAudit({ app, role, offset: PAGE, limit: PAGE });
        const after = await serverStats();
        expect({ refs: page.records.map((r) => r.ref), total: page.total }).toEqual(
          expectedPage(count, app, role),
        );
        costs.push({
          keysRead: after.keysRead - before.keysRead,
          bytesOut: after.bytesOut - before.bytesOut,
        });
      }
      return costs;
    } finally {
      await store.close();
    }
  }

  /** What the server read and sent to list CHANNELS' subscriptions, and count them, over `count`. */
  async function costOfChannels(count: number) {
    const store = await createRedisStore(server().url, { keyPrefix: `shape:${randomUUID()}:` });
    try {
      for (let i = 0; i < count; i += 1) await store.putSubscription(subscription(i));
      const before = await serverStats();
      const listed = await store.listSubscriptionsIn(CHANNELS);
      const total = await store.countSubscriptions();
      const after = await serverStats();
      expect(total).toBe(count);
      return {
        ids: listed.map((s) => s.id),
        keysRead: after.keysRead - before.keysRead,
        bytesOut: after.bytesOut - before.bytesOut,
      };
    } finally {
      await store.close();
    }
  }

  it("read some channels' subscriptions, and count them all, over 1,000 as over 10", async () => {
    const small = await costOfChannels(10);
    const large = await costOfChannels(1_000);
    expect(large.ids).toEqual(small.ids);
    expect(small.ids).toHaveLength(6);
    // Each channel's index, the records listed, the count: not every subscription.
    expect(large.keysRead).toBe(small.keysRead);
    expect(large.keysRead).toBeLessThanOrEqual(CHANNELS.length + 2);
    expect(large.bytesOut).toBeLessThan(small.bytesOut + 200);
  }, 60_000);

  it('read a page of 10 over 5,000 records as over 60: the page keys, not every record', async () => {
    const small = await costOfPages(60);
    const large = await costOfPages(5_000);
    for (const [i, cost] of large.entries()) {
      const base = small[i];
      if (base === undefined) throw new Error('no page over 60 records');
      // The index's range, its size and the page's records: about a page, whatever the trail.
      expect(cost.keysRead).toBeLessThanOrEqual(PAGE + 4);
      expect(cost.keysRead).toBe(base.keysRead);
      // What the server sent differs by the totals' digits (and INFO's own reply), not by 5,000 refs.
      expect(cost.bytesOut).toBeLessThan(base.bytesOut + 200);
    }
  }, 60_000);
});
