import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import { type AuditRecord, DEFAULT_APP, type Store } from '../../src/store/store.ts';
import { StoreDataError, StoreUnavailableError } from '../../src/store/store-errors.ts';
import { copyV1SqliteFile, V1_KNOWN_ROLES, v1Audit, v1Known } from './version-1-state.ts';

/** The value of a pragma, as `PRAGMA name` reads it. */
const pragma = (db: DatabaseSync, name: string) => db.prepare(`PRAGMA ${name}`).get()?.[name];

/** The first column of every row `sql` reads. */
const column = (db: DatabaseSync, sql: string) =>
  db
    .prepare(sql)
    .all()
    .map((row) => Object.values(row)[0]);

/** The file's tables and indexes, as SQLite records them, and the version it records. */
const layout = (path: string) => {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return {
      version: pragma(db, 'user_version'),
      objects: db
        .prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')
        .all(),
    };
  } finally {
    db.close();
  }
};

/**
 * What version 8 changed: an earlier file has neither audit_posts nor audit_roles, and has the
 * index audit_roles replaced.
 */
const undoVersion8 = (db: DatabaseSync) => {
  db.exec('DROP TABLE audit_posts');
  db.exec('DROP TABLE audit_roles');
  db.exec('CREATE INDEX audit_by_app_role_time ON audit_records (app, role, at)');
};

/** What version 7 added: a file of an earlier version has neither table (nor their indexes). */
const dropVersion7Tables = (db: DatabaseSync) => {
  undoVersion8(db);
  db.exec('DROP TABLE subscriptions');
  db.exec('DROP TABLE webhook_events');
};

const record: AuditRecord = {
  ref: 'ref-1',
  at: 1_700_000_000_000,
  app: 'staging',
  teamId: 'T1',
  userId: 'U1',
  role: 'moderator',
  changes: [{ key: 'pin', before: null, after: ['own'], explicit: true }],
  beforeSource: 'defaults',
  outcome: 'applied',
  serviceMessage: 'pin: updated',
  promotedFrom: 'ref-0',
};

