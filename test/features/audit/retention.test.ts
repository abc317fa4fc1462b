import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { AuditTrail } from '../../../src/changes/index.ts';
import { auditPost } from '../../../src/features/audit/audit-view.ts';
import {
  KEEP_ALIVE_MS,
  pruneTrail,
  RETENTION_REQUESTER,
} from '../../../src/features/audit/retention.ts';
import { asJob } from '../../../src/features/job.ts';
import { createLogger } from '../../../src/log.ts';
import { createRedisStore } from '../../../src/store/redis-store.ts';
import { type AuditRecord, createMemoryStore, type Store } from '../../../src/store/store.ts';
import { LogCapture } from '../../log-capture.ts';
import { skipRedisSuites, useRedisServer } from '../../store/redis-server.ts';

const DAY = 86_400_000;
const APPS = ['prod', 'staging'];
const NOW = Date.UTC(2026, 10, 29, 3);

const record = (ref: string, at: number, app = 'prod'): AuditRecord => ({
  ref,
  at,
  app,
  teamId: 'T1',
  userId: 'U1',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'last-update',
  outcome: 'applied',
});

/** A replica's prune: its own trail over the shared store, the job as the audit feature runs it. */
function replica(store: Store, days: number | undefined, logs = new LogCapture()) {
  const audit: AuditTrail = {
    async record(r) {
      await store.appendAudit(r);
      return { stored: true };
    },
  };
  const log = createLogger({ level: 'debug', destination: logs });
  return () =>
    asJob(log, { task: 'audit-retention' }, (jobLog) =>
      pruneTrail({ store, audit, now: () => NOW, days, appNames: APPS, log: jobLog }),
    );
}

async function seed(store: Store) {
  // 30 days is the setting: the cut-off is exactly NOW - 30 days.
  const cut = NOW - 30 * DAY;
  for (const r of [
    record('older', cut - 1),
    record('older-staging', cut - DAY, 'staging'),
    record('at-cut', cut),
    record('newer', cut + 1),
  ]) {
    await store.appendAudit(r);
  }
}

const refs = async (store: Store) =>
  (await store.listAudit({ offset: 0, limit: 100 })).records.map((r) => r.ref);

