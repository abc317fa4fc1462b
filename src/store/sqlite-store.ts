import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import { PermissionMapSchema } from '../cometchat/schemas.ts';
import {
  AUDIT_POSTS_LIMIT,
  type AuditPage,
  type AuditQuery,
  type AuditRangeQuery,
  type BurstCount,
  type BurstWindow,
  type Store,
  type SubscriptionQuery,
  WEBHOOK_EVENTS_LIMIT,
  webhookClaimId,
} from './store.ts';
import { StoreUnavailableError } from './store-errors.ts';
import {
  type ApprovalRequest,
  ApprovalRequestSchema,
  AuditApprovalSchema,
  AuditChangesSchema,
  type AuditPost,
  AuditPostSchema,
  type AuditRecord,
  AuditRecordSchema,
  AuditStepSchema,
  auditRoles,
  ChangeSubjectSchema,
  DEFAULT_APP,
  DeletedRoleSchema,
  decodeStored,
  decodeStoredJson,
  type KnownPermissions,
  MovedToDefaultSchema,
  type SeenRevision,
  type Subscription,
  SubscriptionSchema,
  type WebhookEvent,
  WebhookEventSchema,
} from './stored-records.ts';

/*
 * Version 12 of the file's layout; `user_version` records it so that a later version can migrate.
 * Version 2 keeps every row under its CometChat app; 3 adds `audit_intents`; 4 `approvals` and an
 * audit record's `approval`; 5 an audit record's `subject`; 6 the `ref` of the change that set a
 * role's known permissions; 7 `subscriptions` (channels subscribed to an app's webhook events)
 * and `webhook_events` (events received and not yet handled, each the whole record as JSON); 8
 * `audit_posts` (audit records' posts to the audit channel that Slack has not taken yet) and
 * `audit_roles`, the roles each audit record is filed under (auditRoles: a change of a user's
 * role is found under the role they had and the one they were given), by which a listing
 * narrows to a role; 9 an audit record's `moved_to_default` (the users a role's deletion left
 * with `default`), `deleted_role` (the role as it was, so that the deletion can be put back) and
 * `reverts` (the record whose change it puts back); 10 `audit_counts`, how many records each app
 * has (`role` '') and has filed under each role, kept by triggers so that a page's total is
 * read, not counted, and indexes that end in each listing's whole order (`ref`, `id` after the
 * time), so that a page is read from its index alone, newest first, and no listing sorts;
 * 11 `seen_revisions`, the revision of each moderation rule this app last saw (the rules' daily
 * check tells a later one, made outside the app); 12 an audit record's `steps` (each step's outcome,
 * for a change sent as several requests). Times are Unix milliseconds. JSON columns hold what has no fixed shape (a permission map, the
 * list of changes); everything a query filters or sorts on is a column of its own.
 *
 * Version 1 (before the app knew of several CometChat apps) had no `app` column; opening its file
 * moves every row into app `default` (see `migrateFromVersion1`).
 */
