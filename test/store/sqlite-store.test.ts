import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import type { AuditRecord, Store } from '../../src/store/store.ts';
import { StoreDataError } from '../../src/store/store-errors.ts';

const record: AuditRecord = {
  ref: 'ref-1',
  at: 1_700_000_000_000,
  teamId: 'T1',
  userId: 'U1',
  role: 'moderator',
  changes: [{ key: 'pin', before: null, after: ['own'], explicit: true }],
  beforeSource: 'defaults',
  outcome: 'applied',
  serviceMessage: 'pin: updated',
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

  it('keeps its state across closing and reopening the file', async () => {
    const path = join(dir, 'nested', 'deeper', 'state.sqlite');
    const first = openStore(path);
    await first.setKnownPermissions({ role: 'mod', permissions: { pin: ['own'] }, seenAt: 5 });
    expect(await first.claim('confirm-1', 600)).toBe(true);
    await first.appendAudit(record);
    await first.close();

    const second = openStore(path);
    expect(await second.getKnownPermissions('mod')).toEqual({
      role: 'mod',
      permissions: { pin: ['own'] },
      seenAt: 5,
    });
    expect(await second.claim('confirm-1', 600)).toBe(false);
    expect(await second.listAudit({ offset: 0, limit: 10 })).toEqual({
      records: [record],
      total: 1,
    });
    await second.appendAudit({ ...record, outcome: 'failed' });
    expect((await second.listAudit({ offset: 0, limit: 10 })).records).toEqual([record]);
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
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('refuses a file written by a newer version', async () => {
    const path = join(dir, 'newer.sqlite');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => createSqliteStore(path)).toThrow(/newer version/);
  });

  it('reports a stored value that does not decode as a StoreDataError', async () => {
    const path = join(dir, 'broken.sqlite');
    const store = openStore(path);
    await store.setKnownPermissions({ role: 'mod', permissions: {}, seenAt: 1 });
    const db = new Database(path);
    db.prepare('UPDATE known_permissions SET permissions = \'{"pin": 3}\'').run();
    db.close();
    await expect(store.getKnownPermissions('mod')).rejects.toBeInstanceOf(StoreDataError);
  });
});
