import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRedisStore } from '../../src/store/redis-store.ts';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import {
  type ApprovalRequest,
  AUDIT_POSTS_LIMIT,
  type AuditPost,
  type AuditRecord,
  createMemoryStore,
  DEFAULT_APP,
  type Store,
  type Subscription,
  WEBHOOK_EVENTS_LIMIT,
  type WebhookEvent,
  webhookClaimId,
} from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from './redis-server.ts';
import {
  copyV1SqliteFile,
  loadV1Redis,
  V1_CLAIMS,
  V1_KNOWN_ROLES,
  V1_WRITTEN_AT,
  v1Audit,
  v1Known,
} from './version-1-state.ts';

/** A fresh, empty store for one test, and how to move its clock on. */
interface StoreUnderTest {
  store: Store;
  /**
   * Moves the store's claim clock forward. Absent for a store whose expiry runs on a clock of its
   * own (Redis): the suite then asks until the claim has expired.
   */
  advance?: (ms: number) => void;
}

/**
 * The behaviour every backend shares, with `createMemoryStore` as the reference. `openV1` opens
 * the backend on a copy of the state version 1 wrote (a backend that keeps nothing has none).
 */
function describeStoreContract(
  name: string,
  make: () => Promise<StoreUnderTest>,
  openV1?: () => Promise<Store>,
): void {
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

    describe('readiness', () => {
      it('answers a ping, again and again, without a claim anyone can take', async () => {
        await store.ping();
        await store.ping();
        expect(await store.claim('a'.repeat(32), 60)).toBe(true);
        expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
      });
    });

    describe('known permissions', () => {
      it('returns undefined for a role never seen', async () => {
        expect(await store.getKnownPermissions(DEFAULT_APP, 'nobody')).toBeUndefined();
      });

      it('round-trips every kind of permission value', async () => {
        const known = {
          app: 'staging',
          role: 'moderator',
          permissions: { sendMessage: 'allow', deleteMessage: ['own', 'group'], pin: null },
          seenAt: 1_700_000_000_123,
        };
        await store.setKnownPermissions(known);
        expect(await store.getKnownPermissions('staging', 'moderator')).toEqual(known);
      });

      it('keeps the reference of the change that set the map', async () => {
        const known = {
          app: 'staging',
          role: 'moderator',
          permissions: { sendMessage: 'deny' },
          seenAt: 1_700_000_000_123,
          ref: '0a1b2c3d4e',
        };
        await store.setKnownPermissions(known);
        expect(await store.getKnownPermissions('staging', 'moderator')).toStrictEqual(known);
      });

      it("reads a map stored without a reference (an earlier version's) without one", async () => {
        const known = { app: 'prod', role: 'mod', permissions: { x: 'allow' }, seenAt: 1 };
        await store.setKnownPermissions(known);
        expect(await store.getKnownPermissions('prod', 'mod')).toStrictEqual(known);
        // Replacing a map replaces its reference too: none is carried over from the one before.
        await store.setKnownPermissions({ ...known, seenAt: 2, ref: 'ffffffffff' });
        await store.setKnownPermissions({ ...known, seenAt: 3 });
        expect(await store.getKnownPermissions('prod', 'mod')).toStrictEqual({
          ...known,
          seenAt: 3,
        });
      });

      it('keeps the last map per role, and roles apart', async () => {
        const app = 'prod';
        await store.setKnownPermissions({ app, role: 'a', permissions: { x: 'allow' }, seenAt: 1 });
        await store.setKnownPermissions({ app, role: 'b', permissions: { x: 'deny' }, seenAt: 2 });
        await store.setKnownPermissions({ app, role: 'a', permissions: { y: 'deny' }, seenAt: 3 });
        expect(await store.getKnownPermissions(app, 'a')).toEqual({
          app,
          role: 'a',
          permissions: { y: 'deny' },
          seenAt: 3,
        });
        expect(await store.getKnownPermissions(app, 'b')).toEqual({
          app,
          role: 'b',
          permissions: { x: 'deny' },
          seenAt: 2,
        });
      });

      it('keeps apps apart: one role, one map per app', async () => {
        const prod = { app: 'prod', role: 'mod', permissions: { x: 'deny' }, seenAt: 1 };
        const staging = { app: 'staging', role: 'mod', permissions: { x: 'allow' }, seenAt: 2 };
        await store.setKnownPermissions(prod);
        await store.setKnownPermissions(staging);
        expect(await store.getKnownPermissions('prod', 'mod')).toEqual(prod);
        expect(await store.getKnownPermissions('staging', 'mod')).toEqual(staging);
        expect(await store.getKnownPermissions(DEFAULT_APP, 'mod')).toBeUndefined();
        await store.setKnownPermissions({ ...staging, permissions: {}, seenAt: 3 });
        expect(await store.getKnownPermissions('prod', 'mod')).toEqual(prod);
      });

      it('is not changed by mutating what was passed in or read out', async () => {
        const known = { app: DEFAULT_APP, role: 'a', permissions: { x: 'allow' }, seenAt: 1 };
        await store.setKnownPermissions(known);
        known.permissions.x = 'deny';
        const read = await store.getKnownPermissions(DEFAULT_APP, 'a');
        if (read) read.permissions.x = 'changed';
        expect((await store.getKnownPermissions(DEFAULT_APP, 'a'))?.permissions).toEqual({
          x: 'allow',
        });
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

      it('renews a claim while it is held, and makes none that is not', async () => {
        expect(await store.claim('short', 1)).toBe(true);
        expect(await store.renewClaim('short', 60)).toBe(true);
        if (subject.advance) subject.advance(1_000);
        else await new Promise((resolve) => setTimeout(resolve, 1_100));
        // Past the first TTL, the renewed claim still holds.
        expect(await store.claim('short', 60)).toBe(false);
        expect(await store.renewClaim('never-taken', 60)).toBe(false);
        expect(await store.claim('never-taken', 60)).toBe(true);
        await store.release('never-taken');
        expect(await store.renewClaim('never-taken', 60)).toBe(false);
        expect(await store.claim('never-taken', 60)).toBe(true);
      });

      it('renews no claim that has expired', async () => {
        expect(await store.claim('gone', 1)).toBe(true);
        if (subject.advance) subject.advance(1_000);
        else await new Promise((resolve) => setTimeout(resolve, 1_100));
        expect(await store.renewClaim('gone', 60)).toBe(false);
        expect(await store.claim('gone', 60)).toBe(true);
      });

      it('gives one of 50 concurrent claims on one id', async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store.claim('raced', 60)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('burst windows', () => {
      const minute = 60_000;
      const t0 = 1_700_000_000_000;

      it("counts a channel's alerts in a window begun by the first, channels apart", async () => {
        expect(await store.getBurstWindow('C1')).toBeUndefined();
        expect(await store.countBurstAlert('C1', t0, minute)).toEqual({ start: t0, alerts: 1 });
        expect(await store.countBurstAlert('C1', t0 + 10, minute)).toEqual({
          start: t0,
          alerts: 2,
        });
        expect(await store.countBurstAlert('C2', t0 + 20, minute)).toEqual({
          start: t0 + 20,
          alerts: 1,
        });
        expect(await store.getBurstWindow('C1')).toEqual({ start: t0, alerts: 2, shown: {} });
      });

      it("keeps the window's count message and what each replica had it show", async () => {
        await store.countBurstAlert('C1', t0, minute);
        await store.setBurstCountTs('C1', t0, '171.1');
        await store.setBurstShown('C1', t0, 'r1', 4);
        await store.setBurstShown('C1', t0, 'r2', 2);
        await store.setBurstShown('C1', t0, 'r1', 5);
        expect(await store.getBurstWindow('C1')).toEqual({
          start: t0,
          alerts: 1,
          countTs: '171.1',
          shown: { r1: 5, r2: 2 },
        });
      });

      it('begins the next window at the first alert at or past the end, with none of the last', async () => {
        await store.countBurstAlert('C1', t0, minute);
        await store.setBurstCountTs('C1', t0, '171.1');
        await store.setBurstShown('C1', t0, 'r1', 3);
        expect(await store.countBurstAlert('C1', t0 + minute - 1, minute)).toEqual({
          start: t0,
          alerts: 2,
        });
        const next = t0 + minute;
        expect(await store.countBurstAlert('C1', next, minute)).toEqual({ start: next, alerts: 1 });
        expect(await store.getBurstWindow('C1')).toEqual({ start: next, alerts: 1, shown: {} });
        // What is kept for the window that ended is not kept for the one begun since.
        await store.setBurstCountTs('C1', t0, '171.1');
        await store.setBurstShown('C1', t0, 'r1', 3);
        expect(await store.getBurstWindow('C1')).toEqual({ start: next, alerts: 1, shown: {} });
        await store.setBurstCountTs('C1', next, '172.2');
        await store.setBurstShown('C1', next, 'r1', 1);
        expect(await store.getBurstWindow('C1')).toEqual({
          start: next,
          alerts: 1,
          countTs: '172.2',
          shown: { r1: 1 },
        });
      });

      it('gives each of 50 concurrent alerts its own place in the window', async () => {
        const windows = await Promise.all(
          Array.from({ length: 50 }, () => store.countBurstAlert('raced', t0, minute)),
        );
        expect(windows.map((w) => w.alerts).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 50 }, (_, i) => i + 1),
        );
        expect(new Set(windows.map((w) => w.start))).toEqual(new Set([t0]));
      });

      it('forgets windows long ended', async () => {
        await store.countBurstAlert('old', t0, 1_000);
        await store.setBurstShown('old', t0, 'r1', 1);
        // Redis expires the key on its own clock (two windows: 2 s); the others prune when a
        // window begins.
        if (!subject.advance) await new Promise((resolve) => setTimeout(resolve, 2_100));
        await store.countBurstAlert('new', t0 + 2_000, 1_000);
        expect(await store.getBurstWindow('old')).toBeUndefined();
        expect(await store.getBurstWindow('new')).toEqual({
          start: t0 + 2_000,
          alerts: 1,
          shown: {},
        });
      });
    });

    describe('audit', () => {
      it('lists a record as it was appended, optional fields included', async () => {
        const full = record({
          ref: 'r-full',
          app: 'prod',
          promotedFrom: 'r-staging',
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

      it("keeps a role deletion's users and the record a change puts back, as written", async () => {
        const deletion = record({
          ref: 'r-delete',
          role: 'vip',
          subject: { kind: 'role', action: 'delete' },
          changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
          movedToDefault: { uids: ['u-1', 'u-2'], total: 2 },
        });
        const revert = record({ ref: 'r-revert', at: deletion.at + 1, reverts: 'r-delete' });
        await store.appendAudit(deletion);
        await store.appendAudit(revert);
        await store.putPending({ ...deletion, ref: 'r-pending', outcome: 'unknown' });
        expect((await store.listAudit({ offset: 0, limit: 10 })).records).toEqual([
          revert,
          deletion,
        ]);
        expect(await store.listPending(Number.POSITIVE_INFINITY)).toEqual([
          { ...deletion, ref: 'r-pending', outcome: 'unknown' },
        ]);
      });

      it("keeps a containment's steps, a failed one among them, as written", async () => {
        const contained = record({
          ref: 'r-contain',
          subject: { kind: 'containment', uid: 'u-7' },
          changes: [
            { key: 'sessions', before: ['0a1b2c3d'], after: [], explicit: false },
            { key: 'bans', before: [], after: ['hiking'], explicit: false },
            { key: 'status', before: 'active', after: 'deactivated', explicit: false },
          ],
          steps: [
            { key: 'sessions', outcome: 'applied', message: 'every session revoked' },
            { key: 'bans:hiking', outcome: 'failed', message: 'banning from hiking: refused' },
            { key: 'status', outcome: 'applied', message: 'account deactivated' },
          ],
        });
        await store.appendAudit(contained);
        expect(await store.getAudit('r-contain')).toEqual(contained);
        expect((await store.listAudit({ offset: 0, limit: 1 })).records).toEqual([contained]);
      });

      it("keeps a group member's change, its subject naming the group and the member", async () => {
        const scoped = record({
          ref: 'r-member',
          role: '',
          subject: { kind: 'group-member', guid: 'hiking', uid: 'u-7' },
          changes: [{ key: 'scope', before: 'participant', after: 'moderator', explicit: false }],
        });
        await store.appendAudit(scoped);
        expect(await store.getAudit('r-member')).toEqual(scoped);
        expect((await store.listAudit({ offset: 0, limit: 1 })).records).toEqual([scoped]);
      });

      it('reads one record by its ref, whichever its app, with a deleted role as it was', async () => {
        const deletion = record({
          ref: 'r-gone',
          app: 'prod',
          role: 'vip',
          subject: { kind: 'role', action: 'delete' },
          changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
          deletedRole: {
            name: 'VIP',
            description: 'Paying customers',
            permissions: { sendMessage: 'deny', 'listUsers.mode': 'friends' },
            seenAt: 1_700_000_000_000,
          },
        });
        await store.appendAudit(record({ ref: 'r-other', at: deletion.at + 1 }));
        await store.appendAudit(deletion);
        expect(await store.getAudit('r-gone')).toEqual(deletion);
        expect(await store.getAudit('r-nothing')).toBeUndefined();
        // What is read is a copy: changing it changes nothing stored.
        const read = await store.getAudit('r-gone');
        if (read) read.role = 'changed';
        expect((await store.getAudit('r-gone'))?.role).toBe('vip');
      });

      it('ignores a second record with the same ref, in every listing', async () => {
        await store.appendAudit(record({ ref: 'dup', role: 'a', at: 10, userId: 'U1' }));
        await store.appendAudit(record({ ref: 'dup', role: 'b', at: 20, userId: 'U2' }));
        await store.appendAudit(record({ ref: 'dup', app: 'prod', role: 'a', at: 30 }));
        const all = await store.listAudit({ offset: 0, limit: 10 });
        expect(all.total).toBe(1);
        expect(all.records.map((r) => [r.app, r.role, r.at, r.userId])).toEqual([
          [DEFAULT_APP, 'a', 10, 'U1'],
        ]);
        const none = { records: [], total: 0 };
        expect(await store.listAudit({ role: 'b', offset: 0, limit: 10 })).toEqual(none);
        expect(await store.listAudit({ app: 'prod', offset: 0, limit: 10 })).toEqual(none);
        expect(await store.listAudit({ app: 'prod', role: 'a', offset: 0, limit: 10 })).toEqual(
          none,
        );
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

      it("files a change of a user's role under the role they had and the one they were given", async () => {
        const move = (ref: string, at: number, from: string, to: string, app = 'prod') =>
          record({
            ref,
            app,
            at,
            role: from,
            subject: { kind: 'user', uid: 'cometchat-uid-4' },
            beforeSource: 'service',
            changes: [{ key: 'role', before: from, after: to, explicit: false }],
          });
        const premiumToVip = move('m1', 5, 'premium', 'vip');
        const vipEdit = record({ ref: 'v1', app: 'prod', role: 'vip', at: 3 });
        const premiumEdit = record({ ref: 'p1', app: 'prod', role: 'premium', at: 4 });
        const deactivation = record({
          ref: 'd1',
          app: 'prod',
          role: 'premium',
          at: 6,
          subject: { kind: 'user', uid: 'cometchat-uid-5' },
          beforeSource: 'service',
          changes: [{ key: 'status', before: 'active', after: 'deactivated', explicit: false }],
        });
        for (const r of [premiumToVip, vipEdit, premiumEdit, deactivation]) {
          await store.appendAudit(r);
        }
        // A second record of the ref names other roles: it is ignored, and so are they.
        await store.appendAudit(move('m1', 7, 'default', 'admin'));
        await store.appendAudit(move('s1', 2, 'default', 'vip', 'staging'));
        const list = async (query: { app?: string; role?: string; offset?: number }) => {
          const page = await store.listAudit({ offset: 0, limit: 10, ...query });
          return { refs: page.records.map((r) => r.ref), total: page.total };
        };
        expect(await list({ app: 'prod', role: 'vip' })).toEqual({ refs: ['m1', 'v1'], total: 2 });
        expect(await list({ app: 'prod', role: 'premium' })).toEqual({
          refs: ['d1', 'm1', 'p1'],
          total: 3,
        });
        expect(await list({ role: 'vip' })).toEqual({ refs: ['m1', 'v1', 's1'], total: 3 });
        expect(await list({ role: 'vip', offset: 1 })).toEqual({ refs: ['v1', 's1'], total: 3 });
        expect(await list({ app: 'staging', role: 'default' })).toEqual({ refs: ['s1'], total: 1 });
        expect(await list({ app: 'staging', role: 'premium' })).toEqual({ refs: [], total: 0 });
        for (const role of ['admin', 'active', 'deactivated']) {
          expect(await list({ role })).toEqual({ refs: [], total: 0 });
        }
        // Listed once each, without a role, and as they were appended.
        expect(await list({})).toEqual({ refs: ['d1', 'm1', 'p1', 'v1', 's1'], total: 5 });
        expect((await store.listAudit({ role: 'vip', offset: 0, limit: 1 })).records).toEqual([
          premiumToVip,
        ]);
      });

      describe('intents', () => {
        const unknown = (ref: string, at: number) =>
          record({ ref, at, outcome: 'unknown', serviceMessage: 'the app stopped' });

        it('lists intents older than a time, oldest first, as they were kept', async () => {
          await store.putPending(unknown('i3', 30));
          await store.putPending(unknown('i1', 10));
          await store.putPending(unknown('i2', 20));
          expect((await store.listPending(25)).map((r) => r.ref)).toEqual(['i1', 'i2']);
          expect(await store.listPending(11)).toEqual([unknown('i1', 10)]);
          expect(await store.listPending(10)).toEqual([]);
        });

        it('ends an intent with the record of its ref, whichever record stays', async () => {
          await store.putPending(unknown('a', 1));
          await store.putPending(unknown('b', 2));
          await store.appendAudit(record({ ref: 'a', at: 5, outcome: 'applied' }));
          expect((await store.listPending(100)).map((r) => r.ref)).toEqual(['b']);
          // The sweep's record for an intent whose answer came after all: the first one stays.
          await store.appendAudit(record({ ref: 'b', at: 6, outcome: 'failed' }));
          await store.appendAudit(unknown('b', 2));
          expect(await store.listPending(100)).toEqual([]);
          const outcomes = (await store.listAudit({ offset: 0, limit: 10 })).records.map((r) => [
            r.ref,
            r.outcome,
          ]);
          expect(outcomes).toEqual([
            ['b', 'failed'],
            ['a', 'applied'],
          ]);
        });

        it('keeps the approval behind a change', async () => {
          const approved = record({
            ref: 'ap',
            at: 4,
            approval: { approvedBy: 'U0LEAD', approvedAt: 4, requestedAt: 2, reason: 'ticket 42' },
          });
          await store.appendAudit(approved);
          expect((await store.listAudit({ offset: 0, limit: 1 })).records).toEqual([approved]);
        });

        it("keeps a user's change with its subject, as intent and as record", async () => {
          const userChange = record({
            ref: 'uc',
            at: 5,
            subject: { kind: 'user', uid: 'cometchat-uid-7' },
            changes: [{ key: 'role', before: 'default', after: 'admin', explicit: false }],
          });
          await store.putPending({ ...userChange, outcome: 'unknown' });
          expect(await store.listPending(Number.MAX_SAFE_INTEGER)).toEqual([
            { ...userChange, outcome: 'unknown' },
          ]);
          await store.appendAudit(userChange);
          expect((await store.listAudit({ offset: 0, limit: 1 })).records).toEqual([userChange]);
        });

        it('reads back an unknown outcome as a record', async () => {
          await store.appendAudit(unknown('u', 3));
          expect((await store.listAudit({ offset: 0, limit: 1 })).records).toEqual([
            unknown('u', 3),
          ]);
        });
      });

      describe('approval requests', () => {
        const request = (
          id: string,
          overrides: Partial<ApprovalRequest> = {},
        ): ApprovalRequest => ({
          id,
          app: 'prod',
          role: 'default',
          changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
          seenAt: 5,
          teamId: 'T1',
          requester: 'U0ASKER',
          reason: 'ticket 42',
          requestedAt: 100,
          expiresAt: 200,
          channel: 'C0APPROVE',
          status: 'open',
          ...overrides,
        });

        it('keeps a request as it was put, and replaces it by id', async () => {
          expect(await store.getApproval('none')).toBeUndefined();
          await store.putApproval(request('a'));
          expect(await store.getApproval('a')).toEqual(request('a'));
          const decided = request('a', {
            ts: '1.2',
            status: 'rejected',
            decidedBy: 'U0LEAD',
            decidedAt: 150,
            rejectReason: 'not now',
          });
          await store.putApproval(decided);
          expect(await store.getApproval('a')).toEqual(decided);
          const deactivation = request('u', {
            subject: { kind: 'user', uid: 'cometchat-uid-7' },
            changes: [{ key: 'status', before: 'active', after: 'deactivated', explicit: false }],
          });
          await store.putApproval(deactivation);
          expect(await store.getApproval('u')).toEqual(deactivation);
        });

        it("keeps the workflow step's run a request was made by", async () => {
          const step = { executionId: 'Fx0001', callbackId: 'change_cometchat_user_role' };
          await store.putApproval(request('w', { workflowStep: step }));
          expect((await store.getApproval('w'))?.workflowStep).toEqual(step);
          expect((await store.listOpenApprovals())[0]?.workflowStep).toEqual(step);
        });

        it('lists the open ones, oldest first, and drops one once decided', async () => {
          await store.putApproval(request('late', { requestedAt: 300 }));
          await store.putApproval(request('early', { requestedAt: 100 }));
          await store.putApproval(request('done', { requestedAt: 50, status: 'applied' }));
          expect((await store.listOpenApprovals()).map((r) => r.id)).toEqual(['early', 'late']);
          await store.putApproval(request('early', { status: 'stale' }));
          expect((await store.listOpenApprovals()).map((r) => r.id)).toEqual(['late']);
        });

        it('lists the requests whose workflow step is not completed, whatever their status', async () => {
          const step = (n: number) => ({ executionId: `Fx000${n}`, callbackId: 'change_role' });
          await store.putApproval(request('person', { requestedAt: 10, status: 'rejected' }));
          await store.putApproval(request('open', { requestedAt: 400, workflowStep: step(1) }));
          await store.putApproval(
            request('decided', { requestedAt: 300, status: 'rejected', workflowStep: step(2) }),
          );
          await store.putApproval(
            request('failed', { requestedAt: 200, status: 'failed', workflowStep: step(3) }),
          );
          await store.putApproval(
            request('ended', {
              requestedAt: 100,
              status: 'applied',
              workflowStep: step(4),
              stepCompletedAt: 150,
            }),
          );
          const ids = async () => (await store.listUnendedStepApprovals()).map((r) => r.id);
          expect(await ids()).toEqual(['failed', 'decided', 'open']);
          expect((await store.listUnendedStepApprovals())[1]).toEqual(
            request('decided', { requestedAt: 300, status: 'rejected', workflowStep: step(2) }),
          );
          // Completed: no longer listed; its request kept as it was put.
          const completed = request('decided', {
            requestedAt: 300,
            status: 'rejected',
            workflowStep: step(2),
            stepCompletedAt: 350,
          });
          await store.putApproval(completed);
          expect(await ids()).toEqual(['failed', 'open']);
          expect(await store.getApproval('decided')).toEqual(completed);
        });
      });

      describe('with several apps', () => {
        beforeEach(async () => {
          await store.appendAudit(record({ ref: 'p1', app: 'prod', role: 'admin', at: 1 }));
          await store.appendAudit(record({ ref: 's1', app: 'staging', role: 'admin', at: 2 }));
          await store.appendAudit(record({ ref: 'p2', app: 'prod', role: 'mod', at: 3 }));
          await store.appendAudit(record({ ref: 'p3', app: 'prod', role: 'admin', at: 4 }));
          await store.appendAudit(record({ ref: 's2', app: 'staging', role: 'mod', at: 5 }));
        });
        const refs = async (query: { app?: string; role?: string; offset?: number }) => {
          const page = await store.listAudit({ offset: 0, limit: 2, ...query });
          return { refs: page.records.map((r) => r.ref), total: page.total };
        };

        it('narrows to one app, paging and counting within it', async () => {
          expect(await refs({ app: 'prod' })).toEqual({ refs: ['p3', 'p2'], total: 3 });
          expect(await refs({ app: 'prod', offset: 2 })).toEqual({ refs: ['p1'], total: 3 });
          expect(await refs({ app: 'staging' })).toEqual({ refs: ['s2', 's1'], total: 2 });
          expect(await refs({ app: 'nowhere' })).toEqual({ refs: [], total: 0 });
        });

        it('narrows to one role of one app', async () => {
          expect(await refs({ app: 'prod', role: 'admin' })).toEqual({
            refs: ['p3', 'p1'],
            total: 2,
          });
          expect(await refs({ app: 'staging', role: 'admin' })).toEqual({ refs: ['s1'], total: 1 });
          expect(await refs({ app: 'staging', role: 'nobody' })).toEqual({ refs: [], total: 0 });
        });

        it('lists one role across apps, and every app without a filter', async () => {
          expect(await refs({ role: 'admin', offset: 1 })).toEqual({
            refs: ['s1', 'p1'],
            total: 3,
          });
          expect(await refs({})).toEqual({ refs: ['s2', 'p3'], total: 5 });
        });

        it('reads each record with its app', async () => {
          const page = await store.listAudit({ offset: 0, limit: 10 });
          expect(page.records.map((r) => [r.ref, r.app])).toEqual([
            ['s2', 'staging'],
            ['p3', 'prod'],
            ['p2', 'prod'],
            ['s1', 'staging'],
            ['p1', 'prod'],
          ]);
        });
      });
    });

    describe('audit posts', () => {
      const refs = (list: AuditPost[]) => list.map((p) => p.record.ref);
      const keptPost = (r: AuditRecord, channel = 'C0AUDIT'): AuditPost => ({
        record: r,
        channel,
        attempts: 0,
        dueAt: r.at,
      });

      it('keeps the post of a record appended with a channel, due at its time, and no other', async () => {
        const posted = record({ ref: 'p', at: 10, serviceMessage: 'sendMessage: updated' });
        await store.appendAudit(posted, 'C0AUDIT');
        await store.appendAudit(record({ ref: 'q', at: 11 }));
        expect(await store.listAuditPosts(11)).toStrictEqual([keptPost(posted)]);
        // Due before `before`: not yet at its own time.
        expect(await store.listAuditPosts(10)).toEqual([]);
        expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(2);
      });

      it('keeps no post for a record whose ref is stored already', async () => {
        await store.appendAudit(record({ ref: 'dup', at: 10 }));
        await store.appendAudit(record({ ref: 'dup', at: 20 }), 'C0AUDIT');
        await store.appendAudit(record({ ref: 'twice', at: 30 }), 'C0AUDIT');
        await store.appendAudit(record({ ref: 'twice', at: 40, outcome: 'failed' }), 'C0OTHER');
        expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toStrictEqual([
          keptPost(record({ ref: 'twice', at: 30 })),
        ]);
      });

      it('keeps one post when the same ref is appended concurrently', async () => {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.appendAudit(record({ ref: 'same', at: i }), `C0AUDIT${i}`),
          ),
        );
        const posts = await store.listAuditPosts(Number.MAX_SAFE_INTEGER);
        expect(posts).toHaveLength(1);
        const { records } = await store.listAudit({ offset: 0, limit: 1 });
        // The post is the record that stayed's, to the channel it was appended with.
        expect(posts[0]?.record).toStrictEqual(records[0]);
        expect(posts[0]?.channel).toBe(`C0AUDIT${records[0]?.at}`);
      });

      it('lists the earliest due first, then by ref, at most the limit', async () => {
        const count = AUDIT_POSTS_LIMIT + 10;
        const all = Array.from({ length: count }, (_, i) => `r-${String(i).padStart(3, '0')}`);
        for (const [i, ref] of [...all.entries()].reverse()) {
          await store.appendAudit(record({ ref, at: 1_000 + Math.floor(i / 2) }), 'C0AUDIT');
        }
        expect(refs(await store.listAuditPosts(Number.MAX_SAFE_INTEGER))).toEqual(
          all.slice(0, AUDIT_POSTS_LIMIT),
        );
        expect(refs(await store.listAuditPosts(1_002))).toEqual(all.slice(0, 4));
      });

      it('replaces a kept post when it is delayed, and lists it by its new time', async () => {
        const a = keptPost(record({ ref: 'a', at: 10 }));
        const b = keptPost(record({ ref: 'b', at: 20 }));
        await store.appendAudit(a.record, 'C0AUDIT');
        await store.appendAudit(b.record, 'C0AUDIT');
        const delayed = { ...a, attempts: 3, dueAt: 500 };
        await store.updateAuditPost(delayed);
        expect(await store.listAuditPosts(100)).toStrictEqual([b]);
        expect(await store.listAuditPosts(501)).toStrictEqual([b, delayed]);
      });

      it('removes a post for good: a delay of it afterwards brings nothing back', async () => {
        const a = keptPost(record({ ref: 'a', at: 10 }));
        await store.appendAudit(a.record, 'C0AUDIT');
        await store.removeAuditPost('a');
        await store.updateAuditPost({ ...a, attempts: 1, dueAt: 20 });
        expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
        await expect(store.removeAuditPost('a')).resolves.toBeUndefined();
        await expect(store.removeAuditPost('never-kept')).resolves.toBeUndefined();
        // The record itself stays.
        expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(1);
      });

      it('is not changed by mutating what was passed in or read out', async () => {
        const r = record({ ref: 'm', at: 1 });
        await store.appendAudit(r, 'C0AUDIT');
        r.role = 'changed';
        const [read] = await store.listAuditPosts(2);
        if (read) read.record.role = 'changed too';
        expect((await store.listAuditPosts(2))[0]?.record.role).toBe('moderator');
      });
    });

    describe('subscriptions', () => {
      const ids = (list: Subscription[]) => list.map((s) => s.id);

      it('keeps a subscription as it was put, every field, and replaces it by id', async () => {
        const calls = subscription('calls-1', {
          app: 'prod',
          filters: ['status:unanswered', 'type:video', 'cometchat-uid-1'],
        });
        const digest = subscription('digest-1', {
          kind: 'digest',
          filters: [],
          at: { time: '09:30', zone: 'Europe/Paris' },
          createdAt: calls.createdAt + 1,
        });
        await store.putSubscription(calls);
        await store.putSubscription(digest);
        expect(await store.listSubscriptions({})).toStrictEqual([calls, digest]);

        // Replaced by id: its app, channel and time go with it, and it is listed only there.
        const moved = subscription('calls-1', {
          app: 'staging',
          channel: 'C0OTHER',
          kind: 'recordings',
          createdAt: digest.createdAt + 1,
        });
        await store.putSubscription(moved);
        expect(await store.listSubscriptions({})).toStrictEqual([digest, moved]);
        expect(await store.listSubscriptions({ app: 'prod' })).toEqual([]);
        expect(await store.listSubscriptions({ channel: calls.channel })).toStrictEqual([digest]);
        expect(await store.listSubscriptions({ app: 'staging', channel: 'C0OTHER' })).toStrictEqual(
          [moved],
        );
      });

      it('lists oldest first, narrowed to an app, a channel, or both', async () => {
        const made = [
          subscription('s3', { app: 'prod', channel: 'C1', createdAt: 30 }),
          subscription('s1', { app: 'prod', channel: 'C2', createdAt: 10 }),
          subscription('s5', { app: 'staging', channel: 'C1', createdAt: 50 }),
          subscription('s2', { app: 'staging', channel: 'C2', createdAt: 20 }),
          subscription('s4', { app: 'prod', channel: 'C1', createdAt: 40 }),
        ];
        for (const s of made) await store.putSubscription(s);
        const listed = async (query: { app?: string; channel?: string }) =>
          ids(await store.listSubscriptions(query));
        expect(await listed({})).toEqual(['s1', 's2', 's3', 's4', 's5']);
        expect(await listed({ app: 'prod' })).toEqual(['s1', 's3', 's4']);
        expect(await listed({ app: 'staging' })).toEqual(['s2', 's5']);
        expect(await listed({ channel: 'C1' })).toEqual(['s3', 's4', 's5']);
        expect(await listed({ channel: 'C2' })).toEqual(['s1', 's2']);
        expect(await listed({ app: 'prod', channel: 'C1' })).toEqual(['s3', 's4']);
        expect(await listed({ app: 'staging', channel: 'C2' })).toEqual(['s2']);
        expect(await listed({ app: 'nowhere' })).toEqual([]);
        expect(await listed({ channel: 'C0NONE' })).toEqual([]);
        expect(await listed({ app: 'staging', channel: 'C0NONE' })).toEqual([]);
      });

      it('orders subscriptions made at the same time by id', async () => {
        for (const id of ['b', 'c', 'a']) await store.putSubscription(subscription(id));
        expect(ids(await store.listSubscriptions({}))).toEqual(['a', 'b', 'c']);
        expect(ids(await store.listSubscriptions({ app: DEFAULT_APP }))).toEqual(['a', 'b', 'c']);
      });

      it('removes a subscription: true once, then false, and listed nowhere', async () => {
        await store.putSubscription(subscription('keep', { app: 'prod', createdAt: 1 }));
        await store.putSubscription(subscription('gone', { app: 'prod', createdAt: 2 }));
        expect(await store.removeSubscription('gone')).toBe(true);
        expect(await store.removeSubscription('gone')).toBe(false);
        expect(await store.removeSubscription('never-made')).toBe(false);
        for (const query of [{}, { app: 'prod' }, { channel: 'C0ALERTS' }]) {
          expect(ids(await store.listSubscriptions(query))).toEqual(['keep']);
        }
        // An id removed can be used again.
        await store.putSubscription(subscription('gone', { app: 'staging', createdAt: 3 }));
        expect(ids(await store.listSubscriptions({ app: 'staging' }))).toEqual(['gone']);
      });

      it('keeps one subscription of an id put and removed concurrently', async () => {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.putSubscription(subscription('raced', { channel: `C${i % 4}`, createdAt: i })),
          ),
        );
        const [kept, ...more] = await store.listSubscriptions({});
        expect(more).toEqual([]);
        const channels = ['C0', 'C1', 'C2', 'C3'];
        const byChannel = await Promise.all(
          channels.map((channel) => store.listSubscriptions({ channel })),
        );
        expect(byChannel.flat()).toEqual([kept]);
        const removed = await Promise.all(
          Array.from({ length: 10 }, () => store.removeSubscription('raced')),
        );
        expect(removed.filter(Boolean)).toHaveLength(1);
        expect(await store.listSubscriptions({})).toEqual([]);
      });

      it('is not changed by mutating what was passed in or read out', async () => {
        const s = subscription('m', { filters: ['recorded'] });
        await store.putSubscription(s);
        s.filters.push('type:audio');
        const [read] = await store.listSubscriptions({});
        read?.filters.push('to:group');
        expect((await store.listSubscriptions({}))[0]?.filters).toEqual(['recorded']);
      });

      it('lists the subscriptions of some channels: theirs only, by channel then oldest first', async () => {
        const made = [
          subscription('s3', { app: 'prod', channel: 'C2', createdAt: 30 }),
          subscription('s1', { app: 'staging', channel: 'C2', createdAt: 10 }),
          subscription('s4', { app: 'prod', channel: 'C1', createdAt: 40 }),
          subscription('s2', { app: 'prod', channel: 'C3', createdAt: 20 }),
          subscription('s0', { app: 'prod', channel: 'C1', createdAt: 40 }),
        ];
        for (const s of made) await store.putSubscription(s);
        const listed = await store.listSubscriptionsIn(['C2', 'C0NONE', 'C1', 'C2']);
        // Each listed once, whole; by channel, then by time, then by id.
        expect(ids(listed)).toEqual(['s0', 's4', 's1', 's3']);
        expect(listed[2]).toStrictEqual(made[1]);
        expect(ids(await store.listSubscriptionsIn(['C3']))).toEqual(['s2']);
        expect(await store.listSubscriptionsIn(['C0NONE'])).toEqual([]);
        expect(await store.listSubscriptionsIn([])).toEqual([]);
        // A subscription moved to another channel, or removed, is listed where it is now.
        await store.putSubscription(subscription('s2', { channel: 'C1', createdAt: 20 }));
        await store.removeSubscription('s4');
        expect(ids(await store.listSubscriptionsIn(['C1', 'C3']))).toEqual(['s2', 's0']);
      });

      it('counts every subscription kept: a replaced one once, a removed one no more', async () => {
        expect(await store.countSubscriptions()).toBe(0);
        await store.putSubscription(subscription('a', { channel: 'C1' }));
        await store.putSubscription(subscription('b', { channel: 'C1', app: 'prod' }));
        await store.putSubscription(subscription('c', { channel: 'C2' }));
        expect(await store.countSubscriptions()).toBe(3);
        await store.putSubscription(subscription('a', { channel: 'C3', kind: 'recordings' }));
        expect(await store.countSubscriptions()).toBe(3);
        await store.removeSubscription('b');
        await store.removeSubscription('b');
        await store.removeSubscription('never-made');
        expect(await store.countSubscriptions()).toBe(2);
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            i % 2 === 0
              ? store.putSubscription(subscription(`r${i % 3}`, { createdAt: i }))
              : store.removeSubscription(`r${i % 3}`),
          ),
        );
        expect(await store.countSubscriptions()).toBe((await store.listSubscriptions({})).length);
      });
    });

    describe('webhook events', () => {
      const ids = (list: WebhookEvent[]) => list.map((e) => e.id);
      /** Keeps `event` under a claim of a minute, and says it was kept. */
      const keep = async (event: WebhookEvent) => {
        expect(await store.keepWebhookEvent(event, 60)).toBe(true);
      };

      it('lists events received before a time, oldest first, as they were put', async () => {
        const e2 = webhookEvent('e2', 20, {
          trigger: 'call_ended',
          data: { sessionId: 'v1.us.abc', occupants: ['Ana', 'Bo'], durationSeconds: 0 },
          note: 'ünïcode ✓',
        });
        await keep(webhookEvent('e3', 30));
        await keep(webhookEvent('e1', 10));
        await keep(e2);
        expect(ids(await store.listWebhookEvents(25))).toEqual(['e1', 'e2']);
        expect(await store.listWebhookEvents(21)).toStrictEqual([webhookEvent('e1', 10), e2]);
        expect(await store.listWebhookEvents(10)).toEqual([]);
        expect(ids(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER))).toEqual([
          'e1',
          'e2',
          'e3',
        ]);
      });

      it('orders events received at the same time by id', async () => {
        for (const id of ['b', 'c', 'a']) await keep(webhookEvent(id, 5));
        expect(ids(await store.listWebhookEvents(6))).toEqual(['a', 'b', 'c']);
      });

      it(`lists at most ${WEBHOOK_EVENTS_LIMIT}, the oldest`, async () => {
        const count = WEBHOOK_EVENTS_LIMIT + 30;
        const all = Array.from({ length: count }, (_, i) => `ev-${String(i).padStart(3, '0')}`);
        // Put newest first, so that the order listed is the store's, not the order put.
        for (const [i, id] of [...all.entries()].reverse()) {
          await keep(webhookEvent(id, 1_000 + i));
        }
        expect(ids(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER))).toEqual(
          all.slice(0, WEBHOOK_EVENTS_LIMIT),
        );
        for (const id of all.slice(0, 50)) await store.removeWebhookEvent(id);
        expect(ids(await store.listWebhookEvents(Number.MAX_SAFE_INTEGER))).toEqual(all.slice(50));
        expect(ids(await store.listWebhookEvents(1_000 + 52))).toEqual(all.slice(50, 52));
      });

      it('keeps an event once: the same id again changes nothing while its claim is held', async () => {
        await keep(webhookEvent('e', 10, { first: true }));
        expect(await store.keepWebhookEvent(webhookEvent('e', 40, { second: true }), 60)).toBe(
          false,
        );
        expect(await store.listWebhookEvents(50)).toStrictEqual([
          webhookEvent('e', 10, { first: true }),
        ]);
        // The claim is the one every other claim shares the store with, under its own id.
        expect(await store.claim(webhookClaimId('e'), 60)).toBe(false);
        expect(await store.claim('e', 60)).toBe(true);
      });

      it('removes an event: once gone, listed no more, and its claim still held', async () => {
        await keep(webhookEvent('e', 10));
        await store.removeWebhookEvent('e');
        expect(await store.listWebhookEvents(50)).toEqual([]);
        // Handled is not forgotten: a late retry of the same delivery is still refused.
        expect(await store.keepWebhookEvent(webhookEvent('e', 20), 60)).toBe(false);
        expect(await store.listWebhookEvents(50)).toEqual([]);
        await expect(store.removeWebhookEvent('e')).resolves.toBeUndefined();
        await expect(store.removeWebhookEvent('never-stored')).resolves.toBeUndefined();
      });

      it('keeps an event again once its claim has expired', async () => {
        expect(await store.keepWebhookEvent(webhookEvent('x', 10, { first: true }), 1)).toBe(true);
        await store.removeWebhookEvent('x');
        const again = () => store.keepWebhookEvent(webhookEvent('x', 20, { again: true }), 1);
        if (subject.advance) {
          subject.advance(999);
          expect(await again()).toBe(false);
          subject.advance(1);
          expect(await again()).toBe(true);
        } else {
          // Redis expires the claim on its own clock: ask until the event is kept again.
          await vi.waitFor(async () => expect(await again()).toBe(true), {
            timeout: 5_000,
            interval: 50,
          });
        }
        expect((await store.listWebhookEvents(50)).map((e) => e.body)).toEqual([{ again: true }]);
      });

      it('keeps one of 20 concurrent deliveries of one event', async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.keepWebhookEvent(webhookEvent('raced', 10, { delivery: i }), 60),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.listWebhookEvents(50)).toHaveLength(1);
      });

      it('is not changed by mutating what was passed in or read out', async () => {
        const body = { data: { status: 'ended' } };
        await keep(webhookEvent('m', 1, body));
        body.data.status = 'changed';
        const [read] = await store.listWebhookEvents(2);
        if (typeof read?.body === 'object' && read.body !== null) {
          Object.assign(read.body, { data: 'changed too' });
        }
        expect((await store.listWebhookEvents(2))[0]?.body).toEqual({ data: { status: 'ended' } });
      });
    });
    describe('audit export and retention', () => {
      const T = 1_700_000_000_000;
      // Two records share a time, so that the keyset's `ref` decides between them.
      const trail = [
        record({ ref: 'r-b', at: T + 1_000 }),
        record({ ref: 'r-a', at: T + 1_000, role: 'vip' }),
        record({ ref: 'r-c', at: T + 2_000, subject: { kind: 'user', uid: 'alice' } }),
        record({ ref: 'r-d', at: T + 3_000 }),
        record({ ref: 'r-e', at: T + 4_000, app: 'staging' }),
        record({ ref: 'r-f', at: T + 5_000 }),
      ];
      beforeEach(async () => {
        for (const r of trail) await store.appendAudit(r, 'C0AUDIT');
      });

      /** Every page of `app`'s records in [from, to), `limit` at a time, as listAuditBetween gives them. */
      async function pages(app: string, from: number, to: number, limit: number) {
        const read: AuditRecord[][] = [];
        let after: AuditRecord | undefined;
        for (;;) {
          const page = await store.listAuditBetween({ app, from, to, after, limit });
          if (page.length === 0) return read;
          read.push(page);
          after = page.at(-1);
        }
      }

      it("lists one app's records in a range, oldest first, then by ref, page by page", async () => {
        const read = await pages(DEFAULT_APP, T + 1_000, T + 5_000, 2);
        expect(read.map((page) => page.map((r) => r.ref))).toEqual([
          ['r-a', 'r-b'],
          ['r-c', 'r-d'],
        ]);
        expect(read[1]?.[0]).toEqual(trail[2]);
        expect((await pages('staging', T, T + 10_000, 10)).flat().map((r) => r.ref)).toEqual([
          'r-e',
        ]);
        expect(await pages(DEFAULT_APP, T + 6_000, T + 9_000, 10)).toEqual([]);
      });

      it('goes on after a keyset between two records of one time', async () => {
        const next = await store.listAuditBetween({
          app: DEFAULT_APP,
          from: T,
          to: T + 10_000,
          after: { at: T + 1_000, ref: 'r-a' },
          limit: 2,
        });
        expect(next.map((r) => r.ref)).toEqual(['r-b', 'r-c']);
      });

      it('prunes exactly the records before the cut-off, of every app, and their posts', async () => {
        const removed = await store.pruneAudit(T + 4_000);
        expect(removed).toEqual(new Map([[DEFAULT_APP, 4]]));
        const left = await store.listAudit({ offset: 0, limit: 10 });
        expect(left.records.map((r) => r.ref)).toEqual(['r-f', 'r-e']);
        expect(left.total).toBe(2);
        expect((await store.listAudit({ app: DEFAULT_APP, offset: 0, limit: 10 })).total).toBe(1);
        expect((await store.listAudit({ role: 'vip', offset: 0, limit: 10 })).total).toBe(0);
        expect((await store.listAudit({ role: 'moderator', offset: 0, limit: 10 })).total).toBe(2);
        expect(await store.getAudit('r-d')).toBeUndefined();
        expect(await store.getAudit('r-e')).toEqual(trail[4]);
        expect((await store.listAuditPosts(T + 10_000)).map((p) => p.record.ref)).toEqual([
          'r-e',
          'r-f',
        ]);
        expect(await store.pruneAudit(T + 4_000)).toEqual(new Map());
      });

      it('prunes nothing before the oldest record', async () => {
        expect(await store.pruneAudit(T + 1_000)).toEqual(new Map());
        expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(trail.length);
      });
    });
  });

  if (!openV1) return;
  describe(`${name} store on state written by version 1`, () => {
    let v1: Store;
    beforeEach(async () => {
      v1 = await openV1();
    });
    afterEach(async () => {
      await v1.close();
    });

    it('reads its known permissions as the default app, and of no other', async () => {
      for (const role of V1_KNOWN_ROLES) {
        // Strictly: version 1 stored no reference, and none is made up.
        expect(await v1.getKnownPermissions(DEFAULT_APP, role)).toStrictEqual(v1Known(role));
        expect(await v1.getKnownPermissions('staging', role)).toBeUndefined();
      }
    });

    it('lists its audit records, which have no app, as the default app', async () => {
      const all = v1Audit();
      const page = (records: AuditRecord[]) => ({ records, total: records.length });
      expect(await v1.listAudit({ offset: 0, limit: 10 })).toEqual(page(all));
      expect(await v1.listAudit({ app: DEFAULT_APP, offset: 0, limit: 10 })).toEqual(page(all));
      expect(await v1.listAudit({ app: 'staging', offset: 0, limit: 10 })).toEqual(page([]));
      for (const role of V1_KNOWN_ROLES) {
        expect(await v1.listAudit({ app: DEFAULT_APP, role, offset: 0, limit: 10 })).toEqual(
          page(v1Audit(role)),
        );
        expect(await v1.listAudit({ role, offset: 0, limit: 10 })).toEqual(page(v1Audit(role)));
      }
      expect(await v1.listAudit({ app: DEFAULT_APP, offset: 1, limit: 2 })).toEqual({
        records: all.slice(1, 3),
        total: all.length,
      });
    });

    it('still holds the claims it took', async () => {
      for (const { id } of V1_CLAIMS) expect(await v1.claim(id, 60)).toBe(false);
      expect(await v1.claim('taken-after-the-upgrade', 60)).toBe(true);
    });

    it('keeps what another app writes apart from it', async () => {
      const role = 'moderator';
      const staging = { app: 'staging', role, permissions: { x: 'deny' }, seenAt: 9 };
      await v1.setKnownPermissions(staging);
      await v1.appendAudit(record({ ref: 'staging-1', app: 'staging', role, at: 9e12 }));
      expect(await v1.getKnownPermissions(DEFAULT_APP, role)).toEqual(v1Known(role));
      expect(await v1.getKnownPermissions('staging', role)).toEqual(staging);
      const listed = async (query: { app?: string; role?: string }) =>
        (await v1.listAudit({ offset: 0, limit: 10, ...query })).records.map((r) => r.ref);
      const v1Refs = (forRole?: string) => v1Audit(forRole).map((r) => r.ref);
      expect(await listed({ app: DEFAULT_APP })).toEqual(v1Refs());
      expect(await listed({ app: DEFAULT_APP, role })).toEqual(v1Refs(role));
      expect(await listed({ app: 'staging' })).toEqual(['staging-1']);
      expect(await listed({})).toEqual(['staging-1', ...v1Refs()]);
      expect(await listed({ role })).toEqual(['staging-1', ...v1Refs(role)]);
    });

    it('lists a new record of the default app among its own', async () => {
      const role = 'moderator';
      await v1.appendAudit(record({ ref: 'after-upgrade', role, at: 9e12 }));
      await v1.setKnownPermissions({ app: DEFAULT_APP, role, permissions: {}, seenAt: 9e12 });
      expect(await v1.getKnownPermissions(DEFAULT_APP, role)).toMatchObject({ seenAt: 9e12 });
      const page = await v1.listAudit({ app: DEFAULT_APP, role, offset: 0, limit: 10 });
      expect(page.records.map((r) => r.ref)).toEqual([
        'after-upgrade',
        ...v1Audit(role).map((r) => r.ref),
      ]);
    });
  });
}