const SCHEMA_VERSION = 12;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS known_permissions (
    app TEXT NOT NULL,
    role TEXT NOT NULL,
    permissions TEXT NOT NULL,
    seen_at INTEGER NOT NULL,
    ref TEXT,
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
    approval TEXT,
    subject TEXT,
    moved_to_default TEXT,
    reverts TEXT,
    deleted_role TEXT,
    steps TEXT
  );
  CREATE INDEX IF NOT EXISTS audit_by_app_time_ref ON audit_records (app, at, ref);
  CREATE INDEX IF NOT EXISTS audit_by_time_ref ON audit_records (at, ref);
  CREATE TABLE IF NOT EXISTS audit_roles (
    ref TEXT NOT NULL,
    role TEXT NOT NULL,
    app TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (ref, role)
  );
  CREATE INDEX IF NOT EXISTS audit_roles_by_role_time_ref ON audit_roles (role, at, ref);
  CREATE INDEX IF NOT EXISTS audit_roles_by_app_role_time_ref ON audit_roles (app, role, at, ref);
  CREATE TABLE IF NOT EXISTS audit_counts (
    app TEXT NOT NULL,
    role TEXT NOT NULL,
    total INTEGER NOT NULL,
    PRIMARY KEY (app, role)
  );
  CREATE TRIGGER IF NOT EXISTS audit_counted AFTER INSERT ON audit_records BEGIN
    INSERT INTO audit_counts (app, role, total) VALUES (NEW.app, '', 1)
      ON CONFLICT (app, role) DO UPDATE SET total = total + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS audit_role_counted AFTER INSERT ON audit_roles BEGIN
    INSERT INTO audit_counts (app, role, total) VALUES (NEW.app, NEW.role, 1)
      ON CONFLICT (app, role) DO UPDATE SET total = total + 1;
  END;
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
  CREATE INDEX IF NOT EXISTS approvals_unended_steps ON approvals (requested_at, id)
    WHERE json_extract(request, '$.workflowStep') IS NOT NULL
      AND json_extract(request, '$.stepCompletedAt') IS NULL;
  CREATE TABLE IF NOT EXISTS subscriptions (
    id TEXT PRIMARY KEY,
    app TEXT NOT NULL,
    channel TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    subscription TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS subscriptions_by_time_id ON subscriptions (created_at, id);
  CREATE INDEX IF NOT EXISTS subscriptions_by_app_time_id ON subscriptions (app, created_at, id);
  CREATE INDEX IF NOT EXISTS subscriptions_by_channel_time_id
    ON subscriptions (channel, created_at, id);
  CREATE TABLE IF NOT EXISTS webhook_events (
    id TEXT PRIMARY KEY,
    received_at INTEGER NOT NULL,
    event TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS webhook_events_by_time ON webhook_events (received_at);
  CREATE TABLE IF NOT EXISTS audit_posts (
    ref TEXT PRIMARY KEY,
    due_at INTEGER NOT NULL,
    post TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_posts_by_due ON audit_posts (due_at);
  CREATE TABLE IF NOT EXISTS seen_revisions (
    app TEXT NOT NULL,
    rule TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    seen_at INTEGER NOT NULL,
    PRIMARY KEY (app, rule)
  );
`;

/**
 * Each channel's burst window (Store.countBurstAlert): a few rows that live a minute or two,
 * outside the versioned layout, since a file of any version may simply gain the table.
 */
const BURST_SCHEMA = `
  CREATE TABLE IF NOT EXISTS alert_bursts (
    channel TEXT PRIMARY KEY,
    start INTEGER NOT NULL,
    alerts INTEGER NOT NULL,
    count_ts TEXT
  );
  CREATE TABLE IF NOT EXISTS alert_burst_shown (
    channel TEXT NOT NULL,
    replica TEXT NOT NULL,
    start INTEGER NOT NULL,
    shown INTEGER NOT NULL,
    PRIMARY KEY (channel, replica)
  );
`;

/**
 * How many subscriptions the file holds (Store.countSubscriptions), kept by triggers so that it
 * is read, not counted. Outside the versioned layout, as the burst windows are: a file of any
 * version may gain it, and since the triggers are the file's own, they keep it right whichever
 * version of the app writes. Counted afresh at every open (a few thousand rows at most), in the
 * open's transaction, so no write comes between the count and the triggers.
 */
const SUBSCRIPTION_TOTAL_SCHEMA = `
  CREATE TABLE IF NOT EXISTS subscription_total (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    total INTEGER NOT NULL
  );
  CREATE TRIGGER IF NOT EXISTS subscription_counted AFTER INSERT ON subscriptions BEGIN
    UPDATE subscription_total SET total = total + 1 WHERE id = 1;
  END;
  CREATE TRIGGER IF NOT EXISTS subscription_uncounted AFTER DELETE ON subscriptions BEGIN
    UPDATE subscription_total SET total = total - 1 WHERE id = 1;
  END;
  INSERT INTO subscription_total (id, total) SELECT 1, count(*) FROM subscriptions WHERE true
    ON CONFLICT (id) DO UPDATE SET total = excluded.total;
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
  return new SqliteStore(openDatabase(path), path, now);
}

/** Opens the file at `path`, in this version's layout (migrated if need be). */
function openDatabase(path: string): DatabaseSync {
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
      migrate(db, path);
      db.exec(SUBSCRIPTION_TOTAL_SCHEMA);
    });
    db.exec(BURST_SCHEMA);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Brings the file to SCHEMA_VERSION, or refuses one a newer version of the app wrote. */
function migrate(db: DatabaseSync, path: string): void {
  const version = schemaVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `${path} was written by a newer version of the app (schema ${version}, this one knows ${SCHEMA_VERSION})`,
    );
  }
  if (version === SCHEMA_VERSION) return;
  if (version === 1) migrateFromVersion1(db);
  // A new file, or version 2 to 10: every statement is IF NOT EXISTS, so an earlier file
  // gains the tables it lacks and keeps the rest; its tables gain the columns they lack.
  else {
    db.exec(SCHEMA);
    addColumn(db, 'audit_records', 'approval');
    addColumn(db, 'audit_records', 'subject');
    addColumn(db, 'known_permissions', 'ref');
  }
  addColumn(db, 'audit_records', 'moved_to_default');
  addColumn(db, 'audit_records', 'reverts');
  addColumn(db, 'audit_records', 'deleted_role');
  addColumn(db, 'audit_records', 'steps');
  dropReplacedIndexes(db);
  fileAuditRoles(db);
  countAudit(db);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

/** Every statement the store runs, prepared once. */
function prepareStatements(db: DatabaseSync) {
  return {
    ...stateStatements(db),
    ...auditStatements(db),
    ...approvalStatements(db),
    ...subscriptionStatements(db),
    ...burstStatements(db),
  };
}
type Statements = ReturnType<typeof prepareStatements>;

/** The known permissions, the claims and readiness's probe. */
function stateStatements(db: DatabaseSync) {
  return {
    // Readiness writes an expired claim no caller can name (claim ids are hex).
    probe: db.prepare(
      `INSERT INTO claims (id, expires_at) VALUES ('~readiness', ?)
       ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`,
    ),
    selectKnown: db.prepare(
      'SELECT app, role, permissions, seen_at, ref FROM known_permissions WHERE app = ? AND role = ?',
    ),
    // Every column is replaced, `ref` too: a map stored without one has none.
    upsertKnown: db.prepare(
      `INSERT INTO known_permissions (app, role, permissions, seen_at, ref) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (app, role) DO UPDATE
         SET permissions = excluded.permissions, seen_at = excluded.seen_at, ref = excluded.ref`,
    ),
    // One statement, so two connections cannot both take the claim: a row that exists is
    // replaced only when it has expired, and `changes` tells whether this call wrote it.
    takeClaim: db.prepare(
      `INSERT INTO claims (id, expires_at) VALUES (@id, @expiresAt)
       ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at
       WHERE claims.expires_at <= @now`,
    ),
    purgeClaims: db.prepare('DELETE FROM claims WHERE expires_at <= ?'),
    deleteClaim: db.prepare('DELETE FROM claims WHERE id = ?'),
    renewClaim: db.prepare(
      'UPDATE claims SET expires_at = @expiresAt WHERE id = @id AND expires_at > @now',
    ),
    selectRevisions: db.prepare(
      'SELECT app, rule, revision_id, seen_at FROM seen_revisions WHERE app = ?',
    ),
    upsertRevision: db.prepare(
      `INSERT INTO seen_revisions (app, rule, revision_id, seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (app, rule) DO UPDATE
         SET revision_id = excluded.revision_id, seen_at = excluded.seen_at`,
    ),
  };
}

