import { createClient, ErrorReply, type RedisClientType } from 'redis';
import { z } from 'zod';
import { redactUrl } from './redact-url.ts';
import {
  AUDIT_POSTS_LIMIT,
  type AuditPage,
  type AuditQuery,
  type AuditRangeQuery,
  type BurstCount,
  type BurstWindow,
  bySubscriptionChannel,
  type Store,
  type SubscriptionQuery,
  WEBHOOK_EVENTS_LIMIT,
  webhookClaimId,
} from './store.ts';
import { StoreDataError, StoreUnavailableError } from './store-errors.ts';
import {
  type ApprovalRequest,
  ApprovalRequestSchema,
  type AuditPost,
  AuditPostSchema,
  type AuditRecord,
  AuditRecordSchema,
  auditRoles,
  DEFAULT_APP,
  decodeStored,
  decodeStoredJson,
  type KnownPermissions,
  KnownPermissionsSchema,
  type SeenRevision,
  SeenRevisionSchema,
  type Subscription,
  SubscriptionSchema,
  type WebhookEvent,
  WebhookEventSchema,
} from './stored-records.ts';

export interface RedisStoreOptions {
  /** Put before every key, so that several installs (or tests) can share one Redis. */
  keyPrefix?: string | undefined;
}

export const DEFAULT_KEY_PREFIX = 'cometchat-ops:';

/** Attempts at the first connection before `createRedisStore` gives up. */
const INITIAL_CONNECT_ATTEMPTS = 3;
/** A command with no answer by then rejects, so a hung server cannot hang a Slack handler. */
const COMMAND_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;

/*
 * Keys, all under the prefix, in layout version 2 (version 1 had no per-app keys):
 *   schema-version                   string, the layout's version; absent before version 2
 *   app:<app>:known:<role>           string, JSON of KnownPermissions (its `ref` added
 *                                    without a new version: an older reader drops it)
 *   claim:<id>                       string with a TTL; its existence is the claim
 *   audit:<ref>                      string, JSON of AuditRecord; written with NX, so the first
 *                                    one stays (refs are unique across apps)
 *   audit-by-time                    sorted set of refs scored by `at` (every record)
 *   audit-by-role:<role>             sorted set of refs scored by `at` (the records filed under
 *                                    one role, every app: see auditRoles)
 *   app:<app>:audit-by-time          sorted set of refs scored by `at` (one app's records)
 *   app:<app>:audit-by-role:<role>   sorted set of refs scored by `at` (one app, one role)
 *   audit-roles-filed                string, present once the records an earlier version wrote
 *                                    are filed under every role auditRoles names
 *   intent:<ref>                     string, JSON of the AuditRecord an update in flight becomes
 *                                    if the app stops before its answer (outcome `unknown`)
 *   intents-by-time                  sorted set of intent refs scored by `at`
 *   audit-posts                      hash, ref to JSON of an AuditPost Slack has not taken yet
 *   audit-posts-by-due               sorted set of those refs scored by `dueAt`
 *   approval:<id>                    string, JSON of an ApprovalRequest
 *   approvals-open                   sorted set of the ids of open requests, scored by requestedAt
 *   approvals-steps-unended          sorted set of the ids of requests a workflow step made whose
 *                                    step is not completed yet, scored by requestedAt
 *   subscriptions                    hash, subscription id to JSON of a Subscription
 *   subscriptions-by-time            sorted set of subscription ids scored by createdAt (all)
 *   app:<app>:subscriptions          sorted set of the ids of one app's subscriptions, likewise
 *   channel:<channel>:subscriptions  sorted set of the ids of one channel's subscriptions, likewise
 *   webhook-events                   hash, event id to JSON of a WebhookEvent not yet handled
 *   webhook-events-by-time           sorted set of those event ids scored by receivedAt
 *   burst:<channel>                  hash of a channel's burst window (start, alerts, ts, and
 *                                    shown:<replica> for each replica), which expires two
 *                                    windows after it began
 * App names and role ids hold no `:` (see the config and ROLE_ID), so `app:<app>:` ends at its
 * first colon, and no key of one app is a key of another, or one of version 1's `known:<role>`;
 * nor do Slack channel ids. The subscription, webhook-event and audit-post keys came without a
 * new version: they are new keys, which an older version never reads. Nor did filing a change
 * of a user's role under the role they were moved to as well as the one they had: an older
 * version lists such an index entry like any other.
 */
const SCHEMA_VERSION = 2;

// A record and its index entries (by time, and by each of its roles; each of every app and of
// its own) appear together or not at all, and a duplicate `ref`
// touches nothing (a MULTI could not skip the ZADDs when the SET NX fails). The intent of the
// ref goes in the same step, whichever record stays; and the post of a record added (ARGV[4],
// JSON of an AuditPost, or empty for none) comes with it, due at its `at`.
// KEYS: audit:<ref>, intent:<ref>, intents-by-time, audit-posts, audit-posts-by-due, then the
// record's indexes.
const APPEND_AUDIT_SCRIPT = `
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  for i = 6, #KEYS do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3]) end
  if ARGV[4] ~= '' then
    redis.call('HSET', KEYS[4], ARGV[3], ARGV[4])
    redis.call('ZADD', KEYS[5], ARGV[2], ARGV[3])
  end
  return 1
end
return 0
`;