describe('the audit retention', () => {
  it('removes exactly the records older than the setting, and records it per app', async () => {
    const store = createMemoryStore(() => NOW);
    await seed(store);
    const logs = new LogCapture();
    expect(await replica(store, 30, logs)()).toBe(2);
    const left = (await store.listAudit({ offset: 0, limit: 100 })).records;
    expect(left.filter((r) => r.subject?.kind !== 'retention').map((r) => r.ref)).toEqual([
      'newer',
      'at-cut',
    ]);
    const kept = left.filter((r) => r.subject?.kind === 'retention');
    expect(kept.map((r) => [r.app, r.subject, r.userId, r.at])).toEqual(
      expect.arrayContaining([
        [
          'prod',
          { kind: 'retention', before: NOW - 30 * DAY, days: 30, removed: 1 },
          RETENTION_REQUESTER,
          NOW,
        ],
        [
          'staging',
          { kind: 'retention', before: NOW - 30 * DAY, days: 30, removed: 1 },
          RETENTION_REQUESTER,
          NOW,
        ],
      ]),
    );
    expect(kept).toHaveLength(2);
    // The audit channel's post says what went, and offers no revert.
    const post = auditPost(kept[0] ?? record('x', 0), () => 'signed');
    expect(JSON.stringify(post.blocks)).toContain('1 audit record before');
    expect(JSON.stringify(post.blocks)).not.toContain('Revert');
    expect(
      logs.records().some((r) => r.message === 'audit records older than 30 days removed: 2'),
    ).toBe(true);
  });

  it('keeps a pending record of each app before removing anything, for a prune that stops', async () => {
    const store = createMemoryStore(() => NOW);
    await seed(store);
    // The store fails in the middle of the prune, as a stop would leave it.
    const failing: Store = {
      ...store,
      pruneAudit: async () => {
        throw new Error('connection lost');
      },
    };
    await expect(replica(failing, 30)()).rejects.toThrow('connection lost');
    const pending = await store.listPending(Number.MAX_SAFE_INTEGER);
    expect(pending.map((r) => [r.app, r.outcome, r.subject]).sort()).toEqual([
      ['prod', 'unknown', { kind: 'retention', before: NOW - 30 * DAY, days: 30 }],
      ['staging', 'unknown', { kind: 'retention', before: NOW - 30 * DAY, days: 30 }],
    ]);
    // What the pending-record sweep records of it says records may have gone.
    const post = auditPost(pending[0] ?? record('x', 0), () => 'signed');
    expect(JSON.stringify(post.blocks)).toContain('Audit records before');
    // The day's claim was let go: the next minute prunes, and its records replace the pending.
    expect(await replica(store, 30)()).toBe(2);
    expect(await store.listPending(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('stores its pending records again while a long prune goes on', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const store = createMemoryStore(() => NOW);
      await seed(store);
      let finish: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        finish = resolve;
      });
      let clock = NOW;
      const slow: Store = {
        ...store,
        pruneAudit: async (before) => {
          await held;
          return store.pruneAudit(before);
        },
      };
      const audit: AuditTrail = {
        async record(r) {
          await store.appendAudit(r);
          return { stored: true };
        },
      };
      const log = createLogger({ level: 'silent' });
      const done = asJob(log, { task: 'audit-retention' }, (jobLog) =>
        pruneTrail({ store: slow, audit, now: () => clock, days: 30, appNames: APPS, log: jobLog }),
      );
      await vi.waitFor(async () => {
        expect(await store.listPending(Number.MAX_SAFE_INTEGER)).toHaveLength(2);
      });
      clock = NOW + 60_000;
      await vi.advanceTimersByTimeAsync(KEEP_ALIVE_MS);
      // A sweep now finds nothing a stopped replica left: the records say they are alive.
      expect(await store.listPending(NOW + 30_000)).toEqual([]);
      finish();
      expect(await done).toBe(2);
      expect(await store.listPending(Number.MAX_SAFE_INTEGER)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('removes nothing when the setting is unset', async () => {
    const store = createMemoryStore(() => NOW);
    await seed(store);
    expect(await replica(store, undefined)()).toBe(0);
    expect(await refs(store)).toHaveLength(4);
  });

  it('prunes once a day with two replicas on one store', async () => {
    const store = createMemoryStore(() => NOW);
    await seed(store);
    const results = await Promise.all([replica(store, 30)(), replica(store, 30)()]);
    expect(results.sort()).toEqual([0, 2]);
    // Later that day, another run does nothing: an older record written meanwhile stays.
    await store.appendAudit(record('late', NOW - 40 * DAY));
    expect(await replica(store, 30)()).toBe(0);
    expect(await refs(store)).toContain('late');
  });
});

describe.skipIf(skipRedisSuites)('the audit retention on Redis', { tags: ['redis'] }, () => {
  const server = useRedisServer();

  it('prunes once with two replicas, each its own connection to one server', async () => {
    const keyPrefix = `retention:${randomUUID()}:`;
    const [a, b] = await Promise.all([
      createRedisStore(server().url, { keyPrefix }),
      createRedisStore(server().url, { keyPrefix }),
    ]);
    try {
      await seed(a);
      const results = await Promise.all([replica(a, 30)(), replica(b, 30)()]);
      expect(results.sort()).toEqual([0, 2]);
      const left = await refs(b);
      expect(left.filter((ref) => !ref.includes('-'))).toEqual(['newer']);
      expect(left).toContain('at-cut');
      expect(left).not.toContain('older');
      expect(left.filter((ref) => /-(prod|staging)$/.test(ref))).toHaveLength(2);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