/** The audit records, their roles, posts and intents. */
function auditStatements(db: DatabaseSync) {
  return {
    insertAudit: db.prepare(
      `INSERT INTO audit_records
         (ref, at, app, team_id, user_id, role, changes, before_source, outcome, service_message,
          error_kind, promoted_from, approval, subject, moved_to_default, reverts, deleted_role,
          steps)
       VALUES
         (@ref, @at, @app, @team_id, @user_id, @role, @changes, @before_source, @outcome,
          @service_message, @error_kind, @promoted_from, @approval, @subject, @moved_to_default,
          @reverts, @deleted_role, @steps)
       ON CONFLICT (ref) DO NOTHING`,
    ),
    insertAuditRole: db.prepare(INSERT_AUDIT_ROLE),
    selectAudit: db.prepare('SELECT * FROM audit_records WHERE ref = ?'),
    deletePending: db.prepare('DELETE FROM audit_intents WHERE ref = ?'),
    insertAuditPost: db.prepare(
      'INSERT INTO audit_posts (ref, due_at, post) VALUES (?, ?, ?) ON CONFLICT (ref) DO NOTHING',
    ),
    selectAuditPosts: db.prepare(
      'SELECT post FROM audit_posts WHERE due_at < ? ORDER BY due_at, ref LIMIT ?',
    ),
    updateAuditPost: db.prepare('UPDATE audit_posts SET due_at = ?, post = ? WHERE ref = ?'),
    deleteAuditPost: db.prepare('DELETE FROM audit_posts WHERE ref = ?'),
    upsertPending: db.prepare(
      `INSERT INTO audit_intents (ref, at, record) VALUES (?, ?, ?)
       ON CONFLICT (ref) DO UPDATE SET at = excluded.at, record = excluded.record`,
    ),
    selectPending: db.prepare('SELECT record FROM audit_intents WHERE at < ? ORDER BY at, ref'),
    // Read on audit_by_app_time_ref alone, in its order: the keyset is where the page begins.
    auditBetween: db.prepare(
      `SELECT * FROM audit_records
       WHERE app = @app AND at >= @from AND at < @to AND (at, ref) > (@at, @ref)
       ORDER BY at, ref LIMIT @limit`,
    ),
    prunedByApp: db.prepare(
      'SELECT app, count(*) AS removed FROM audit_records WHERE at < ? GROUP BY app',
    ),
    pruneAuditPosts: db.prepare(
      'DELETE FROM audit_posts WHERE ref IN (SELECT ref FROM audit_records WHERE at < ?)',
    ),
    pruneAuditRoles: db.prepare(
      'DELETE FROM audit_roles WHERE ref IN (SELECT ref FROM audit_records WHERE at < ?)',
    ),
    pruneAudit: db.prepare('DELETE FROM audit_records WHERE at < ?'),
    // One query per combination, so that each is planned on its own index.
    auditAll: prepareAudit(db, LISTING_SQL.auditAll),
    auditOfApp: prepareAudit(db, LISTING_SQL.auditOfApp),
    auditOfRole: prepareAudit(db, LISTING_SQL.auditOfRole),
    auditOfAppRole: prepareAudit(db, LISTING_SQL.auditOfAppRole),
  };
}

/** The approval requests. */
function approvalStatements(db: DatabaseSync) {
  return {
    upsertApproval: db.prepare(
      `INSERT INTO approvals (id, status, requested_at, request) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, request = excluded.request`,
    ),
    selectApproval: db.prepare('SELECT request FROM approvals WHERE id = ?'),
    selectOpenApprovals: db.prepare(
      "SELECT request FROM approvals WHERE status = 'open' ORDER BY requested_at, id",
    ),
    // The same terms as the partial index approvals_unended_steps, so that it is used.
    selectUnendedStepApprovals: db.prepare(
      `SELECT request FROM approvals
       WHERE json_extract(request, '$.workflowStep') IS NOT NULL
         AND json_extract(request, '$.stepCompletedAt') IS NULL
       ORDER BY requested_at, id`,
    ),
  };
}

