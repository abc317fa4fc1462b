import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/store/redis-store.ts';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from './redis-server.ts';

// The revision of each moderation rule the app last saw (the rules' daily check), alike on
// every backend; and a file an earlier version wrote gains the table.

function describeSeenRevisions(name: string, make: () => Promise<Store>): void {
  describe(`${name}: seen rule revisions`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    it('has none for an app never checked', async () => {
      expect(await store.getSeenRevisions('prod')).toEqual(new Map());
    });

    it('keeps the last revision per rule, and apps apart', async () => {
      const seen = { app: 'prod', rule: 'no-links', revisionId: 'a_no-links_1', seenAt: 1 };
      await store.setSeenRevision(seen);
      await store.setSeenRevision({ ...seen, rule: 'profanity', revisionId: 'a_profanity_3' });
      await store.setSeenRevision({ ...seen, revisionId: 'a_no-links_2', seenAt: 2 });
      await store.setSeenRevision({ ...seen, app: 'staging', revisionId: 'b_no-links_9' });
      const prod = await store.getSeenRevisions('prod');
      expect(prod.get('no-links')).toEqual({ ...seen, revisionId: 'a_no-links_2', seenAt: 2 });
      expect(prod.get('profanity')?.revisionId).toBe('a_profanity_3');
      expect(prod.size).toBe(2);
      expect([...(await store.getSeenRevisions('staging')).values()]).toEqual([
        { ...seen, app: 'staging', revisionId: 'b_no-links_9' },
      ]);
    });
  });
}

describeSeenRevisions('memory', async () => createMemoryStore());

describe('sqlite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'seen-revisions-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  describeSeenRevisions('sqlite', async () =>
    createSqliteStore(join(dir, `${randomUUID()}.sqlite`)),
  );

  it('adds the table to a file version 10 wrote, keeping what it had', async () => {
    const path = join(dir, 'v10.sqlite');
    const first = createSqliteStore(path);
    await first.setKnownPermissions({ app: 'prod', role: 'mod', permissions: {}, seenAt: 1 });
    await first.close();
    const db = new DatabaseSync(path);
    db.exec('DROP TABLE seen_revisions');
    db.exec('PRAGMA user_version = 10');
    db.close();
    const after = createSqliteStore(path);
    expect(await after.getKnownPermissions('prod', 'mod')).toMatchObject({ seenAt: 1 });
    await after.setSeenRevision({ app: 'prod', rule: 'r1', revisionId: 'x_r1_2', seenAt: 3 });
    expect((await after.getSeenRevisions('prod')).get('r1')?.revisionId).toBe('x_r1_2');
    await after.close();
    const check = new DatabaseSync(path, { readOnly: true });
    expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: 12 });
    check.close();
  });
});

describe("an audit record's steps", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'steps-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('are added to a file version 11 wrote, keeping its records', async () => {
    const path = join(dir, 'v11.sqlite');
    const first = createSqliteStore(path);
    const old = {
      ref: 'r-old',
      at: 1,
      app: 'prod',
      teamId: 'T1',
      userId: 'U1',
      role: 'vip',
      changes: [{ key: 'role', before: 'default', after: 'vip', explicit: false }],
      beforeSource: 'service' as const,
      outcome: 'applied' as const,
    };
    await first.appendAudit(old);
    await first.close();
    const db = new DatabaseSync(path);
    db.exec('ALTER TABLE audit_records DROP COLUMN steps');
    db.exec('PRAGMA user_version = 11');
    db.close();
    const after = createSqliteStore(path);
    expect(await after.getAudit('r-old')).toEqual(old);
    const steps = [{ key: 'status', outcome: 'applied' as const, message: 'account deactivated' }];
    await after.appendAudit({ ...old, ref: 'r-new', at: 2, steps });
    expect((await after.getAudit('r-new'))?.steps).toEqual(steps);
    await after.close();
    const check = new DatabaseSync(path, { readOnly: true });
    expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: 12 });
    check.close();
  });
});

describe.skipIf(skipRedisSuites)('redis', { tags: ['redis'] }, () => {
  const server = useRedisServer();
  describeSeenRevisions('redis', async () =>
    createRedisStore(server().url, { keyPrefix: `test:${randomUUID()}:` }),
  );
});
