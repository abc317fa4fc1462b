import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { PermissionMapSchema } from '../cometchat/schemas.ts';
import type { AuditRecord, Store } from './store.ts';
import { AuditChangesSchema, decodeStored, parseStoredJson } from './stored-records.ts';

/*
 * Version 1 of the file's layout; `user_version` records it so that a later version can migrate.
 * Times are Unix milliseconds. JSON columns hold what has no fixed shape (a permission map, the
 * list of changes); everything a query filters or sorts on is a column of its own.
 */
const SCHEMA_VERSION = 1;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS known_permissions (
    role TEXT PRIMARY KEY,
    permissions TEXT NOT NULL,
    seen_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS claims (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS claims_by_expiry ON claims (expires_at);
  CREATE TABLE IF NOT EXISTS audit_records (
    ref TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    changes TEXT NOT NULL,
    before_source TEXT NOT NULL,
    outcome TEXT NOT NULL,
    service_message TEXT,
    error_kind TEXT
  );
  CREATE INDEX IF NOT EXISTS audit_by_role_time ON audit_records (role, at);
  CREATE INDEX IF NOT EXISTS audit_by_time ON audit_records (at);
`;

/** How long a write waits for another connection (another process on the same file) to finish. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * A store in one SQLite file: no server, no set-up, and it survives a restart. Several processes
 * on one host may share the file (WAL mode, claims taken in one statement); replicas on several
 * hosts need the Redis store.
 *
 * `path` is created with its parent directory if missing. `now` is the clock for claim expiry.
 */
export function createSqliteStore(path: string, now: () => number = Date.now): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    // In WAL mode NORMAL loses no committed transaction on a crash of the app, only on power loss.
    db.pragma('synchronous = NORMAL');
    const version = db.pragma('user_version', { simple: true });
    if (typeof version === 'number' && version > SCHEMA_VERSION) {
      throw new Error(
        `${path} was written by a newer version of the app (schema ${version}, this one knows ${SCHEMA_VERSION})`,
      );
    }
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  } catch (error) {
    db.close();
    throw error;
  }

  const selectKnown = db.prepare<[string]>(
    'SELECT role, permissions, seen_at FROM known_permissions WHERE role = ?',
  );
  const upsertKnown = db.prepare<[string, string, number]>(
    `INSERT INTO known_permissions (role, permissions, seen_at) VALUES (?, ?, ?)
     ON CONFLICT (role) DO UPDATE SET permissions = excluded.permissions, seen_at = excluded.seen_at`,
  );
  // One statement, so two connections cannot both take the claim: a row that exists is replaced
  // only when it has expired, and `changes` tells whether this call wrote it.
  const takeClaim = db.prepare<{ id: string; expiresAt: number; now: number }>(
    `INSERT INTO claims (id, expires_at) VALUES (@id, @expiresAt)
     ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at
     WHERE claims.expires_at <= @now`,
  );
  const purgeClaims = db.prepare<[number]>('DELETE FROM claims WHERE expires_at <= ?');
  const deleteClaim = db.prepare<[string]>('DELETE FROM claims WHERE id = ?');
  const insertAudit = db.prepare<AuditRow>(
    `INSERT INTO audit_records
       (ref, at, team_id, user_id, role, changes, before_source, outcome, service_message, error_kind)
     VALUES
       (@ref, @at, @team_id, @user_id, @role, @changes, @before_source, @outcome, @service_message,
        @error_kind)
     ON CONFLICT (ref) DO NOTHING`,
  );
  const selectAuditAll = db.prepare<[number, number]>(
    'SELECT * FROM audit_records ORDER BY at DESC, ref DESC LIMIT ? OFFSET ?',
  );
  const countAuditAll = db.prepare('SELECT count(*) AS total FROM audit_records');
  const selectAuditRole = db.prepare<[string, number, number]>(
    'SELECT * FROM audit_records WHERE role = ? ORDER BY at DESC, ref DESC LIMIT ? OFFSET ?',
  );
  const countAuditRole = db.prepare<[string]>(
    'SELECT count(*) AS total FROM audit_records WHERE role = ?',
  );

  // BEGIN IMMEDIATE: the write lock is taken first, so a busy file is waited for, not failed.
  const claimNow = db.transaction((id: string, ttlSeconds: number): boolean => {
    const at = now();
    // Expired claims are of no further use; dropping them here keeps the table small.
    purgeClaims.run(at);
    return takeClaim.run({ id, expiresAt: at + ttlSeconds * 1000, now: at }).changes === 1;
  });

  // A read transaction, so that the page and the total come from one snapshot.
  const listAuditNow = db.transaction((role: string | undefined, offset: number, limit: number) => {
    const rows =
      role === undefined
        ? selectAuditAll.all(limit, offset)
        : selectAuditRole.all(role, limit, offset);
    const count = role === undefined ? countAuditAll.get() : countAuditRole.get(role);
    return { rows, count };
  });

  return {
    async getKnownPermissions(role) {
      const raw = selectKnown.get(role);
      if (raw === undefined) return undefined;
      const what = `known permissions of ${role}`;
      const row = decodeStored(KnownRowSchema, raw, what);
      return {
        role: row.role,
        permissions: decodeStored(
          PermissionMapSchema,
          parseStoredJson(row.permissions, what),
          what,
        ),
        seenAt: row.seen_at,
      };
    },
    async setKnownPermissions(known) {
      upsertKnown.run(known.role, JSON.stringify(known.permissions), known.seenAt);
    },
    async claim(id, ttlSeconds) {
      return claimNow.immediate(id, ttlSeconds);
    },
    async release(id) {
      deleteClaim.run(id);
    },
    async appendAudit(record) {
      insertAudit.run(toRow(record));
    },
    async listAudit({ role, offset, limit }) {
      // A negative LIMIT means "no limit" to SQLite.
      const { rows, count } = listAuditNow(role, Math.max(0, offset), Math.max(0, limit));
      return {
        records: rows.map(fromRow),
        total: decodeStored(CountRowSchema, count, 'an audit count').total,
      };
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

const KnownRowSchema = z.object({
  role: z.string(),
  permissions: z.string(),
  seen_at: z.number(),
});

const CountRowSchema = z.object({ total: z.number() });

const AuditRowSchema = z.object({
  ref: z.string(),
  at: z.number(),
  team_id: z.string(),
  user_id: z.string(),
  role: z.string(),
  changes: z.string(),
  before_source: z.enum(['last-update', 'defaults']),
  outcome: z.enum(['applied', 'failed']),
  service_message: z.string().nullable(),
  error_kind: z.string().nullable(),
});
type AuditRow = z.infer<typeof AuditRowSchema>;

function toRow(record: AuditRecord): AuditRow {
  return {
    ref: record.ref,
    at: record.at,
    team_id: record.teamId,
    user_id: record.userId,
    role: record.role,
    changes: JSON.stringify(record.changes),
    before_source: record.beforeSource,
    outcome: record.outcome,
    service_message: record.serviceMessage ?? null,
    error_kind: record.errorKind ?? null,
  };
}

function fromRow(raw: unknown): AuditRecord {
  const row = decodeStored(AuditRowSchema, raw, 'an audit record');
  const what = `audit record ${row.ref}`;
  return {
    ref: row.ref,
    at: row.at,
    teamId: row.team_id,
    userId: row.user_id,
    role: row.role,
    changes: decodeStored(AuditChangesSchema, parseStoredJson(row.changes, what), what),
    beforeSource: row.before_source,
    outcome: row.outcome,
    ...(row.service_message === null ? {} : { serviceMessage: row.service_message }),
    ...(row.error_kind === null ? {} : { errorKind: row.error_kind }),
  };
}
