import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRedisStore } from '../../src/store/redis-store.ts';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import { type AuditRecord, createMemoryStore, type Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from './redis-server.ts';

/** A fresh, empty store for one test, and how to move its clock on. */
interface StoreUnderTest {
  store: Store;
  /**
   * Moves the store's claim clock forward. Absent for a store whose expiry runs on a clock of its
   * own (Redis): the suite then asks until the claim has expired.
   */
  advance?: (ms: number) => void;
}

/** The behaviour every backend shares, with `createMemoryStore` as the reference. */
function describeStoreContract(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(`${name} store contract`, () => {
    let subject: StoreUnderTest;
    let store: Store;
    beforeEach(async () => {
      subject = await make();
      store = subject.store;
    });
    afterEach(async () => {
      await store.close();
    });

    describe('known permissions', () => {
      it('returns undefined for a role never seen', async () => {
        expect(await store.getKnownPermissions('nobody')).toBeUndefined();
      });

      it('round-trips every kind of permission value', async () => {
        const known = {
          role: 'moderator',
          permissions: { sendMessage: 'allow', deleteMessage: ['own', 'group'], pin: null },
          seenAt: 1_700_000_000_123,
        };
        await store.setKnownPermissions(known);
        expect(await store.getKnownPermissions('moderator')).toEqual(known);
      });

      it('keeps the last map per role, and roles apart', async () => {
        await store.setKnownPermissions({ role: 'a', permissions: { x: 'allow' }, seenAt: 1 });
        await store.setKnownPermissions({ role: 'b', permissions: { x: 'deny' }, seenAt: 2 });
        await store.setKnownPermissions({ role: 'a', permissions: { y: 'deny' }, seenAt: 3 });
        expect(await store.getKnownPermissions('a')).toEqual({
          role: 'a',
          permissions: { y: 'deny' },
          seenAt: 3,
        });
        expect(await store.getKnownPermissions('b')).toEqual({
          role: 'b',
          permissions: { x: 'deny' },
          seenAt: 2,
        });
      });

      it('is not changed by mutating what was passed in or read out', async () => {
        const known = { role: 'a', permissions: { x: 'allow' }, seenAt: 1 };
        await store.setKnownPermissions(known);
        known.permissions.x = 'deny';
        const read = await store.getKnownPermissions('a');
        if (read) read.permissions.x = 'changed';
        expect((await store.getKnownPermissions('a'))?.permissions).toEqual({ x: 'allow' });
      });
    });

    describe('claims', () => {
      it('gives a claim to the first caller only', async () => {
        expect(await store.claim('confirm-1', 60)).toBe(true);
        expect(await store.claim('confirm-1', 60)).toBe(false);
        expect(await store.claim('confirm-2', 60)).toBe(true);
      });

      it('can be taken again once released', async () => {
        expect(await store.claim('c', 60)).toBe(true);
        await store.release('c');
        expect(await store.claim('c', 60)).toBe(true);
        expect(await store.claim('c', 60)).toBe(false);
      });

      it('releases an id nobody holds without complaint', async () => {
        await expect(store.release('never-claimed')).resolves.toBeUndefined();
      });

      it('lets a claim expire after its TTL', async () => {
        expect(await store.claim('short', 1)).toBe(true);
        if (subject.advance) {
          subject.advance(999);
          expect(await store.claim('short', 1)).toBe(false);
          subject.advance(1);
          expect(await store.claim('short', 1)).toBe(true);
        } else {
          expect(await store.claim('short', 1)).toBe(false);
          // Redis expires the key on its own clock: ask until the claim is free again.
          await vi.waitFor(async () => expect(await store.claim('short', 1)).toBe(true), {
            timeout: 5_000,
            interval: 50,
          });
        }
        expect(await store.claim('short', 1)).toBe(false);
      });

      it('gives one of 50 concurrent claims on one id', async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store.claim('raced', 60)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('audit', () => {
      it('lists a record as it was appended, optional fields included', async () => {
        const full = record({
          ref: 'r-full',
          outcome: 'failed',
          serviceMessage: 'Service said no',
          errorKind: 'unavailable',
          changes: [
            { key: 'pin', before: null, after: ['own', 'group'], explicit: true },
            { key: 'send', before: 'allow', after: 'deny', explicit: false },
          ],
        });
        const bare = record({ ref: 'r-bare', at: full.at - 1 });
        await store.appendAudit(full);
        await store.appendAudit(bare);
        expect(await store.listAudit({ offset: 0, limit: 10 })).toEqual({
          records: [full, bare],
          total: 2,
        });
      });

      it('ignores a second record with the same ref, in every listing', async () => {
        await store.appendAudit(record({ ref: 'dup', role: 'a', at: 10, userId: 'U1' }));
        await store.appendAudit(record({ ref: 'dup', role: 'b', at: 20, userId: 'U2' }));
        const all = await store.listAudit({ offset: 0, limit: 10 });
        expect(all.total).toBe(1);
        expect(all.records.map((r) => [r.role, r.at, r.userId])).toEqual([['a', 10, 'U1']]);
        expect(await store.listAudit({ role: 'b', offset: 0, limit: 10 })).toEqual({
          records: [],
          total: 0,
        });
      });

      it('keeps one record when the same ref is appended concurrently', async () => {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.appendAudit(record({ ref: 'same', role: `role-${i}`, at: i })),
          ),
        );
        expect((await store.listAudit({ offset: 0, limit: 50 })).total).toBe(1);
      });

      it('pages newest first, with the total of all matching records', async () => {
        for (const at of [3, 1, 5, 2, 4]) await store.appendAudit(record({ ref: `r${at}`, at }));
        const refs = async (offset: number, limit: number) => {
          const page = await store.listAudit({ offset, limit });
          expect(page.total).toBe(5);
          return page.records.map((r) => r.ref);
        };
        expect(await refs(0, 2)).toEqual(['r5', 'r4']);
        expect(await refs(2, 2)).toEqual(['r3', 'r2']);
        expect(await refs(4, 2)).toEqual(['r1']);
        expect(await refs(5, 2)).toEqual([]);
        expect(await refs(0, 0)).toEqual([]);
      });

      it('orders records of the same time by ref, descending', async () => {
        for (const ref of ['b', 'c', 'a']) await store.appendAudit(record({ ref, at: 7 }));
        const page = await store.listAudit({ offset: 0, limit: 10 });
        expect(page.records.map((r) => r.ref)).toEqual(['c', 'b', 'a']);
      });

      it('narrows to one role, paging and counting within it', async () => {
        await store.appendAudit(record({ ref: 'a1', role: 'admin', at: 1 }));
        await store.appendAudit(record({ ref: 'm1', role: 'mod', at: 2 }));
        await store.appendAudit(record({ ref: 'a2', role: 'admin', at: 3 }));
        await store.appendAudit(record({ ref: 'a3', role: 'admin', at: 4 }));
        const page = await store.listAudit({ role: 'admin', offset: 1, limit: 5 });
        expect(page).toMatchObject({ total: 3 });
        expect(page.records.map((r) => r.ref)).toEqual(['a2', 'a1']);
        expect(await store.listAudit({ role: 'nobody', offset: 0, limit: 5 })).toEqual({
          records: [],
          total: 0,
        });
        expect((await store.listAudit({ offset: 0, limit: 5 })).total).toBe(4);
      });
    });
  });
}

function record(overrides: Partial<AuditRecord> & { ref: string }): AuditRecord {
  return {
    at: 1_700_000_000_000,
    teamId: 'T1',
    userId: 'U1',
    role: 'moderator',
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    beforeSource: 'last-update',
    outcome: 'applied',
    ...overrides,
  };
}

function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_700_000_000_000;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

describeStoreContract('memory', async () => {
  const clock = fakeClock();
  return { store: createMemoryStore(clock.now), advance: clock.advance };
});

describe('sqlite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sqlite-store-contract-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  describeStoreContract('sqlite', async () => {
    const clock = fakeClock();
    return {
      store: createSqliteStore(join(dir, `${randomUUID()}.sqlite`), clock.now),
      advance: clock.advance,
    };
  });
});

describe.skipIf(skipRedisSuites)('redis', { tags: ['redis'] }, () => {
  const server = useRedisServer();
  describeStoreContract('redis', async () => ({
    // A prefix per test gives each one an empty store on the shared server.
    store: await createRedisStore(server().url, { keyPrefix: `test:${randomUUID()}:` }),
  }));
});