/** Channels' subscriptions and the webhook events not handled yet. */
function subscriptionStatements(db: DatabaseSync) {
  return {
    upsertSubscription: db.prepare(
      `INSERT INTO subscriptions (id, app, channel, created_at, subscription) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET app = excluded.app, channel = excluded.channel,
         created_at = excluded.created_at, subscription = excluded.subscription`,
    ),
    deleteSubscription: db.prepare('DELETE FROM subscriptions WHERE id = ?'),
    // One query per combination, as for the audit below.
    subscriptionsAll: db.prepare(LISTING_SQL.subscriptionsAll),
    subscriptionsOfApp: db.prepare(LISTING_SQL.subscriptionsOfApp),
    subscriptionsOfChannel: db.prepare(LISTING_SQL.subscriptionsOfChannel),
    subscriptionsOfAppChannel: db.prepare(LISTING_SQL.subscriptionsOfAppChannel),
    subscriptionsIn: db.prepare(LISTING_SQL.subscriptionsIn),
    subscriptionTotal: db.prepare('SELECT total FROM subscription_total WHERE id = 1'),
    upsertWebhookEvent: db.prepare(
      `INSERT INTO webhook_events (id, received_at, event) VALUES (?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET received_at = excluded.received_at, event = excluded.event`,
    ),
    selectWebhookEvents: db.prepare(
      'SELECT event FROM webhook_events WHERE received_at < ? ORDER BY received_at, id LIMIT ?',
    ),
    deleteWebhookEvent: db.prepare('DELETE FROM webhook_events WHERE id = ?'),
  };
}

/** The burst windows: one UPSERT counts an alert, so two processes never count it twice. */
function burstStatements(db: DatabaseSync) {
  // Every SET expression reads the row as it was: the window is begun again when it has ended.
  const ended = '@now - alert_bursts.start >= @windowMs';
  return {
    countBurstAlert: db.prepare(
      `INSERT INTO alert_bursts (channel, start, alerts, count_ts) VALUES (@channel, @now, 1, NULL)
       ON CONFLICT (channel) DO UPDATE SET
         alerts = CASE WHEN ${ended} THEN 1 ELSE alert_bursts.alerts + 1 END,
         count_ts = CASE WHEN ${ended} THEN NULL ELSE alert_bursts.count_ts END,
         start = CASE WHEN ${ended} THEN @now ELSE alert_bursts.start END
       RETURNING start, alerts, count_ts`,
    ),
    pruneBursts: db.prepare('DELETE FROM alert_bursts WHERE start <= ?'),
    pruneBurstsShown: db.prepare('DELETE FROM alert_burst_shown WHERE start <= ?'),
    // A replica's row of an earlier window is replaced; the window must be the current one.
    upsertBurstShown: db.prepare(
      `INSERT INTO alert_burst_shown (channel, replica, start, shown)
       SELECT @channel, @replica, @start, @shown
         FROM alert_bursts WHERE channel = @channel AND start = @start
       ON CONFLICT (channel, replica) DO UPDATE SET start = excluded.start, shown = excluded.shown`,
    ),
    selectBurstShown: db.prepare(
      'SELECT replica, shown FROM alert_burst_shown WHERE channel = ? AND start = ?',
    ),
    selectBurst: db.prepare('SELECT start, alerts, count_ts FROM alert_bursts WHERE channel = ?'),
    setBurstCountTs: db.prepare(
      'UPDATE alert_bursts SET count_ts = ? WHERE channel = ? AND start = ?',
    ),
  };
}

/**
 * The listings' SQL, one query per combination of filters (as for the subscriptions): each has
 * an index that ends in its whole order, so a page is read from the index, newest first, and
 * stops at its last row; a page's total is read from audit_counts, not counted. Exported so that
 * the tests can check each one's query plan.
 */
export const LISTING_SQL = {
  auditAll: auditSql('', "WHERE role = ''"),
  auditOfApp: auditSql('WHERE app = @app', "WHERE app = @app AND role = ''"),
  auditOfRole: auditByRoleSql('WHERE r.role = @role', 'WHERE role = @role'),
  auditOfAppRole: auditByRoleSql(
    'WHERE r.app = @app AND r.role = @role',
    'WHERE app = @app AND role = @role',
  ),
  subscriptionsAll: subscriptionSql(''),
  subscriptionsOfApp: subscriptionSql('WHERE app = @app'),
  subscriptionsOfChannel: subscriptionSql('WHERE channel = @channel'),
  subscriptionsOfAppChannel: subscriptionSql('WHERE app = @app AND channel = @channel'),
  // `@channels` a JSON array: one probe of the channel index each, read in the index's order.
  subscriptionsIn: `SELECT subscription FROM subscriptions
    WHERE channel IN (SELECT value FROM json_each(@channels)) ORDER BY channel, created_at, id`,
};

/** A page of the records that `where` keeps (by `@app`), and their total (`countWhere`). */
function auditSql(where: string, countWhere: string) {
  return {
    page: `SELECT * FROM audit_records ${where} ORDER BY at DESC, ref DESC LIMIT @limit OFFSET @offset`,
    count: countSql(countWhere),
  };
}

/** {@link auditSql} of the records filed under a role (audit_roles `r`, by `@role`, `@app`). */
function auditByRoleSql(where: string, countWhere: string) {
  return {
    page: `SELECT a.* FROM audit_roles r JOIN audit_records a ON a.ref = r.ref ${where}
       ORDER BY r.at DESC, r.ref DESC LIMIT @limit OFFSET @offset`,
    count: countSql(countWhere),
  };
}

/** The total of the records that `where` keeps (by `@app`, `@role`; role '' for every role). */
function countSql(where: string) {
  return `SELECT coalesce(sum(total), 0) AS total FROM audit_counts ${where}`;
}

function prepareAudit(db: DatabaseSync, sql: { page: string; count: string }) {
  return { page: db.prepare(sql.page), count: db.prepare(sql.count) };
}

/** Files a record under a role; filing it twice under one role is filing it once. */
const INSERT_AUDIT_ROLE = `INSERT INTO audit_roles (ref, role, app, at) VALUES (?, ?, ?, ?)
  ON CONFLICT (ref, role) DO NOTHING`;