/*
 * Replaces the kept audit post ARGV[1] (JSON ARGV[2], due at ARGV[3]) in the hash (KEYS[1]) and
 * the index (KEYS[2]); a post no longer kept stays gone.
 */
const UPDATE_AUDIT_POST_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`;

/*
 * Keeps a webhook event once (keepWebhookEvent): 0, with nothing written, while its claim
 * (KEYS[1]) is held; else the event (ARGV[2], a JSON text, under the id ARGV[1]) in the hash
 * (KEYS[2]) and the index by time (KEYS[3], score ARGV[3]), then the claim (for ARGV[4] ms), and
 * 1. The claim comes last because a script is not undone when a command in it fails: a failed
 * write then leaves no claim behind it, and the delivery's retry is taken.
 */
const KEEP_WEBHOOK_EVENT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('SET', KEYS[1], '1', 'PX', ARGV[4])
return 1
`;

// One alert more in a channel's burst window (KEYS[1]), begun again at ARGV[1] (now) when it
// has lasted ARGV[2] ms; the key expires two windows after its start. Returns start, alerts.
const COUNT_BURST_ALERT_SCRIPT = `
local kept = redis.call('HGET', KEYS[1], 'start')
local start = tonumber(kept)
local now = tonumber(ARGV[1])
if start == nil or now - start >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'start', ARGV[1], 'alerts', 1)
  redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[2]))
  return {ARGV[1], 1}
end
local alerts = redis.call('HINCRBY', KEYS[1], 'alerts', 1)
return {kept, alerts}
`;

// Sets field ARGV[2] to ARGV[3] while the window (KEYS[1]) is the one begun at ARGV[1].
const SET_BURST_FIELD_SCRIPT = `
if redis.call('HGET', KEYS[1], 'start') == ARGV[1] then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) end
return 0
`;

/*
 * Puts (ARGV[2] a JSON text) or removes (ARGV[2] empty) the subscription ARGV[1] with its index
 * entries, in one step: a put racing another put or a removal of the same id leaves one record,
 * listed once. The indexes the stored one is in are named by its `app` (absent: ARGV[4], the
 * default app) and `channel`, so the script makes their keys itself, as redisKeys does, from
 * the prefix (ARGV[5]): the one place keys are not passed as KEYS (the store is for one server,
 * not a cluster, whose MULTI could not span keys either). One that does not decode leaves its
 * entries behind, which list nothing (listSubscriptions reads the record). Returns 1 when a
 * subscription was there before, 0 when none was.
 *
 * KEYS: subscriptions, subscriptions-by-time, then for a put the new app's and channel's
 * indexes. ARGV[3] is the new `createdAt`.
 */
const PUT_SUBSCRIPTION_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local decoded, old = pcall(cjson.decode, current)
  if decoded and type(old) == 'table' then
    local app = old.app
    if app == nil then app = ARGV[4] end
    if type(app) == 'string' then
      redis.call('ZREM', ARGV[5] .. 'app:' .. app .. ':subscriptions', ARGV[1])
    end
    if type(old.channel) == 'string' then
      redis.call('ZREM', ARGV[5] .. 'channel:' .. old.channel .. ':subscriptions', ARGV[1])
    end
  end
end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  for i = 2, #KEYS do redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1]) end
end
if current then return 1 end
return 0
`;

/*
 * Version 1 kept one app's state: `known:<role>` strings, and the `audit-by-time` and
 * `audit-by-role:<role>` indexes, which keep their meaning (every record, every record of a role)
 * in version 2. Moving to version 2 puts all of it in app `default`: each `known:<role>` is
 * renamed to `app:default:known:<role>`, and the two indexes are copied into the default app's.
 * The records themselves stay as written; one without `app` reads as `default`.
 *
 * Once per server, at open, as one script, rather than lazily on read (which would have to merge
 * version 1's indexes into every listing of the default app, for good). Redis runs a script
 * alone, start to end, so when several replicas start at once exactly one migrates: the others'
 * scripts run after it, find `schema-version` and change nothing; and no replica ever reads a
 * half-moved state, as it could with a migration in steps under a lock (which could also expire
 * mid-way, or be left behind by a crashed replica). Version 1's keys are found (SCAN) before, by
 * the client, in steps, so the server is held only for the moves; a key the winner's SCAN missed
 * could only come from a version-1 replica still running, and those are to be stopped first:
 * what they write after the move is not read (`known:<role>`) or not listed under the default app.
 *
 * KEYS: schema-version, audit-by-time, app:default:audit-by-time, then pairs (old, new) of
 * ARGV[2] known-permission keys, then pairs (old, new) of role indexes. ARGV[1] is the version
 * to record. Returns the version already recorded, or nil once migrated.
 */
const MIGRATE_FROM_VERSION_1_SCRIPT = `
local recorded = redis.call('GET', KEYS[1])
if recorded then return recorded end
redis.call('ZUNIONSTORE', KEYS[3], 2, KEYS[3], KEYS[2], 'AGGREGATE', 'MAX')
local firstIndex = 4 + 2 * tonumber(ARGV[2])
for i = 4, firstIndex - 1, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('RENAME', KEYS[i], KEYS[i + 1]) end
end
for i = firstIndex, #KEYS, 2 do
  redis.call('ZUNIONSTORE', KEYS[i + 1], 2, KEYS[i + 1], KEYS[i], 'AGGREGATE', 'MAX')