function record(overrides: Partial<AuditRecord> & { ref: string }): AuditRecord {
  return {
    at: 1_700_000_000_000,
    app: DEFAULT_APP,
    teamId: 'T1',
    userId: 'U1',
    role: 'moderator',
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    beforeSource: 'last-update',
    outcome: 'applied',
    ...overrides,
  };
}

function subscription(id: string, overrides: Partial<Subscription> = {}): Subscription {
  return {
    id,
    app: DEFAULT_APP,
    channel: 'C0ALERTS',
    kind: 'calls',
    filters: ['status:unanswered'],
    createdBy: 'U0OPERATOR',
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

function webhookEvent(id: string, receivedAt: number, body: unknown = { id }): WebhookEvent {
  return { id, app: 'prod', trigger: 'call_ended', receivedAt, body };
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
  describeStoreContract(
    'sqlite',
    async () => {
      const clock = fakeClock();
      return {
        store: createSqliteStore(join(dir, `${randomUUID()}.sqlite`), clock.now),
        advance: clock.advance,
      };
    },
    async () => {
      const copy = await mkdtemp(join(dir, 'v1-'));
      // A minute after version 1 wrote the file: its day-long claims are still held.
      return createSqliteStore(copyV1SqliteFile(copy), () => V1_WRITTEN_AT + 60_000);
    },
  );
});

describe.skipIf(skipRedisSuites)('redis', { tags: ['redis'] }, () => {
  const server = useRedisServer();
  describeStoreContract(
    'redis',
    async () => ({
      // A prefix per test gives each one an empty store on the shared server.
      store: await createRedisStore(server().url, { keyPrefix: `test:${randomUUID()}:` }),
    }),
    async () => {
      const keyPrefix = `v1:${randomUUID()}:`;
      await loadV1Redis(server().url, keyPrefix);
      return createRedisStore(server().url, { keyPrefix });
    },
  );
});