describe('sqlite store', () => {
  let dir: string;
  const open: Store[] = [];
  const openStore = (path: string, now?: () => number) => {
    const store = createSqliteStore(path, now);
    open.push(store);
    return store;
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sqlite-store-'));
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps no claim for an event it could not store, so that the retry is kept', async () => {
    const path = join(dir, 'state.sqlite');
    const store = openStore(path);
    const event = { id: 'e', app: DEFAULT_APP, trigger: 't', receivedAt: 1, body: {} };
    // Every insert of an event fails, as a full disk would fail it, after the claim is taken.
    const db = new DatabaseSync(path);
    db.exec(`CREATE TRIGGER no_events BEFORE INSERT ON webhook_events
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    await expect(store.keepWebhookEvent(event, 60)).rejects.toThrow(/disk full/);
    db.exec('DROP TRIGGER no_events');
    db.close();
    expect(await store.keepWebhookEvent(event, 60)).toBe(true);
    expect(await store.listWebhookEvents(2)).toStrictEqual([event]);
  });

  it('keeps its state across closing and reopening the file', async () => {
    const path = join(dir, 'nested', 'deeper', 'state.sqlite');
    const first = openStore(path);
    const known = { app: 'staging', role: 'mod', permissions: { pin: ['own'] }, seenAt: 5 };
    await first.setKnownPermissions(known);
    expect(await first.claim('confirm-1', 600)).toBe(true);
    await first.appendAudit(record);
    await first.close();

    const second = openStore(path);
    expect(await second.getKnownPermissions('staging', 'mod')).toEqual(known);
    expect(await second.claim('confirm-1', 600)).toBe(false);
    expect(await second.listAudit({ offset: 0, limit: 10 })).toEqual({
      records: [record],
      total: 1,
    });
    await second.appendAudit({ ...record, outcome: 'failed' });
    expect((await second.listAudit({ offset: 0, limit: 10 })).records).toEqual([record]);
  });

  it('refuses every operation, readiness first, once its file is deleted or replaced', async () => {
    for (const replaced of [false, true]) {
      const path = join(dir, `state-${replaced}.sqlite`);
      const store = openStore(path);
      await store.appendAudit(record);
      await store.ping();
      for (const suffix of ['', '-wal', '-shm']) await rm(path + suffix, { force: true });
      // Another file at the same path is not the file the app wrote either.
      if (replaced) await writeFile(path, '');
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toThrow(`the SQLite file ${path} was deleted or replaced`);
      await expect(store.claim('c1', 60)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.putPending(record)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.appendAudit(record)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.listAudit({ offset: 0, limit: 1 })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
    }
  });

  it('lets a claim that expired while closed be taken again', async () => {
    const path = join(dir, 'state.sqlite');
    let time = 1_000_000;
    const first = openStore(path, () => time);
    expect(await first.claim('c', 10)).toBe(true);
    await first.close();
    time += 10_000;
    expect(await openStore(path, () => time).claim('c', 10)).toBe(true);
  });

  it('shares claims between two connections to one file', async () => {
    const path = join(dir, 'shared.sqlite');
    const a = openStore(path);
    const b = openStore(path);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim('one', 60)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    await a.appendAudit(record);
    expect((await b.listAudit({ offset: 0, limit: 1 })).records).toEqual([record]);
  });

  it('writes in WAL mode with the schema version recorded', async () => {
    const path = join(dir, 'wal.sqlite');
    openStore(path);
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      expect(pragma(db, 'journal_mode')).toBe('wal');
      expect(pragma(db, 'user_version')).toBe(12);
    } finally {
      db.close();
    }
  });

  it('adds what version 2 lacks (intents, approvals, three columns), keeping its rows', async () => {
    const path = join(dir, 'v2.sqlite');
    const before = openStore(path);
    await before.setKnownPermissions({ app: 'prod', role: 'mod', permissions: {}, seenAt: 1 });
    await before.close();
    // Version 2's file: the same tables without audit_intents, approvals and the later columns.
    const db = new DatabaseSync(path);
    dropVersion7Tables(db);
    db.exec('DROP TABLE audit_intents');
    db.exec('DROP TABLE approvals');
    db.exec('ALTER TABLE audit_records DROP COLUMN approval');
    db.exec('ALTER TABLE audit_records DROP COLUMN subject');
    db.exec('ALTER TABLE known_permissions DROP COLUMN ref');
    db.exec('PRAGMA user_version = 2');
    db.close();
    const after = openStore(path);
    expect(await after.getKnownPermissions('prod', 'mod')).toMatchObject({ seenAt: 1 });
    await after.putPending({ ...record, ref: 'intent-1', outcome: 'unknown' });
    expect((await after.listPending(Number.MAX_SAFE_INTEGER)).map((r) => r.ref)).toEqual([
      'intent-1',
    ]);
    await after.appendAudit({
      ...record,
      ref: 'approved-1',
      approval: { approvedBy: 'U0LEAD', approvedAt: 2, requestedAt: 1 },
    });
    expect((await after.listAudit({ offset: 0, limit: 1 })).records[0]?.approval).toEqual({
      approvedBy: 'U0LEAD',
      approvedAt: 2,
      requestedAt: 1,
    });
    const check = new DatabaseSync(path, { readOnly: true });
    expect(pragma(check, 'user_version')).toBe(12);
    check.close();
  });

  it('adds the subject column to a file version 4 wrote, keeping its records', async () => {
    const path = join(dir, 'v4.sqlite');
    const before = openStore(path);
    await before.appendAudit(record);
    await before.close();
    const db = new DatabaseSync(path);
    dropVersion7Tables(db);
    db.exec('ALTER TABLE audit_records DROP COLUMN subject');
    db.exec('ALTER TABLE known_permissions DROP COLUMN ref');
    db.exec('PRAGMA user_version = 4');
    db.close();
    const after = openStore(path);
    expect((await after.listAudit({ offset: 0, limit: 10 })).records).toEqual([record]);
    const userChange = {
      ...record,
      ref: 'user-role-1',
      subject: { kind: 'user' as const, uid: 'cometchat-uid-1' },
      changes: [{ key: 'role', before: 'default', after: 'admin', explicit: false }],
    };
    await after.appendAudit(userChange);
    expect((await after.listAudit({ offset: 0, limit: 1 })).records).toEqual([userChange]);
  });

  it('adds the ref column to a file version 5 wrote, keeping its maps and records', async () => {
    const path = join(dir, 'v5.sqlite');
    const before = openStore(path);
    const known = { app: 'staging', role: 'mod', permissions: { pin: ['own'] }, seenAt: 5 };
    await before.setKnownPermissions(known);
    await before.appendAudit(record);
    await before.close();
    const db = new DatabaseSync(path);
    dropVersion7Tables(db);
    db.exec('ALTER TABLE known_permissions DROP COLUMN ref');
    db.exec('PRAGMA user_version = 5');
    db.close();
    const after = openStore(path);
    // Version 5 kept no reference: the map reads without one.
    expect(await after.getKnownPermissions('staging', 'mod')).toStrictEqual(known);
    expect((await after.listAudit({ offset: 0, limit: 10 })).records).toEqual([record]);
    const withRef = { ...known, role: 'admin', ref: '0a1b2c3d4e' };
    await after.setKnownPermissions(withRef);
    expect(await after.getKnownPermissions('staging', 'admin')).toStrictEqual(withRef);
    const check = new DatabaseSync(path, { readOnly: true });
    expect(pragma(check, 'user_version')).toBe(12);
    check.close();
  });

  it('adds subscriptions and webhook events to a file version 6 wrote, keeping its rows', async () => {
    const path = join(dir, 'v6.sqlite');
    const before = openStore(path, () => 1_000);
    const known = {
      app: 'staging',
      role: 'mod',
      permissions: { pin: ['own'] },
      seenAt: 5,
      ref: 'r',
    };
    const intent = { ...record, ref: 'intent-1', outcome: 'unknown' as const };
    const approval = {
      id: 'approval-1',
      app: 'staging',
      role: 'mod',
      changes: record.changes,
      teamId: 'T1',
      requester: 'U1',
      requestedAt: 10,
      expiresAt: 20,
      channel: 'C0APPROVE',
      status: 'open' as const,
    };
    await before.setKnownPermissions(known);
    await before.appendAudit(record);
    await before.putPending(intent);
    await before.putApproval(approval);
    expect(await before.claim('held', 600)).toBe(true);
    await before.close();
    // Version 6's file: this layout without version 7's and 8's tables.
    const db = new DatabaseSync(path);
    dropVersion7Tables(db);
    db.exec('PRAGMA user_version = 6');
    db.close();
    expect(layout(path).objects.map((o) => o.name)).not.toContain('subscriptions');

    const after = openStore(path, () => 2_000);
    expect(await after.getKnownPermissions('staging', 'mod')).toStrictEqual(known);
    expect(await after.listAudit({ offset: 0, limit: 10 })).toEqual({
      records: [record],
      total: 1,
    });
    expect(await after.listPending(Number.MAX_SAFE_INTEGER)).toEqual([intent]);
    expect(await after.listOpenApprovals()).toEqual([approval]);
    expect(await after.claim('held', 600)).toBe(false);
    const subscription = {
      id: 'sub-1',
      app: 'staging',
      channel: 'C0ALERTS',
      kind: 'calls' as const,
      filters: ['status:unanswered'],
      createdBy: 'U1',
      createdAt: 3,
    };
    await after.putSubscription(subscription);
    expect(await after.listSubscriptions({ channel: 'C0ALERTS' })).toStrictEqual([subscription]);
    const event = { id: 'ev-1', app: 'staging', trigger: 'call_ended', receivedAt: 4, body: {} };
    expect(await after.keepWebhookEvent(event, 60)).toBe(true);
    expect(await after.listWebhookEvents(5)).toStrictEqual([event]);
    await after.close();
    // The migrated file has the layout of a new one.
    const fresh = join(dir, 'fresh.sqlite');
    await openStore(fresh).close();
    expect(layout(path)).toEqual(layout(fresh));
    expect(layout(path).version).toBe(12);
  });

  it("adds a record's moved users and what it reverts to a file version 8 wrote, keeping its records", async () => {
    const path = join(dir, 'v8.sqlite');
    const before = openStore(path);
    await before.appendAudit(record);
    await before.close();
    // Version 8's file: its audit table without the two columns version 9 added.
    const db = new DatabaseSync(path);
    db.exec('ALTER TABLE audit_records DROP COLUMN moved_to_default');
    db.exec('ALTER TABLE audit_records DROP COLUMN reverts');
    db.exec('PRAGMA user_version = 8');
    db.close();

    const after = openStore(path);
    expect((await after.listAudit({ offset: 0, limit: 10 })).records).toEqual([record]);
    const deletion: AuditRecord = {
      ...record,
      ref: 'ref-2',
      at: record.at + 1,
      movedToDefault: { uids: ['u-1'], total: 1 },
      reverts: 'ref-1',
    };
    await after.appendAudit(deletion);
    expect((await after.listAudit({ offset: 0, limit: 10 })).records).toEqual([deletion, record]);
    await after.close();
    const check = new DatabaseSync(path, { readOnly: true });
    try {
      expect(pragma(check, 'user_version')).toBe(12);
      const columns = column(check, "SELECT name FROM pragma_table_info('audit_records')");
      expect(columns).toEqual(expect.arrayContaining(['moved_to_default', 'reverts']));
    } finally {
      check.close();
    }
  });

  it("counts a file version 9 wrote once, and replaces its indexes with a new file's", async () => {
    const fresh = join(dir, 'v10-fresh.sqlite');
    await openStore(fresh).close();
    const path = join(dir, 'v9.sqlite');
    const before = openStore(path);
    const records = [record, { ...record, ref: 'ref-2', at: record.at + 1, role: 'other' }];
    for (const r of records) await before.appendAudit(r);
    await before.close();
    // Version 9's file: no audit_counts nor its triggers, and its indexes without ref or id.
    const db = new DatabaseSync(path);
    db.exec(`DROP TRIGGER audit_counted; DROP TRIGGER audit_role_counted; DROP TABLE audit_counts;
      DROP INDEX audit_by_time_ref; CREATE INDEX audit_by_time ON audit_records (at);
      DROP INDEX subscriptions_by_time_id;
      PRAGMA user_version = 9;`);
    db.close();

    const after = openStore(path);
    expect((await after.listAudit({ offset: 0, limit: 10 })).total).toBe(2);
    expect((await after.listAudit({ role: 'other', offset: 0, limit: 10 })).total).toBe(1);
    await after.appendAudit({ ...record, ref: 'ref-3', at: record.at + 2 });
    const all = await after.listAudit({ app: record.app, offset: 0, limit: 10 });
    expect(all.records.map((r) => r.ref)).toEqual(['ref-3', 'ref-2', record.ref]);
    expect(all.total).toBe(3);
    await after.close();
    expect(layout(path)).toEqual(layout(fresh));
  });

  it('adds audit posts to a file version 7 wrote, keeping its rows', async () => {
    const path = join(dir, 'v7.sqlite');
    const before = openStore(path, () => 1_000);
    await before.appendAudit(record);
    const subscription = {
      id: 'sub-1',
      app: 'staging',
      channel: 'C0ALERTS',
      kind: 'calls' as const,
      filters: [],
      createdBy: 'U1',
      createdAt: 3,
    };
    await before.putSubscription(subscription);
    await before.close();
    const db = new DatabaseSync(path);
    undoVersion8(db);
    db.exec('PRAGMA user_version = 7');
    db.close();
    expect(layout(path).objects.map((o) => o.name)).not.toContain('audit_posts');

    const after = openStore(path, () => 2_000);
    expect((await after.listAudit({ offset: 0, limit: 10 })).records).toEqual([record]);
    expect(await after.listSubscriptions({})).toStrictEqual([subscription]);
    const posted = { ...record, ref: 'ref-2', at: 5 };
    await after.appendAudit(posted, 'C0AUDIT');
    expect(await after.listAuditPosts(6)).toStrictEqual([
      { record: posted, channel: 'C0AUDIT', attempts: 0, dueAt: 5 },
    ]);
    await after.close();
    const fresh = join(dir, 'fresh-v8.sqlite');
    await openStore(fresh).close();
    expect(layout(path)).toEqual(layout(fresh));
    expect(layout(path).version).toBe(12);
  });

  it("files under both roles the users' role changes a file version 7 wrote, keeping its records", async () => {
    const path = join(dir, 'v7.sqlite');
    const before = openStore(path);
    const move: AuditRecord = {
      ...record,
      ref: 'move-1',
      at: record.at + 1,
      role: 'premium',
      subject: { kind: 'user', uid: 'cometchat-uid-4' },
      beforeSource: 'service',
      changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
    };
    await before.appendAudit(record);
    await before.appendAudit(move);
    await before.close();
    // Version 7's file: no audit_roles, and a user's change whose subject a hand damaged.
    const db = new DatabaseSync(path);
    undoVersion8(db);
    db.exec(`INSERT INTO audit_records SELECT 'damaged', at, app, team_id, user_id, role, changes,
      before_source, outcome, service_message, error_kind, promoted_from, approval, 'not json',
      NULL, NULL, NULL, NULL FROM audit_records WHERE ref = 'move-1'`);
    db.exec('PRAGMA user_version = 7');
    db.close();

    const after = openStore(path);
    const refs = async (role: string) =>
      (await after.listAudit({ app: 'staging', role, offset: 0, limit: 10 })).records.map(
        (r) => r.ref,
      );
    expect(await refs('vip')).toEqual(['move-1']);
    expect(await refs('moderator')).toEqual(['ref-1']);
    expect((await after.listAudit({ role: 'vip', offset: 0, limit: 10 })).records).toEqual([move]);
    await after.close();
    const check = new DatabaseSync(path, { readOnly: true });
    try {
      // The damaged one is filed under the role it names, as version 7 listed it, and no other.
      expect(column(check, "SELECT role FROM audit_roles WHERE ref = 'damaged'")).toEqual([
        'premium',
      ]);
    } finally {
      check.close();
    }
    const fresh = join(dir, 'fresh.sqlite');
    await openStore(fresh).close();
    expect(layout(path)).toEqual(layout(fresh));
  });

  it('counts the subscriptions of a file written without the count, and whoever writes them', async () => {
    const path = join(dir, 'counted.sqlite');
    const before = openStore(path);
    for (const id of ['a', 'b', 'c']) {
      await before.putSubscription({
        id,
        app: DEFAULT_APP,
        channel: 'C1',
        kind: 'calls',
        filters: [],
        createdBy: 'U1',
        createdAt: 1,
      });
    }
    await before.close();
    // A file of an earlier version of the app has neither the count nor its triggers.
    const db = new DatabaseSync(path);
    db.exec('DROP TRIGGER subscription_counted');
    db.exec('DROP TRIGGER subscription_uncounted');
    db.exec('DROP TABLE subscription_total');
    db.close();
    const after = openStore(path);
    expect(await after.countSubscriptions()).toBe(3);
    // The triggers are the file's: a row another process writes, or removes, is counted too.
    const other = new DatabaseSync(path);
    other.exec(`INSERT INTO subscriptions (id, app, channel, created_at, subscription)
      VALUES ('d', 'default', 'C2', 2, '{}')`);
    other.exec("DELETE FROM subscriptions WHERE id IN ('a', 'b')");
    other.close();
    expect(await after.countSubscriptions()).toBe(2);
  });

  it('refuses a file written by a newer version', async () => {
    const path = join(dir, 'newer.sqlite');
    const db = new DatabaseSync(path);
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(() => createSqliteStore(path)).toThrow(/newer version/);
  });

  it('reports a stored value that does not decode as a StoreDataError', async () => {
    const path = join(dir, 'broken.sqlite');
    const store = openStore(path);
    await store.setKnownPermissions({ app: DEFAULT_APP, role: 'mod', permissions: {}, seenAt: 1 });
    const db = new DatabaseSync(path);
    db.prepare('UPDATE known_permissions SET permissions = \'{"pin": 3}\'').run();
    db.close();
    await expect(store.getKnownPermissions(DEFAULT_APP, 'mod')).rejects.toBeInstanceOf(
      StoreDataError,
    );
  });

  it('reports a subscription or webhook event that does not decode as a StoreDataError', async () => {
    const path = join(dir, 'broken-alerts.sqlite');
    const store = openStore(path);
    await store.putSubscription({
      id: 's',
      app: DEFAULT_APP,
      channel: 'C1',
      kind: 'calls',
      filters: [],
      createdBy: 'U1',
      createdAt: 1,
    });
    const event = { id: 'e', app: DEFAULT_APP, trigger: 't', receivedAt: 1, body: {} };
    expect(await store.keepWebhookEvent(event, 60)).toBe(true);
    const db = new DatabaseSync(path);
    db.prepare(
      "UPDATE subscriptions SET subscription = json_set(subscription, '$.kind', 'sms')",
    ).run();
    db.prepare("UPDATE webhook_events SET event = '{not json'").run();
    db.close();
    await expect(store.listSubscriptions({})).rejects.toThrow(
      /a subscription in the store is not valid/,
    );
    await expect(store.listSubscriptions({ channel: 'C1' })).rejects.toBeInstanceOf(StoreDataError);
    await expect(store.listWebhookEvents(2)).rejects.toBeInstanceOf(StoreDataError);
  });

  describe('a file version 1 wrote', () => {
    it('is moved to the current version, with the layout of a new file', async () => {
      const migrated = copyV1SqliteFile(dir);
      await openStore(migrated).close();
      const fresh = join(dir, 'fresh.sqlite');
      await openStore(fresh).close();
      expect(layout(migrated)).toEqual(layout(fresh));
      expect(layout(migrated).version).toBe(12);
    });

    it('keeps every row, each in the default app', async () => {
      const path = copyV1SqliteFile(dir);
      await openStore(path).close();
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        expect(column(db, 'SELECT DISTINCT app FROM known_permissions')).toEqual([DEFAULT_APP]);
        expect(column(db, 'SELECT role FROM known_permissions ORDER BY role')).toEqual(
          [...V1_KNOWN_ROLES].sort(),
        );
        expect(column(db, 'SELECT DISTINCT app FROM audit_records')).toEqual([DEFAULT_APP]);
        expect(column(db, 'SELECT count(*) FROM audit_records')).toEqual([v1Audit().length]);
      } finally {
        db.close();
      }
    });

    it('reads as the same state when opened again', async () => {
      const path = copyV1SqliteFile(dir);
      await openStore(path).close();
      const again = openStore(path);
      expect(await again.listAudit({ app: DEFAULT_APP, offset: 0, limit: 10 })).toEqual({
        records: v1Audit(),
        total: v1Audit().length,
      });
      expect(await again.getKnownPermissions(DEFAULT_APP, 'moderator')).toEqual(
        v1Known('moderator'),
      );
    });

    it('is left as it was when the move fails part way', async () => {
      const path = copyV1SqliteFile(dir);
      const db = new DatabaseSync(path);
      // In the way of the second rename: by then the move has dropped the old indexes and
      // renamed known_permissions, all of which must be undone.
      db.exec('CREATE TABLE audit_records_v1 (x)');
      db.close();
      const before = layout(path);
      expect(() => createSqliteStore(path)).toThrow(/audit_records_v1/);
      expect(layout(path)).toEqual(before);
      expect(before.version).toBe(1);
    });

    it('is moved when version 1 created its tables but did not get to record its version', async () => {
      const path = copyV1SqliteFile(dir);
      const db = new DatabaseSync(path);
      db.exec('PRAGMA user_version = 0');
      db.close();
      const store = openStore(path);
      expect(await store.getKnownPermissions(DEFAULT_APP, 'moderator')).toEqual(
        v1Known('moderator'),
      );
      expect((await store.listAudit({ app: DEFAULT_APP, offset: 0, limit: 10 })).total).toBe(
        v1Audit().length,
      );
    });

    it('is moved while several processes open it at once, none of them refused', async () => {
      const path = copyV1SqliteFile(dir);
      // Each process loads first, then waits for the same moment to open the file, so that the
      // opens race rather than follow one another (a DEFERRED transaction fails this: two
      // readers cannot both become the writer, and one is refused at once).
      const opener = `
        import { setTimeout as sleep } from 'node:timers/promises';
        import { createSqliteStore } from './src/store/sqlite-store.ts';
        // A process that loaded after the moment (a very busy machine) opens at once.
        await sleep(Math.max(0, Number(process.argv[2]) - Date.now()));
        const store = createSqliteStore(process.argv[1]);
        const page = await store.listAudit({ app: 'default', offset: 0, limit: 100 });
        await store.close();
        console.log(page.total);
      `;
      const open = () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            ['--import', 'tsx', '--input-type=module', '-e', opener, path, String(at)],
            {
              cwd: fileURLToPath(new URL('../../', import.meta.url)),
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
          });
          child.stderr.on('data', (chunk: Buffer) => {
            out += chunk.toString();
          });
          child.once('error', reject);
          child.once('exit', (code) =>
            code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${out}`)),
          );
        });
      // Long enough for every process to have loaded, even on a busy machine.
      const at = Date.now() + 3_000;
      const totals = await Promise.all([open(), open(), open()]);
      expect(totals).toEqual(Array(3).fill(String(v1Audit().length)));
      expect(layout(path).version).toBe(12);
    });
  });
});