/** The subscriptions that `where` keeps (by `@app` and `@channel`), oldest first. */
function subscriptionSql(where: string) {
  return `SELECT subscription FROM subscriptions ${where} ORDER BY created_at, id`;
}

/**
 * The store's operations on an open file in this version's layout. They are arrow-function
 * fields, and the state `#private`, for the reason given at MemoryStore (store.ts).
 */
class SqliteStore implements Store {
  readonly #sql: Statements;
  /** The file's identity when opened, or none for `:memory:` (see `sameFile`). */
  readonly #opened: string | undefined;

  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #now: () => number;

  constructor(db: DatabaseSync, path: string, now: () => number) {
    this.#db = db;
    this.#path = path;
    this.#now = now;
    this.#sql = prepareStatements(db);
    this.#opened = path === ':memory:' ? undefined : fileIdentity(path);
  }

  readonly getKnownPermissions = async (
    app: string,
    role: string,
  ): Promise<KnownPermissions | undefined> => {
    this.#sameFile();
    const raw = this.#sql.selectKnown.get(app, role);
    if (raw === undefined) return undefined;
    const what = `known permissions of ${role} in ${app}`;
    const row = decodeStored(KnownRowSchema, raw, what);
    return {
      app: row.app,
      role: row.role,
      permissions: decodeStoredJson(PermissionMapSchema, row.permissions, what),
      seenAt: row.seen_at,
      ...(row.ref === null ? {} : { ref: row.ref }),
    };
  };

  readonly setKnownPermissions = async (known: KnownPermissions): Promise<void> => {
    this.#sameFile();
    const permissions = JSON.stringify(known.permissions);
    this.#sql.upsertKnown.run(known.app, known.role, permissions, known.seenAt, known.ref ?? null);
  };

  readonly getSeenRevisions = async (app: string): Promise<Map<string, SeenRevision>> => {
    this.#sameFile();
    const rows = this.#sql.selectRevisions.all(app);
    const seen = rows.map((raw) => {
      const row = decodeStored(RevisionRowSchema, raw, `a seen rule revision in ${app}`);
      return { app: row.app, rule: row.rule, revisionId: row.revision_id, seenAt: row.seen_at };
    });
    return new Map(seen.map((r) => [r.rule, r]));
  };

  readonly setSeenRevision = async (seen: SeenRevision): Promise<void> => {
    this.#sameFile();
    this.#sql.upsertRevision.run(seen.app, seen.rule, seen.revisionId, seen.seenAt);
  };

  readonly claim = async (id: string, ttlSeconds: number): Promise<boolean> => {
    this.#sameFile();
    // BEGIN IMMEDIATE: the write lock is taken first, so a busy file is waited for, not failed.
    return inTransaction(this.#db, 'IMMEDIATE', () => this.#takeClaim(id, ttlSeconds));
  };

  readonly renewClaim = async (id: string, ttlSeconds: number): Promise<boolean> => {
    this.#sameFile();
    const at = this.#now();
    const renewed = this.#sql.renewClaim.run({ id, expiresAt: at + ttlSeconds * 1000, now: at });
    return renewed.changes === 1;
  };

  readonly release = async (id: string): Promise<void> => {
    this.#sameFile();
    this.#sql.deleteClaim.run(id);
  };

  readonly appendAudit = async (record: AuditRecord, postTo?: string): Promise<void> => {
    this.#sameFile();
    // The record, its post and the end of its pending record in one transaction: a crash between them
    // cannot leave a pending record that the sweep would turn into a second record, nor a record
    // whose post is lost.
    inTransaction(this.#db, 'IMMEDIATE', () => {
      // A second record of a ref is ignored, and so are the roles it names and its post.
      const added = this.#sql.insertAudit.run(toRow(record)).changes === 1;
      if (added) {
        for (const role of auditRoles(record)) {
          this.#sql.insertAuditRole.run(record.ref, role, record.app, record.at);
        }
      }
      this.#sql.deletePending.run(record.ref);
      if (!added || postTo === undefined) return;
      const post: AuditPost = { record, channel: postTo, attempts: 0, dueAt: record.at };
      this.#sql.insertAuditPost.run(record.ref, post.dueAt, JSON.stringify(post));
    });
  };