end
redis.call('SET', KEYS[1], ARGV[1])
return nil
`;

/**
 * A store in Redis, shared by every replica of the app that points at the same server and prefix.
 * Claims are `SET NX` with an expiry, which Redis applies atomically and on its own clock, so
 * there is no `now` to inject here.
 *
 * Resolves once connected and the keys are in this version's layout (what version 1 wrote is
 * moved into app `default` first); rejects with a `StoreUnavailableError` if the server cannot be
 * reached, and with a `StoreDataError` if a newer version of the app wrote to it.
 * Later, while the connection is down, operations reject at once with a `StoreUnavailableError`
 * and the client reconnects in the background; connection errors never reach the process as an
 * unhandled 'error' event.
 */
export async function createRedisStore(
  url: string,
  options: RedisStoreOptions = {},
): Promise<Store> {
  const keys = redisKeys(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const connection = await connect(url);
  try {
    await run(connection, 'open', () => migrate(connection, keys));
  } catch (error) {
    if (connection.client.isOpen) connection.client.destroy();
    throw error;
  }
  return new RedisStore(connection, keys);
}

/** A connected client, and what its messages need to say where it points and why it failed. */
interface Connection {
  readonly client: RedisClientType;
  /** The server's URL with its password replaced. */
  readonly where: string;
  /**
   * The latest connection error the client reported, cleared once it is ready again. It says
   * why (a refused connection, a failed handshake), where a command rejected meanwhile may not.
   */
  lastError(): Error | undefined;
}

/**
 * Connects, giving up after INITIAL_CONNECT_ATTEMPTS (a `StoreUnavailableError`). A connection
 * lost later is retried in the background, for as long as it takes.
 */
async function connect(url: string): Promise<Connection> {
  const where = redactUrl(url);
  let lastError: Error | undefined;
  let everReady = false;
  const client: RedisClientType = createClient({
    url,
    // Queueing commands while disconnected would make a Slack handler wait for an outage to end.
    disableOfflineQueue: true,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries, cause) => {
        if (!everReady && retries >= INITIAL_CONNECT_ATTEMPTS - 1) return cause;
        return Math.min(2 ** retries * 50, 2_000);
      },
    },
  });
  client.on('error', (error: unknown) => {
    lastError = error instanceof Error ? error : new Error(String(error));
  });
  client.on('ready', () => {
    everReady = true;
    lastError = undefined;
  });
  try {
    await client.connect();
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw new StoreUnavailableError(
      `cannot connect to Redis at ${where}: ${describe(lastError ?? error)}`,
      { cause: error },
    );
  }
  return { client, where, lastError: () => lastError };
}

/** Runs Redis commands; a failure to reach Redis becomes a `StoreUnavailableError`. */
async function run<T>(
  connection: Connection,
  operation: string,
  commands: () => Promise<T>,
): Promise<T> {
  try {
    return await commands();
  } catch (error) {
    // An error reply is Redis answering (wrong type, script error), and a StoreDataError is
    // an answer that does not decode: not an outage.
    if (error instanceof ErrorReply || error instanceof StoreDataError) throw error;
    throw new StoreUnavailableError(
      `Redis at ${connection.where} is unreachable (${operation}): ${describe(connection.lastError() ?? error)}`,
      { cause: error },
    );
  }
}

/**
 * A claim's life in whole milliseconds (PX rather than EX): a fractional TTL is kept, and never
 * rounds down to "no expiry".
 */
function claimMs(ttlSeconds: number): number {
  return Math.max(1, Math.ceil(ttlSeconds * 1000));
}

/** COUNT_BURST_ALERT_SCRIPT's answer: start and alerts. */
const BurstReplySchema = z.tuple([z.coerce.number(), z.number()]);
/** A burst window's hash; `shown:<replica>` fields are read apart. */
const BurstHashSchema = z.looseObject({
  start: z.coerce.number(),
  alerts: z.coerce.number(),
  ts: z.string().optional(),
});
const SHOWN_FIELD = 'shown:';

/** The keys of the layout above, under `prefix`. */
function redisKeys(prefix: string) {
  const app = (name: string) => `${prefix}app:${name}:`;
  const byTime = `${prefix}audit-by-time`;
  const byRole = (role: string) => `${prefix}audit-by-role:${role}`;
  const appByTime = (name: string) => `${app(name)}audit-by-time`;
  const appByRole = (name: string, role: string) => `${app(name)}audit-by-role:${role}`;
  return {
    prefix,
    version: `${prefix}schema-version`,
    auditRolesFiled: `${prefix}audit-roles-filed`,
    known: (name: string, role: string) => `${app(name)}known:${role}`,
    /** A hash: each moderation rule's id to the revision this app last saw (JSON). */
    seenRevisions: (name: string) => `${app(name)}seen-revisions`,
    /** Version 1's known permissions of `role` (of its one app). */
    knownV1: (role: string) => `${prefix}known:${role}`,
    claim: (id: string) => `${prefix}claim:${id}`,
    audit: (ref: string) => `${prefix}audit:${ref}`,
    intent: (ref: string) => `${prefix}intent:${ref}`,
    pendingByTime: `${prefix}intents-by-time`,
    auditPosts: `${prefix}audit-posts`,
    auditPostsByDue: `${prefix}audit-posts-by-due`,
    approval: (id: string) => `${prefix}approval:${id}`,
    openApprovals: `${prefix}approvals-open`,
    unendedStepApprovals: `${prefix}approvals-steps-unended`,
    subscriptions: `${prefix}subscriptions`,
    subscriptionsByTime: `${prefix}subscriptions-by-time`,
    appSubscriptions: (name: string) => `${app(name)}subscriptions`,
    channelSubscriptions: (channel: string) => `${prefix}channel:${channel}:subscriptions`,
    webhookEvents: `${prefix}webhook-events`,
    webhookEventsByTime: `${prefix}webhook-events-by-time`,
    burst: (channel: string) => `${prefix}burst:${channel}`,
    byTime,
    byRole,
    appByTime,
    appByRole,
    /** The index that lists the records of `app` and `role`, each when given. */
    auditIndex(name: string | undefined, role: string | undefined): string {
      if (name === undefined) return role === undefined ? byTime : byRole(role);
      return role === undefined ? appByTime(name) : appByRole(name, role);
    },
  };
}
type RedisKeys = ReturnType<typeof redisKeys>;

/** Brings the server to this layout, or refuses one a newer version of the app wrote. */
async function migrate(connection: Connection, keys: RedisKeys): Promise<void> {
  const recorded =
    (await connection.client.get(keys.version)) ?? (await migrateFromVersion1(connection, keys));
  if (recorded === null || recorded === String(SCHEMA_VERSION)) {
    await fileAuditRoles(connection, keys);
    return;
  }
  throw new StoreDataError(
    /^\d+$/.test(recorded) && Number(recorded) > SCHEMA_VERSION
      ? `Redis at ${connection.where} was written by a newer version of the app (schema ${recorded}, this one knows ${SCHEMA_VERSION})`
      : `Redis at ${connection.where} holds schema version ${JSON.stringify(recorded)}, which no version of the app writes`,
  );
}

/**
 * Runs MIGRATE_FROM_VERSION_1_SCRIPT on what version 1 left (none of it, on a new server).
 * Returns the version another replica recorded meanwhile, or null once migrated.
 */
async function migrateFromVersion1(
  { client }: Connection,
  keys: RedisKeys,
): Promise<string | null> {
  // What follows `start` in each key of version 1 that begins with it: the role ids.
  const v1Roles = async (start: string) => {
    const found: string[] = [];
    const match = `${globEscape(keys.prefix + start)}*`;
    for await (const batch of client.scanIterator({ MATCH: match, COUNT: 1_000 })) {
      found.push(...batch);
    }
    return found.map((key) => key.slice(keys.prefix.length + start.length));
  };
  const roles = await v1Roles('known:');
  const indexedRoles = await v1Roles('audit-by-role:');
  const reply = await client.eval(MIGRATE_FROM_VERSION_1_SCRIPT, {
    keys: [
      keys.version,
      keys.byTime,
      keys.appByTime(DEFAULT_APP),
      ...roles.flatMap((role) => [keys.knownV1(role), keys.known(DEFAULT_APP, role)]),
      ...indexedRoles.flatMap((role) => [keys.byRole(role), keys.appByRole(DEFAULT_APP, role)]),
    ],
    arguments: [String(SCHEMA_VERSION), String(roles.length)],
  });
  return decodeStored(z.string().nullable(), reply, 'the schema version');
}

/** How many audit records fileAuditRoles reads at a time. */
const FILING_BATCH = 500;

/**
 * Files the records an earlier version wrote under every role auditRoles names (a change of a
 * user's role under the role they were moved to as well), once per server: then
 * `audit-roles-filed` is set. The entries are added by ZADD, which a second replica doing the
 * same at the same time repeats harmlessly. A record that does not decode is left under the
 * role it was filed under (it is reported when it is read). A replica of an earlier version
 * still running meanwhile files what it writes after the SCAN under the first role alone.
 */
async function fileAuditRoles({ client }: Connection, keys: RedisKeys): Promise<void> {
  if ((await client.exists(keys.auditRolesFiled)) === 1) return;
  const match = `${globEscape(keys.audit(''))}*`;
  for await (const batch of client.scanIterator({ MATCH: match, COUNT: 1_000 })) {
    for (let i = 0; i < batch.length; i += FILING_BATCH) {
      const texts = await client.mGet(batch.slice(i, i + FILING_BATCH));
      const multi = client.multi();
      for (const text of texts) {
        const record = text === null ? undefined : readRecord(text);
        if (!record) continue;
        const entry = { score: record.at, value: record.ref };
        // The first is the role it was filed under when it was written.
        for (const role of auditRoles(record).slice(1)) {
          multi.zAdd(keys.byRole(role), entry).zAdd(keys.appByRole(record.app, role), entry);
        }
      }
      await multi.exec();
    }
  }
  await client.set(keys.auditRolesFiled, '1');
}

/** An audit record as stored, or undefined when it does not decode. */
function readRecord(text: string): AuditRecord | undefined {
  try {
    return decodeStoredJson(AuditRecordSchema, text, 'an audit record');
  } catch {
    return undefined;
  }
}

/**
 * The store's operations on a connected server whose keys are in this version's layout. They are
 * arrow-function fields, and the state `#private`, for the reason given at MemoryStore
 * (store.ts).
 */
