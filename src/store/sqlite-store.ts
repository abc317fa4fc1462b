import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import { PermissionMapSchema } from '../cometchat/schemas.ts';
import { type AuditRecord, DEFAULT_APP, type Store } from './store.ts';
import { StoreUnavailableError } from './store-errors.ts';
import {
  ApprovalRequestSchema,
  AuditApprovalSchema,
  AuditChangesSchema,
  AuditRecordSchema,
  decodeStored,
  parseStoredJson,
} from './stored-records.ts';

/*
 * Version 4 of the file's layout (version 2 plus `audit_intents`, then `approvals`); `user_version` records it so that a later version can migrate.
 * Times are Unix milliseconds. JSON columns hold what has no fixed shape (a permission map, the
 * list of changes); everything a query filters or sorts on is a column of its own.
 *
 * Version 1 (before the app knew of several CometChat apps) had no `app` column; opening its file
 * moves every row into app `default` (see `migrateFromVersion1`).
 */
const SCHEMA_VERSION = 4;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS known_permissions (
    app TEXT NOT NULL,
    role TEXT NOT NULL,
    permissions TEXT NOT NULL,
    seen_at INTEGER NOT NULL,
    PRIMARY KEY (app, role)
  );
  CREATE TABLE IF NOT EXISTS claims (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS claims_by_expiry ON claims (expires_at);
  CREATE TABLE IF NOT EXISTS audit_records (
    ref TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    app TEXT NOT NULL,
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    changes TEXT NOT NULL,
    before_source TEXT NOT NULL,
    outcome TEXT NOT NULL,
    service_message TEXT,
    error_kind TEXT,
    promoted_from TEXT,
    approval TEXT
  );
  CREATE INDEX IF NOT EXISTS audit_by_app_role_time ON audit_records (app, role, at);
  CREATE INDEX IF NOT EXISTS audit_by_app_time ON audit_records (app, at);
  CREATE INDEX IF NOT EXISTS audit_by_time ON audit_records (at);
  CREATE TABLE IF NOT EXISTS audit_intents (
    ref TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS intents_by_time ON audit_intents (at);
  CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    request TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (status, requested_at);
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
  const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    // In WAL mode NORMAL loses no committed transaction on a crash of the app, only on power loss.
    db.exec('PRAGMA synchronous = NORMAL');
    // One IMMEDIATE transaction: a second process opening the file meanwhile waits for the write
    // lock, then finds the version already recorded, so a file is migrated once; and a migration
    // that fails leaves the file as it was.
    inTransaction(db, 'IMMEDIATE', () => {
      const version = schemaVersion(db);
      if (version > SCHEMA_VERSION) {
        throw new Error(
          `${path} was written by a newer version of the app (schema ${version}, this one knows ${SCHEMA_VERSION})`,
        );
      }
      if (version === SCHEMA_VERSION) return;
      if (version === 1) migrateFromVersion1(db);
      // A new file, or version 2 or 3: every statement is IF NOT EXISTS, so an earlier file
      // gains the tables it lacks and keeps the rest; its audit table gains `approval`.
      else {
        db.exec(SCHEMA);
        addApprovalColumn(db);
      }
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  } catch (error) {
    db.close();
    throw error;
  }

  // Readiness writes an expired claim no caller can name (claim ids are hex).
  const probe = db.prepare(
    `INSERT INTO claims (id, expires_at) VALUES ('~readiness', ?)
     ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`,
  );
  const selectKnown = db.prepare(
    'SELECT app, role, permissions, seen_at FROM known_permissions WHERE app = ? AND role = ?',
  );
  const upsertKnown = db.prepare(
    `INSERT INTO known_permissions (app, role, permissions, seen_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (app, role) DO UPDATE
       SET permissions = excluded.permissions, seen_at = excluded.seen_at`,
  );
  // One statement, so two connections cannot both take the claim: a row that exists is replaced
  // only when it has expired, and `changes` tells whether this call wrote it.
  const takeClaim = db.prepare(
    `INSERT INTO claims (id, expires_at) VALUES (@id, @expiresAt)
     ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at
     WHERE claims.expires_at <= @now`,
  );
  const purgeClaims = db.prepare('DELETE FROM claims WHERE expires_at <= ?');
  const deleteClaim = db.prepare('DELETE FROM claims WHERE id = ?');
  const insertAudit = db.prepare(
    `INSERT INTO audit_records
       (ref, at, app, team_id, user_id, role, changes, before_source, outcome, service_message,
        error_kind, promoted_from, approval)
     VALUES
       (@ref, @at, @app, @team_id, @user_id, @role, @changes, @before_source, @outcome,
        @service_message, @error_kind, @promoted_from, @approval)
     ON CONFLICT (ref) DO NOTHING`,
  );
  const deleteIntent = db.prepare('DELETE FROM audit_intents WHERE ref = ?');
  const upsertIntent = db.prepare(
    `INSERT INTO audit_intents (ref, at, record) VALUES (?, ?, ?)
     ON CONFLICT (ref) DO UPDATE SET at = excluded.at, record = excluded.record`,
  );
  const selectIntents = db.prepare(
    'SELECT record FROM audit_intents WHERE at < ? ORDER BY at, ref',
  );
  const upsertApproval = db.prepare(
    `INSERT INTO approvals (id, status, requested_at, request) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, request = excluded.request`,
  );
  const selectApproval = db.prepare('SELECT request FROM approvals WHERE id = ?');
  const selectOpenApprovals = db.prepare(
    "SELECT request FROM approvals WHERE status = 'open' ORDER BY requested_at, id",
  );
  const decodeApproval = (raw: unknown) => {
    const what = 'an approval request';
    const { request } = decodeStored(ApprovalRowSchema, raw, what);
    return decodeStored(ApprovalRequestSchema, parseStoredJson(request, what), what);
  };
  // The record and the end of its intent in one transaction: a crash between them cannot leave
  // an intent that the sweep would turn into a second record.
  const appendAuditNow = (record: AuditRecord) =>
    inTransaction(db, 'IMMEDIATE', () => {
      insertAudit.run(toRow(record));
      deleteIntent.run(record.ref);
    });
  /** A page and a count of the records that `where` keeps (by `@app` and `@role`). */
  const auditQuery = (where: string) => ({
    page: db.prepare(
      `SELECT * FROM audit_records ${where} ORDER BY at DESC, ref DESC LIMIT @limit OFFSET @offset`,
    ),
    count: db.prepare(`SELECT count(*) AS total FROM audit_records ${where}`),
  });
  // One query per combination, so that each is planned on its own index.
  const auditQueries = {
    all: auditQuery(''),
    app: auditQuery('WHERE app = @app'),
    role: auditQuery('WHERE role = @role'),
    appRole: auditQuery('WHERE app = @app AND role = @role'),
  };

  // BEGIN IMMEDIATE: the write lock is taken first, so a busy file is waited for, not failed.
  const claimNow = (id: string, ttlSeconds: number): boolean =>
    inTransaction(db, 'IMMEDIATE', () => {
      const at = now();
      // Expired claims are of no further use; dropping them here keeps the table small.
      purgeClaims.run(at);
      return takeClaim.run({ id, expiresAt: at + ttlSeconds * 1000, now: at }).changes === 1;
    });

  // A read transaction, so that the page and the total come from one snapshot.
  const listAuditNow = (filter: AuditFilter, offset: number, limit: number) =>
    inTransaction(db, 'DEFERRED', () => {
      let query = auditQueries.all;
      if (filter.app !== undefined)
        query = filter.role === undefined ? auditQueries.app : auditQueries.appRole;
      else if (filter.role !== undefined) query = auditQueries.role;
      return { rows: query.page.all({ ...filter, limit, offset }), count: query.count.get(filter) };
    });

  // The file is only the app's while it is the file at `path`: one deleted or replaced under
  // the open handle still takes writes, which a restart would never see. Every operation checks
  // first (a stat, microseconds), so readiness fails and no change is sent unrecorded.
  const opened = path === ':memory:' ? undefined : fileIdentity(path);
  const sameFile = () => {
    if (opened !== undefined && fileIdentity(path) !== opened) {
      throw new StoreUnavailableError(
        `the SQLite file ${path} was deleted or replaced while the app had it open; restart the app to open the file now at that path`,
      );
    }
  };

  return {
    async getKnownPermissions(app, role) {
      sameFile();
      const raw = selectKnown.get(app, role);
      if (raw === undefined) return undefined;
      const what = `known permissions of ${role} in ${app}`;
      const row = decodeStored(KnownRowSchema, raw, what);
      return {
        app: row.app,
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
      sameFile();
      upsertKnown.run(known.app, known.role, JSON.stringify(known.permissions), known.seenAt);
    },
    async claim(id, ttlSeconds) {
      sameFile();
      return claimNow(id, ttlSeconds);
    },
    async release(id) {
      sameFile();
      deleteClaim.run(id);
    },
    async appendAudit(record) {
      sameFile();
      appendAuditNow(record);
    },
    async putIntent(record) {
      sameFile();
      upsertIntent.run(record.ref, record.at, JSON.stringify(record));
    },
    async listIntents(before) {
      sameFile();
      return selectIntents.all(before).map((raw) => {
        const { record } = decodeStored(IntentRowSchema, raw, 'an audit intent');
        const what = 'an audit intent';
        return decodeStored(AuditRecordSchema, parseStoredJson(record, what), what);
      });
    },
    async putApproval(request) {
      sameFile();
      upsertApproval.run(request.id, request.status, request.requestedAt, JSON.stringify(request));
    },
    async getApproval(id) {
      sameFile();
      const raw = selectApproval.get(id);
      return raw === undefined ? undefined : decodeApproval(raw);
    },
    async listOpenApprovals() {
      sameFile();
      return selectOpenApprovals.all().map(decodeApproval);
    },
    async listAudit({ app, role, offset, limit }) {
      sameFile();
      const filter = {
        ...(app === undefined ? {} : { app }),
        ...(role === undefined ? {} : { role }),
      };
      // A negative LIMIT means "no limit" to SQLite.
      const { rows, count } = listAuditNow(filter, Math.max(0, offset), Math.max(0, limit));
      return {
        records: rows.map(fromRow),
        total: decodeStored(CountRowSchema, count, 'an audit count').total,
      };
    },
    async ping() {
      sameFile();
      // A write, so that a file that can no longer be written (a read-only mount) is not ready.
      probe.run(now() - 1);
    },
    async close() {
      if (db.isOpen) db.close();
    },
  };
}

/**
 * Version 1's rows, moved into version 2's tables in app `default` (version 1 served one
 * CometChat app). The old tables are renamed out of the way and version 2's created by the same
 * SCHEMA as a new file's, so a migrated file and a new one have one layout; the old indexes are
 * dropped first, as an index keeps its name when its table is renamed.
 */
function migrateFromVersion1(db: DatabaseSync): void {
  db.exec(`
    DROP INDEX IF EXISTS audit_by_role_time;
    DROP INDEX IF EXISTS audit_by_time;
    ALTER TABLE known_permissions RENAME TO known_permissions_v1;
    ALTER TABLE audit_records RENAME TO audit_records_v1;
  `);
  db.exec(SCHEMA);
  db.prepare(
    `INSERT INTO known_permissions (app, role, permissions, seen_at)
     SELECT ?, role, permissions, seen_at FROM known_permissions_v1`,
  ).run(DEFAULT_APP);
  db.prepare(
    `INSERT INTO audit_records
       (ref, at, app, team_id, user_id, role, changes, before_source, outcome, service_message,
        error_kind)
     SELECT ref, at, ?, team_id, user_id, role, changes, before_source, outcome, service_message,
       error_kind
     FROM audit_records_v1`,
  ).run(DEFAULT_APP);
  db.exec('DROP TABLE known_permissions_v1; DROP TABLE audit_records_v1;');
}

/** Version 2 and 3's audit table has no `approval` column; added empty (no record had one). */
function addApprovalColumn(db: DatabaseSync): void {
  const hasColumn = db
    .prepare("SELECT 1 FROM pragma_table_info('audit_records') WHERE name = 'approval'")
    .get();
  if (hasColumn === undefined) db.exec('ALTER TABLE audit_records ADD COLUMN approval TEXT');
}

/**
 * The layout version the file records. Version 1 created its tables before recording its
 * version, so a file that has its tables but records 0 was left by version 1 between the two.
 */
function schemaVersion(db: DatabaseSync): number {
  const { user_version: version } = decodeStored(
    UserVersionRowSchema,
    db.prepare('PRAGMA user_version').get(),
    'the schema version',
  );
  if (version !== 0) return version;
  const hasTables = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'known_permissions'")
    .get();
  return hasTables === undefined ? 0 : 1;
}

/**
 * Runs `work` in one transaction: COMMIT when it returns, ROLLBACK when it throws. node:sqlite has
 * no `db.transaction()` helper (better-sqlite3, which this store used before, had one); this is the
 * part of it the store needs, without nesting, which no caller does. `work` is synchronous, so no
 * other call on this connection runs between BEGIN and COMMIT.
 *
 * IMMEDIATE takes the write lock at BEGIN, so a busy file is waited for (the busy timeout); a
 * DEFERRED transaction that reads and then writes could not wait and would be refused at once.
 * DEFERRED is for reads only.
 */
function inTransaction<T>(db: DatabaseSync, mode: 'IMMEDIATE' | 'DEFERRED', work: () => T): T {
  db.exec(`BEGIN ${mode}`);
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // SQLite ends some transactions itself when a statement fails (an I/O error, a full disk); a
    // ROLLBACK then would fail too, and hide the error that says what went wrong.
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Only the keys a query names: node:sqlite refuses a parameter the statement does not have. */
type AuditFilter = { app?: string; role?: string };

const KnownRowSchema = z.object({
  app: z.string(),
  role: z.string(),
  permissions: z.string(),
  seen_at: z.number(),
});

const UserVersionRowSchema = z.object({ user_version: z.number().int().nonnegative() });
const CountRowSchema = z.object({ total: z.number() });
const IntentRowSchema = z.object({ record: z.string() });
const ApprovalRowSchema = z.object({ request: z.string() });

const AuditRowSchema = z.object({
  ref: z.string(),
  at: z.number(),
  app: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  role: z.string(),
  changes: z.string(),
  before_source: z.enum(['last-update', 'defaults']),
  outcome: z.enum(['applied', 'failed', 'unknown']),
  service_message: z.string().nullable(),
  error_kind: z.string().nullable(),
  promoted_from: z.string().nullable(),
  approval: z.string().nullable(),
});
type AuditRow = z.infer<typeof AuditRowSchema>;

function toRow(record: AuditRecord): AuditRow {
  return {
    ref: record.ref,
    at: record.at,
    app: record.app,
    team_id: record.teamId,
    user_id: record.userId,
    role: record.role,
    changes: JSON.stringify(record.changes),
    before_source: record.beforeSource,
    outcome: record.outcome,
    service_message: record.serviceMessage ?? null,
    error_kind: record.errorKind ?? null,
    promoted_from: record.promotedFrom ?? null,
    approval: record.approval ? JSON.stringify(record.approval) : null,
  };
}

function fromRow(raw: unknown): AuditRecord {
  const row = decodeStored(AuditRowSchema, raw, 'an audit record');
  const what = `audit record ${row.ref}`;
  return {
    ref: row.ref,
    at: row.at,
    app: row.app,
    teamId: row.team_id,
    userId: row.user_id,
    role: row.role,
    changes: decodeStored(AuditChangesSchema, parseStoredJson(row.changes, what), what),
    beforeSource: row.before_source,
    outcome: row.outcome,
    ...(row.service_message === null ? {} : { serviceMessage: row.service_message }),
    ...(row.error_kind === null ? {} : { errorKind: row.error_kind }),
    ...(row.promoted_from === null ? {} : { promotedFrom: row.promoted_from }),
    ...(row.approval === null
      ? {}
      : {
          approval: decodeStored(AuditApprovalSchema, parseStoredJson(row.approval, what), what),
        }),
  };
}

/** What tells one file from another at the same path: its device and inode, or none at all. */
function fileIdentity(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}