  readonly listAuditPosts = async (before: number): Promise<AuditPost[]> => {
    this.#sameFile();
    const what = 'an audit post';
    return this.#sql.selectAuditPosts.all(before, AUDIT_POSTS_LIMIT).map((raw) => {
      const { post } = decodeStored(AuditPostRowSchema, raw, what);
      return decodeStoredJson(AuditPostSchema, post, what);
    });
  };

  readonly updateAuditPost = async (post: AuditPost): Promise<void> => {
    this.#sameFile();
    this.#sql.updateAuditPost.run(post.dueAt, JSON.stringify(post), post.record.ref);
  };

  readonly removeAuditPost = async (ref: string): Promise<void> => {
    this.#sameFile();
    this.#sql.deleteAuditPost.run(ref);
  };

  readonly putPending = async (record: AuditRecord): Promise<void> => {
    this.#sameFile();
    this.#sql.upsertPending.run(record.ref, record.at, JSON.stringify(record));
  };

  readonly listPending = async (before: number): Promise<AuditRecord[]> => {
    this.#sameFile();
    const what = 'an audit intent';
    return this.#sql.selectPending.all(before).map((raw) => {
      const { record } = decodeStored(PendingRowSchema, raw, what);
      return decodeStoredJson(AuditRecordSchema, record, what);
    });
  };

  readonly putApproval = async (request: ApprovalRequest): Promise<void> => {
    this.#sameFile();
    const { id, status, requestedAt } = request;
    this.#sql.upsertApproval.run(id, status, requestedAt, JSON.stringify(request));
  };

  readonly getApproval = async (id: string): Promise<ApprovalRequest | undefined> => {
    this.#sameFile();
    const raw = this.#sql.selectApproval.get(id);
    return raw === undefined ? undefined : decodeApproval(raw);
  };

  readonly listOpenApprovals = async (): Promise<ApprovalRequest[]> => {
    this.#sameFile();
    return this.#sql.selectOpenApprovals.all().map(decodeApproval);
  };

  readonly listUnendedStepApprovals = async (): Promise<ApprovalRequest[]> => {
    this.#sameFile();
    return this.#sql.selectUnendedStepApprovals.all().map(decodeApproval);
  };

  readonly listAudit = async ({ app, role, offset, limit }: AuditQuery): Promise<AuditPage> => {
    this.#sameFile();
    const filter: AuditFilter = {
      ...(app === undefined ? {} : { app }),
      ...(role === undefined ? {} : { role }),
    };
    const query = this.#auditQueryFor(filter);
    // A read transaction, so that the page and the total come from one snapshot. A negative
    // LIMIT means "no limit" to SQLite.
    const { rows, count } = inTransaction(this.#db, 'DEFERRED', () => ({
      rows: query.page.all({ ...filter, limit: Math.max(0, limit), offset: Math.max(0, offset) }),
      count: query.count.get(filter),
    }));
    return {
      records: rows.map(fromRow),
      total: decodeStored(CountRowSchema, count, 'an audit count').total,
    };
  };

  readonly getAudit = async (ref: string): Promise<AuditRecord | undefined> => {
    this.#sameFile();
    const raw = this.#sql.selectAudit.get(ref);
    return raw === undefined ? undefined : fromRow(raw);
  };

  readonly listAuditBetween = async (query: AuditRangeQuery): Promise<AuditRecord[]> => {
    this.#sameFile();
    const { app, from, to, after, limit } = query;
    // No `after`: a keyset before every record (no `at` is below `from` - 1 in this range).
    const at = after?.at ?? from - 1;
    const ref = after?.ref ?? '';
    return this.#sql.auditBetween
      .all({ app, from, to, at, ref, limit: Math.max(0, limit) })
      .map(fromRow);
  };

  readonly pruneAudit = async (before: number): Promise<Map<string, number>> => {
    this.#sameFile();
    return inTransaction(this.#db, 'IMMEDIATE', () => {
      const rows = decodeStored(PrunedRowsSchema, this.#sql.prunedByApp.all(before), 'a count');
      if (rows.length === 0) return new Map();
      this.#sql.pruneAuditPosts.run(before);
      this.#sql.pruneAuditRoles.run(before);
      this.#sql.pruneAudit.run(before);
      // The counts are kept by triggers on insert; a prune, the only deletion, counts afresh.
      countAudit(this.#db);
      return new Map(rows.map((row) => [row.app, row.removed]));
    });
  };

  readonly putSubscription = async (subscription: Subscription): Promise<void> => {
    this.#sameFile();
    const { id, app, channel, createdAt } = subscription;
    this.#sql.upsertSubscription.run(id, app, channel, createdAt, JSON.stringify(subscription));
  };

  readonly listSubscriptions = async ({
    app,
    channel,
  }: SubscriptionQuery): Promise<Subscription[]> => {
    this.#sameFile();
    const filter: SubscriptionFilter = {
      ...(app === undefined ? {} : { app }),
      ...(channel === undefined ? {} : { channel }),
    };
    return this.#subscriptionQueryFor(filter).all(filter).map(decodeSubscription);
  };

  readonly listSubscriptionsIn = async (channels: readonly string[]): Promise<Subscription[]> => {
    this.#sameFile();
    if (channels.length === 0) return [];
    const listed = this.#sql.subscriptionsIn.all({ channels: JSON.stringify(channels) });
    return listed.map(decodeSubscription);
  };

  readonly countSubscriptions = async (): Promise<number> => {
    this.#sameFile();
    const raw = this.#sql.subscriptionTotal.get();
    return decodeStored(CountRowSchema, raw, 'the subscription count').total;
  };

  readonly removeSubscription = async (id: string): Promise<boolean> => {
    this.#sameFile();
    return this.#sql.deleteSubscription.run(id).changes > 0;
  };

  readonly keepWebhookEvent = async (event: WebhookEvent, claimSeconds: number) => {
    this.#sameFile();
    // The claim and the event in one transaction: both are kept, or neither.
    return inTransaction(this.#db, 'IMMEDIATE', () => {
      if (!this.#takeClaim(webhookClaimId(event.id), claimSeconds)) return false;
      this.#sql.upsertWebhookEvent.run(event.id, event.receivedAt, JSON.stringify(event));
      return true;
    });
  };

  readonly listWebhookEvents = async (before: number): Promise<WebhookEvent[]> => {
    this.#sameFile();
    const what = 'a webhook event';
    return this.#sql.selectWebhookEvents.all(before, WEBHOOK_EVENTS_LIMIT).map((raw) => {
      const { event } = decodeStored(WebhookEventRowSchema, raw, what);
      return decodeStoredJson(WebhookEventSchema, event, what);
    });
  };

  readonly removeWebhookEvent = async (id: string): Promise<void> => {
    this.#sameFile();
    this.#sql.deleteWebhookEvent.run(id);
  };

  readonly countBurstAlert = async (
    channel: string,
    now: number,
    windowMs: number,
  ): Promise<BurstCount> => {
    this.#sameFile();
    const raw = this.#sql.countBurstAlert.get({ channel, now, windowMs });
    const { start, alerts } = decodeStored(BurstRowSchema, raw, `burst window of ${channel}`);
    // A new window prunes those long ended, so the tables hold about one row per busy channel.
    if (alerts === 1) {
      this.#sql.pruneBursts.run(now - 2 * windowMs);
      this.#sql.pruneBurstsShown.run(now - 2 * windowMs);
    }
    return { start, alerts };
  };

  readonly getBurstWindow = async (channel: string): Promise<BurstWindow | undefined> => {
    this.#sameFile();
    const what = `burst window of ${channel}`;
    const raw = this.#sql.selectBurst.get(channel);
    if (raw === undefined) return undefined;
    const row = decodeStored(BurstRowSchema, raw, what);
    const shown = decodeStored(
      BurstShownRowsSchema,
      this.#sql.selectBurstShown.all(channel, row.start),
      what,
    );
    return {
      start: row.start,
      alerts: row.alerts,
      ...(row.count_ts === null ? {} : { countTs: row.count_ts }),
      shown: Object.fromEntries(shown.map((r) => [r.replica, r.shown])),
    };
  };

  readonly setBurstShown = async (
    channel: string,
    start: number,
    replica: string,
    shown: number,
  ) => {
    this.#sameFile();
    this.#sql.upsertBurstShown.run({ channel, start, replica, shown });
  };

  readonly setBurstCountTs = async (channel: string, start: number, ts: string) => {
    this.#sameFile();
    this.#sql.setBurstCountTs.run(ts, channel, start);
  };

  readonly ping = async (): Promise<void> => {
    this.#sameFile();
    // A write, so that a file that can no longer be written (a read-only mount) is not ready.
    this.#sql.probe.run(this.#now() - 1);
  };

  readonly close = async (): Promise<void> => {
    if (this.#db.isOpen) this.#db.close();
  };

  /** Takes claim `id` unless a live one holds it; within the caller's transaction. */
  #takeClaim(id: string, ttlSeconds: number): boolean {
    const at = this.#now();
    // Expired claims are of no further use; dropping them here keeps the table small.
    this.#sql.purgeClaims.run(at);
    const taken = this.#sql.takeClaim.run({ id, expiresAt: at + ttlSeconds * 1000, now: at });
    return taken.changes === 1;
  }

  /**
   * The file is only the app's while it is the file at `path`: one deleted or replaced under the
   * open handle still takes writes, which a restart would never see. Every operation checks
   * first (a stat, microseconds), so readiness fails and no change is sent unrecorded.
   */
  #sameFile(): void {
    if (this.#opened !== undefined && fileIdentity(this.#path) !== this.#opened) {
      throw new StoreUnavailableError(
        `the SQLite file ${this.#path} was deleted or replaced while the app had it open; restart the app to open the file now at that path`,
      );
    }
  }

  #subscriptionQueryFor(filter: SubscriptionFilter): Statements['subscriptionsAll'] {
    if (filter.app !== undefined) {
      return filter.channel === undefined
        ? this.#sql.subscriptionsOfApp
        : this.#sql.subscriptionsOfAppChannel;
    }
    return filter.channel === undefined
      ? this.#sql.subscriptionsAll
      : this.#sql.subscriptionsOfChannel;
  }

  #auditQueryFor(filter: AuditFilter): Statements['auditAll'] {
    if (filter.app !== undefined)
      return filter.role === undefined ? this.#sql.auditOfApp : this.#sql.auditOfAppRole;
    return filter.role === undefined ? this.#sql.auditAll : this.#sql.auditOfRole;
  }
}