class RedisStore implements Store {
  readonly #connection: Connection;
  readonly #client: RedisClientType;
  readonly #keys: RedisKeys;

  constructor(connection: Connection, keys: RedisKeys) {
    this.#connection = connection;
    this.#keys = keys;
    this.#client = connection.client;
  }

  readonly getKnownPermissions = async (
    app: string,
    role: string,
  ): Promise<KnownPermissions | undefined> => {
    const text = await this.#run('get known permissions', () =>
      this.#client.get(this.#keys.known(app, role)),
    );
    if (text === null) return undefined;
    return decodeStoredJson(KnownPermissionsSchema, text, `known permissions of ${role} in ${app}`);
  };

  readonly getSeenRevisions = async (app: string): Promise<Map<string, SeenRevision>> => {
    const fields = await this.#run('get seen revisions', () =>
      this.#client.hGetAll(this.#keys.seenRevisions(app)),
    );
    const seen = Object.entries(fields).map(([rule, text]) =>
      decodeStoredJson(SeenRevisionSchema, text, `the seen revision of ${rule} in ${app}`),
    );
    return new Map(seen.map((r) => [r.rule, r]));
  };

  readonly setSeenRevision = async (seen: SeenRevision): Promise<void> => {
    const text = JSON.stringify(seen);
    await this.#run('set seen revision', () =>
      this.#client.hSet(this.#keys.seenRevisions(seen.app), seen.rule, text),
    );
  };

  readonly setKnownPermissions = async (known: KnownPermissions): Promise<void> => {
    // `ref` is left out when absent (JSON has no undefined), as an earlier version wrote it.
    const text = JSON.stringify({
      app: known.app,
      role: known.role,
      permissions: known.permissions,
      seenAt: known.seenAt,
      ref: known.ref,
    });
    await this.#run('set known permissions', () =>
      this.#client.set(this.#keys.known(known.app, known.role), text),
    );
  };

  readonly claim = async (id: string, ttlSeconds: number): Promise<boolean> => {
    const reply = await this.#run('claim', () =>
      this.#client.set(this.#keys.claim(id), '1', {
        condition: 'NX',
        expiration: { type: 'PX', value: claimMs(ttlSeconds) },
      }),
    );
    return reply === 'OK';
  };

  readonly renewClaim = async (id: string, ttlSeconds: number): Promise<boolean> => {
    // PEXPIRE on a key that has expired or gone does nothing: a claim not held is not made.
    const renewed = await this.#run('renew claim', () =>
      this.#client.pExpire(this.#keys.claim(id), claimMs(ttlSeconds)),
    );
    return renewed === 1;
  };

  readonly release = async (id: string): Promise<void> => {
    await this.#run('release', () => this.#client.del(this.#keys.claim(id)));
  };

  readonly appendAudit = async (record: AuditRecord, postTo?: string): Promise<void> => {
    const keys = this.#keys;
    const text = JSON.stringify(record);
    const post: AuditPost | undefined =
      postTo === undefined ? undefined : { record, channel: postTo, attempts: 0, dueAt: record.at };
    await this.#run('append audit record', () =>
      this.#client.eval(APPEND_AUDIT_SCRIPT, {
        keys: [
          keys.audit(record.ref),
          keys.intent(record.ref),
          keys.pendingByTime,
          keys.auditPosts,
          keys.auditPostsByDue,
          keys.byTime,
          keys.appByTime(record.app),
          ...auditRoles(record).flatMap((role) => [
            keys.byRole(role),
            keys.appByRole(record.app, role),
          ]),
        ],
        arguments: [
          text,
          String(record.at),
          record.ref,
          post === undefined ? '' : JSON.stringify(post),
        ],
      }),
    );
  };

  readonly listAuditPosts = async (before: number): Promise<AuditPost[]> => {
    const operation = 'list audit posts';
    const refs = decodeStored(
      RefListSchema,
      await this.#run(operation, () =>
        this.#client.zRangeByScore(this.#keys.auditPostsByDue, '-inf', `(${before}`, {
          LIMIT: { offset: 0, count: AUDIT_POSTS_LIMIT },
        }),
      ),
      'the audit post index',
    );
    return this.#readFields(operation, this.#keys.auditPosts, refs, AuditPostSchema, 'audit post');
  };

  readonly updateAuditPost = async (post: AuditPost): Promise<void> => {
    const keys = this.#keys;
    await this.#run('update audit post', () =>
      this.#client.eval(UPDATE_AUDIT_POST_SCRIPT, {
        keys: [keys.auditPosts, keys.auditPostsByDue],
        arguments: [post.record.ref, JSON.stringify(post), String(post.dueAt)],
      }),
    );
  };

  readonly removeAuditPost = async (ref: string): Promise<void> => {
    const keys = this.#keys;
    await this.#run('remove audit post', () =>
      this.#client.multi().hDel(keys.auditPosts, ref).zRem(keys.auditPostsByDue, ref).exec(),
    );
  };

  readonly putPending = async (record: AuditRecord): Promise<void> => {
    const text = JSON.stringify(record);
    await this.#run('store audit intent', () =>
      this.#client
        .multi()
        .set(this.#keys.intent(record.ref), text)
        .zAdd(this.#keys.pendingByTime, { score: record.at, value: record.ref })
        .exec(),
    );
  };

  readonly listPending = async (before: number): Promise<AuditRecord[]> => {
    const operation = 'list audit intents';
    const refs = await this.#run(operation, () =>
      this.#client.zRangeByScore(this.#keys.pendingByTime, '-inf', `(${before}`),
    );
    const refList = decodeStored(RefListSchema, refs, 'the pending record index');
    return this.#readAll(operation, refList, this.#keys.intent, AuditRecordSchema, 'audit intent');
  };

  readonly putApproval = async (request: ApprovalRequest): Promise<void> => {
    const keys = this.#keys;
    const text = JSON.stringify(request);
    // The request and its places in the open list and the unended steps' change together.
    const member = { score: request.requestedAt, value: request.id };
    const unended = request.workflowStep !== undefined && request.stepCompletedAt === undefined;
    await this.#run('store approval request', () => {
      const multi = this.#client.multi().set(keys.approval(request.id), text);
      if (request.status === 'open') multi.zAdd(keys.openApprovals, member);
      else multi.zRem(keys.openApprovals, request.id);
      if (unended) multi.zAdd(keys.unendedStepApprovals, member);
      else multi.zRem(keys.unendedStepApprovals, request.id);
      return multi.exec();
    });
  };

  readonly getApproval = async (id: string): Promise<ApprovalRequest | undefined> => {
    const text = await this.#run('get approval request', () =>
      this.#client.get(this.#keys.approval(id)),
    );
    if (text === null) return undefined;
    return decodeStoredJson(ApprovalRequestSchema, text, `approval request ${id}`);
  };

  readonly listOpenApprovals = async (): Promise<ApprovalRequest[]> =>
    this.#approvalsIn(this.#keys.openApprovals, 'list approval requests', 'the open approvals');

  readonly listUnendedStepApprovals = async (): Promise<ApprovalRequest[]> =>
    this.#approvalsIn(
      this.#keys.unendedStepApprovals,
      'list approval requests of workflow steps',
      'the unended steps',
    );

  readonly listAudit = async ({ app, role, offset, limit }: AuditQuery): Promise<AuditPage> => {
    const index = this.#keys.auditIndex(app, role);
    const start = Math.max(0, offset);
    const count = Math.max(0, limit);
    const [refs, total] = await this.#run('list audit records', async () => {
      if (count === 0) return [[], await this.#client.zCard(index)] as const;
      // One transaction, so that the page and the total agree. Equal times come in
      // descending ref order, as in the other stores.
      const [page, size] = await this.#client
        .multi()
        .zRange(index, start, start + count - 1, { REV: true })
        .zCard(index)
        .exec();
      return [page, size] as const;
    });
    const refList = decodeStored(RefListSchema, refs, 'an audit index');
    return {
      records: await this.#readAll(
        'list audit records',
        refList,
        this.#keys.audit,
        AuditRecordSchema,
        'audit record',
      ),
      total: decodeStored(CountSchema, total, 'an audit count'),
    };
  };

  readonly getAudit = async (ref: string): Promise<AuditRecord | undefined> => {
    const text = await this.#run('get audit record', () => this.#client.get(this.#keys.audit(ref)));
    if (text === null) return undefined;
    return decodeStoredJson(AuditRecordSchema, text, `audit record ${ref}`);
  };

  readonly listAuditBetween = async (query: AuditRangeQuery): Promise<AuditRecord[]> => {
    const { app, from, to, after, limit } = query;
    const index = this.#keys.appByTime(app);
    const count = Math.max(0, limit);
    const operation = 'list audit records between';
    const refs = await this.#run(operation, async () => {
      // A sorted set orders equal scores by member: the records of the keyset's own time that
      // come after it first, then those of later times. Only refs are read here.
      const same =
        after && after.at >= from
          ? (await this.#client.zRangeByScore(index, after.at, after.at)).filter(
              (ref) => ref > after.ref,
            )
          : [];
      const rest = count - same.length;
      if (rest <= 0) return same.slice(0, count);
      const lower = after && after.at >= from ? `(${after.at}` : String(from);
      const later = await this.#client.zRangeByScore(index, lower, `(${to}`, {
        LIMIT: { offset: 0, count: rest },
      });
      return [...same, ...later];
    });
    const refList = decodeStored(RefListSchema, refs, 'an audit index');
    return this.#readAll(operation, refList, this.#keys.audit, AuditRecordSchema, 'audit record');
  };

  readonly pruneAudit = async (before: number): Promise<Map<string, number>> => {
    const removed = new Map<string, number>();
    const keys = this.#keys;
    for (;;) {
      const refs = decodeStored(
        RefListSchema,
        await this.#run('list audit records to prune', () =>
          this.#client.zRangeByScore(keys.byTime, '-inf', `(${before}`, {
            LIMIT: { offset: 0, count: FILING_BATCH },
          }),
        ),
        'an audit index',
      );
      if (refs.length === 0) return removed;
      const texts = await this.#run('read audit records to prune', () =>
        this.#client.mGet(refs.map(keys.audit)),
      );
      const multi = this.#client.multi();
      refs.forEach((ref, i) => {
        multi.del(keys.audit(ref)).zRem(keys.byTime, ref);
        multi.hDel(keys.auditPosts, ref).zRem(keys.auditPostsByDue, ref);
        const text = texts[i];
        const record = text === null || text === undefined ? undefined : readRecord(text);
        // One that does not decode names no app or roles: its other entries list nothing.
        if (!record) return;
        multi.zRem(keys.appByTime(record.app), ref);
        for (const role of auditRoles(record)) {
          multi.zRem(keys.byRole(role), ref).zRem(keys.appByRole(record.app, role), ref);
        }
        removed.set(record.app, (removed.get(record.app) ?? 0) + 1);
      });
      await this.#run('prune audit records', () => multi.exec());
    }
  };

  readonly putSubscription = async (subscription: Subscription): Promise<void> => {
    await this.#writeSubscription('store subscription', subscription.id, subscription);
  };

  readonly listSubscriptions = async ({
    app,
    channel,
  }: SubscriptionQuery): Promise<Subscription[]> => {
    const operation = 'list subscriptions';
    const keys = this.#keys;
    // A channel has few subscriptions: with an app as well, its own are read and narrowed.
    const index =
      channel !== undefined
        ? keys.channelSubscriptions(channel)
        : app !== undefined
          ? keys.appSubscriptions(app)
          : keys.subscriptionsByTime;
    const ids = decodeStored(
      RefListSchema,
      await this.#run(operation, () => this.#client.zRange(index, 0, -1)),
      'a subscription index',
    );
    const subscriptions = await this.#readFields(
      operation,
      keys.subscriptions,
      ids,
      SubscriptionSchema,
      'subscription',
    );
    // The record decides, not the index: an entry left behind (a key edited by hand) lists
    // nothing where the subscription is not.
    return subscriptions.filter(
      (s) =>
        (app === undefined || s.app === app) && (channel === undefined || s.channel === channel),
    );
  };

  readonly listSubscriptionsIn = async (channels: readonly string[]): Promise<Subscription[]> => {
    const operation = 'list subscriptions of channels';
    const keys = this.#keys;
    const asked = new Set(channels);
    if (asked.size === 0) return [];
    // Every channel's index in one round trip (a pipeline: no transaction is needed, as the
    // records are read after anyway), then their records in one more.
    const replies = await this.#run(operation, () => {
      const pipeline = this.#client.multi();
      for (const channel of asked) pipeline.zRange(keys.channelSubscriptions(channel), 0, -1);
      return pipeline.execAsPipeline();
    });
    const ids = decodeStored(z.array(RefListSchema), replies, 'a subscription index').flat();
    const subscriptions = await this.#readFields(
      operation,
      keys.subscriptions,
      [...new Set(ids)],
      SubscriptionSchema,
      'subscription',
    );
    // The record decides, as in listSubscriptions, and so does the order: an entry left behind
    // in another channel's index would otherwise misplace it.
    return subscriptions.filter((s) => asked.has(s.channel)).sort(bySubscriptionChannel);
  };

  readonly countSubscriptions = async (): Promise<number> => {
    const count = await this.#run('count subscriptions', () =>
      this.#client.hLen(this.#keys.subscriptions),
    );
    return decodeStored(CountSchema, count, 'the subscription count');
  };

  readonly removeSubscription = async (id: string): Promise<boolean> => {
    return this.#writeSubscription('remove subscription', id, undefined);
  };

  readonly keepWebhookEvent = async (event: WebhookEvent, claimSeconds: number) => {
    const keys = this.#keys;
    const kept = await this.#run('keep webhook event', () =>
      this.#client.eval(KEEP_WEBHOOK_EVENT_SCRIPT, {
        keys: [keys.claim(webhookClaimId(event.id)), keys.webhookEvents, keys.webhookEventsByTime],
        arguments: [
          event.id,
          JSON.stringify(event),
          String(event.receivedAt),
          String(claimMs(claimSeconds)),
        ],
      }),
    );
    return kept === 1;
  };

  readonly listWebhookEvents = async (before: number): Promise<WebhookEvent[]> => {
    const operation = 'list webhook events';
    const ids = decodeStored(
      RefListSchema,
      await this.#run(operation, () =>
        this.#client.zRangeByScore(this.#keys.webhookEventsByTime, '-inf', `(${before}`, {
          LIMIT: { offset: 0, count: WEBHOOK_EVENTS_LIMIT },
        }),
      ),
      'the webhook event index',
    );
    return this.#readFields(
      operation,
      this.#keys.webhookEvents,
      ids,
      WebhookEventSchema,
      'webhook event',
    );
  };

  readonly removeWebhookEvent = async (id: string): Promise<void> => {
    const keys = this.#keys;
    await this.#run('remove webhook event', () =>
      this.#client.multi().hDel(keys.webhookEvents, id).zRem(keys.webhookEventsByTime, id).exec(),
    );
  };

  readonly countBurstAlert = async (
    channel: string,
    now: number,
    windowMs: number,
  ): Promise<BurstCount> => {
    const reply = await this.#run('count a burst alert', () =>
      this.#client.eval(COUNT_BURST_ALERT_SCRIPT, {
        keys: [this.#keys.burst(channel)],
        arguments: [String(now), String(windowMs)],
      }),
    );
    const [start, alerts] = decodeStored(BurstReplySchema, reply, `burst window of ${channel}`);
    return { start, alerts };
  };

  readonly getBurstWindow = async (channel: string): Promise<BurstWindow | undefined> => {
    const fields = await this.#run('read a burst window', () =>
      this.#client.hGetAll(this.#keys.burst(channel)),
    );
    if (fields.start === undefined) return undefined;
    const window = decodeStored(BurstHashSchema, fields, `burst window of ${channel}`);
    const shown: Record<string, number> = {};
    for (const [field, value] of Object.entries(fields)) {
      if (field.startsWith(SHOWN_FIELD)) shown[field.slice(SHOWN_FIELD.length)] = Number(value);
    }
    return {
      start: window.start,
      alerts: window.alerts,
      ...(window.ts ? { countTs: window.ts } : {}),
      shown,
    };
  };

  readonly setBurstCountTs = async (channel: string, start: number, ts: string) => {
    await this.#setBurstField('keep a count message', channel, start, 'ts', ts);
  };

  readonly setBurstShown = async (
    channel: string,
    start: number,
    replica: string,
    shown: number,
  ) => {
    const field = SHOWN_FIELD + replica;
    await this.#setBurstField(
      'keep what a count message shows',
      channel,
      start,
      field,
      String(shown),
    );
  };

  async #setBurstField(
    operation: string,
    channel: string,
    start: number,
    field: string,
    value: string,
  ) {
    await this.#run(operation, () =>
      this.#client.eval(SET_BURST_FIELD_SCRIPT, {
        keys: [this.#keys.burst(channel)],
        arguments: [String(start), field, value],
      }),
    );
  }

  readonly ping = async (): Promise<void> => {
    await this.#run('answer a ping', () => this.#client.ping());
  };

  readonly close = async (): Promise<void> => {
    if (!this.#client.isOpen) return;
    // Waits for commands in flight when connected; while reconnecting there is nothing to wait for.
    if (this.#client.isReady) await this.#client.close();
    else this.#client.destroy();
  };

  #run<T>(operation: string, commands: () => Promise<T>): Promise<T> {
    return run(this.#connection, operation, commands);
  }

  /**
   * Puts `subscription` under `id`, or removes what is there (`undefined`), with its index
   * entries (PUT_SUBSCRIPTION_SCRIPT). True when a subscription of that id was there.
   */
  async #writeSubscription(
    operation: string,
    id: string,
    subscription: Subscription | undefined,
  ): Promise<boolean> {
    const keys = this.#keys;
    const reply = await this.#run(operation, () =>
      this.#client.eval(PUT_SUBSCRIPTION_SCRIPT, {
        keys: [
          keys.subscriptions,
          keys.subscriptionsByTime,
          ...(subscription === undefined
            ? []
            : [
                keys.appSubscriptions(subscription.app),
                keys.channelSubscriptions(subscription.channel),
              ]),
        ],
        arguments: [
          id,
          subscription === undefined ? '' : JSON.stringify(subscription),
          String(subscription?.createdAt ?? 0),
          DEFAULT_APP,
          keys.prefix,
        ],
      }),
    );
    return decodeStored(z.number(), reply, 'a subscription write') === 1;
  }

  /** The fields `ids` of the hash `key`, each parsed with `schema`, in the order of `ids`. */
  async #readFields<T>(
    operation: string,
    key: string,
    ids: readonly string[],
    schema: z.ZodType<T>,
    what: string,
  ): Promise<T[]> {
    if (ids.length === 0) return [];
    const texts = await this.#run(operation, () => this.#client.hmGet(key, [...ids]));
    // A field gone since its index was read (removed meanwhile) leaves only its index entry.
    return texts.flatMap((text, i) =>
      text === null ? [] : [decodeStoredJson(schema, text, `${what} ${ids[i]}`)],
    );
  }

  /** The approval requests an index (a sorted set of ids) lists, in its order. */
  async #approvalsIn(index: string, operation: string, what: string): Promise<ApprovalRequest[]> {
    const ids = decodeStored(
      RefListSchema,
      await this.#run(operation, () => this.#client.zRange(index, 0, -1)),
      what,
    );
    return this.#readAll(
      operation,
      ids,
      this.#keys.approval,
      ApprovalRequestSchema,
      'approval request',
    );
  }

  /** The values of the keys of `ids`, each parsed with `schema`, in the order of `ids`. */
  async #readAll<T>(
    operation: string,
    ids: readonly string[],
    keyOf: (id: string) => string,
    schema: z.ZodType<T>,
    what: string,
  ): Promise<T[]> {
    if (ids.length === 0) return [];
    const texts = await this.#run(operation, () => this.#client.mGet(ids.map(keyOf)));
    // A key gone since its index was read (a pending record ended meanwhile), or removed by hand (records
    // are never deleted), leaves only its index entry: it is skipped.
    return texts.flatMap((text, i) =>
      text === null ? [] : [decodeStoredJson(schema, text, `${what} ${ids[i]}`)],
    );
  }
}

const RefListSchema = z.array(z.string());
const CountSchema = z.number().int().nonnegative();

/** `text` as a SCAN MATCH pattern that matches only itself. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describe).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