function decodeSubscription(raw: unknown): Subscription {
  const what = 'a subscription';
  const { subscription } = decodeStored(SubscriptionRowSchema, raw, what);
  return decodeStoredJson(SubscriptionSchema, subscription, what);
}

function decodeApproval(raw: unknown): ApprovalRequest {
  const what = 'an approval request';
  const { request } = decodeStored(ApprovalRowSchema, raw, what);
  return decodeStoredJson(ApprovalRequestSchema, request, what);
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

/**
 * Files every record of an earlier version under its roles (audit_roles, new in version 8): the
 * role it names, as that version listed it, and for a change of a user's role the roles it moved
 * between. A change whose subject or changes do not decode keeps its own role alone, so a damaged
 * row cannot stop the file from opening (it is reported when it is read).
 */
function fileAuditRoles(db: DatabaseSync): void {
  db.exec(
    `INSERT INTO audit_roles (ref, role, app, at) SELECT ref, role, app, at FROM audit_records
     WHERE true ON CONFLICT (ref, role) DO NOTHING`,
  );
  const insert = db.prepare(INSERT_AUDIT_ROLE);
  for (const raw of db.prepare('SELECT * FROM audit_records WHERE subject IS NOT NULL').iterate()) {
    let record: AuditRecord;
    try {
      record = fromRow(raw);
    } catch {
      continue;
    }
    for (const role of auditRoles(record)) insert.run(record.ref, role, record.app, record.at);
  }
}

/**
 * The indexes a later one replaced: listings by role read audit_roles since version 8; since
 * version 10 each listing's index ends in its whole order.
 */
function dropReplacedIndexes(db: DatabaseSync): void {
  for (const name of [
    'audit_by_app_role_time',
    'audit_by_app_time',
    'audit_by_time',
    'audit_roles_by_role_time',
    'audit_roles_by_app_role_time',
    'subscriptions_by_app',
    'subscriptions_by_channel',
  ]) {
    db.exec(`DROP INDEX IF EXISTS ${name}`);
  }
}

/**
 * Counts an earlier version's records once (audit_counts, new in version 10; the triggers keep
 * it from then on). Counted afresh, after every row a migration moved or filed: so a row the
 * triggers counted on the way is counted once.
 */
function countAudit(db: DatabaseSync): void {
  db.exec(`DELETE FROM audit_counts;
    INSERT INTO audit_counts (app, role, total)
      SELECT app, '', count(*) FROM audit_records GROUP BY app;
    INSERT INTO audit_counts (app, role, total)
      SELECT app, role, count(*) FROM audit_roles GROUP BY app, role;`);
}

/**
 * A column an earlier table lacks, added empty (no row of that version had one): the audit
 * table's `approval` (versions 2 and 3), `subject` (versions 2 to 4), `moved_to_default` and
 * `reverts` and `deleted_role` (versions 2 to 8), `steps` (versions 2 to 11), and the known permissions' `ref` (versions 2 to 5).
 */
function addColumn(db: DatabaseSync, ...[table, name]: AddedColumn): void {
  const hasColumn = db
    .prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?')
    .get(table, name);
  if (hasColumn === undefined) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} TEXT`);
}

/** The columns a migration adds, by table: names spliced into SQL, so never a caller's text. */
type AddedColumn =
  | [
      'audit_records',
      'approval' | 'subject' | 'moved_to_default' | 'reverts' | 'deleted_role' | 'steps',
    ]
  | ['known_permissions', 'ref'];

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
type SubscriptionFilter = { app?: string; channel?: string };

const KnownRowSchema = z.object({
  app: z.string(),
  role: z.string(),
  permissions: z.string(),
  seen_at: z.number(),
  ref: z.string().nullable(),
});

const RevisionRowSchema = z.object({
  app: z.string(),
  rule: z.string(),
  revision_id: z.string(),
  seen_at: z.number(),
});

const BurstRowSchema = z.object({
  start: z.number(),
  alerts: z.number(),
  count_ts: z.string().nullable(),
});

const BurstShownRowsSchema = z.array(z.object({ replica: z.string(), shown: z.number() }));

const PrunedRowsSchema = z.array(z.object({ app: z.string(), removed: z.number() }));

const UserVersionRowSchema = z.object({ user_version: z.number().int().nonnegative() });
const CountRowSchema = z.object({ total: z.number() });
const PendingRowSchema = z.object({ record: z.string() });
const ApprovalRowSchema = z.object({ request: z.string() });
const SubscriptionRowSchema = z.object({ subscription: z.string() });
const WebhookEventRowSchema = z.object({ event: z.string() });
const AuditPostRowSchema = z.object({ post: z.string() });

const AuditRowSchema = z.object({
  ref: z.string(),
  at: z.number(),
  app: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  role: z.string(),
  changes: z.string(),
  before_source: AuditRecordSchema.shape.beforeSource,
  outcome: AuditRecordSchema.shape.outcome,
  service_message: z.string().nullable(),
  error_kind: z.string().nullable(),
  promoted_from: z.string().nullable(),
  approval: z.string().nullable(),
  subject: z.string().nullable(),
  moved_to_default: z.string().nullable(),
  reverts: z.string().nullable(),
  deleted_role: z.string().nullable(),
  steps: z.string().nullable(),
});
type AuditRow = z.infer<typeof AuditRowSchema>;

const AuditStepsSchema = z.array(AuditStepSchema);

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
    subject: record.subject ? JSON.stringify(record.subject) : null,
    moved_to_default: record.movedToDefault ? JSON.stringify(record.movedToDefault) : null,
    reverts: record.reverts ?? null,
    deleted_role: record.deletedRole ? JSON.stringify(record.deletedRole) : null,
    steps: record.steps ? JSON.stringify(record.steps) : null,
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
    changes: decodeStoredJson(AuditChangesSchema, row.changes, what),
    beforeSource: row.before_source,
    outcome: row.outcome,
    ...(row.service_message === null ? {} : { serviceMessage: row.service_message }),
    ...(row.error_kind === null ? {} : { errorKind: row.error_kind }),
    ...(row.promoted_from === null ? {} : { promotedFrom: row.promoted_from }),
    ...(row.approval === null
      ? {}
      : { approval: decodeStoredJson(AuditApprovalSchema, row.approval, what) }),
    ...(row.subject === null
      ? {}
      : { subject: decodeStoredJson(ChangeSubjectSchema, row.subject, what) }),
    ...(row.moved_to_default === null
      ? {}
      : { movedToDefault: decodeStoredJson(MovedToDefaultSchema, row.moved_to_default, what) }),
    ...(row.reverts === null ? {} : { reverts: row.reverts }),
    ...(row.deleted_role === null
      ? {}
      : { deletedRole: decodeStoredJson(DeletedRoleSchema, row.deleted_role, what) }),
    ...(row.steps === null ? {} : { steps: decodeStoredJson(AuditStepsSchema, row.steps, what) }),
  };
}

/** What tells one file from another at the same path: its device and inode, or none at all. */
function fileIdentity(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}
