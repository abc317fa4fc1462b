import { createClient, ErrorReply } from 'redis';
import { z } from 'zod';
import { redactUrl } from './redact-url.ts';
import { type ApprovalRequest, type AuditRecord, DEFAULT_APP, type Store } from './store.ts';
import { StoreDataError, StoreUnavailableError } from './store-errors.ts';
import {
  ApprovalRequestSchema,
  AuditRecordSchema,
  decodeStored,
  KnownPermissionsSchema,
  parseStoredJson,
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
 *   app:<app>:known:<role>           string, JSON of KnownPermissions
 *   claim:<id>                       string with a TTL; its existence is the claim
 *   audit:<ref>                      string, JSON of AuditRecord; written with NX, so the first
 *                                    one stays (refs are unique across apps)
 *   audit-by-time                    sorted set of refs scored by `at` (every record)
 *   audit-by-role:<role>             sorted set of refs scored by `at` (one role, every app)
 *   app:<app>:audit-by-time          sorted set of refs scored by `at` (one app's records)
 *   app:<app>:audit-by-role:<role>   sorted set of refs scored by `at` (one app, one role)
 *   intent:<ref>                     string, JSON of the AuditRecord an update in flight becomes
 *                                    if the app stops before its answer (outcome `unknown`)
 *   intents-by-time                  sorted set of intent refs scored by `at`
 *   approval:<id>                    string, JSON of an ApprovalRequest
 *   approvals-open                   sorted set of the ids of open requests, scored by requestedAt
 * App names and role ids hold no `:` (see the config and ROLE_ID), so `app:<app>:` ends at its
 * first colon, and no key of one app is a key of another, or one of version 1's `known:<role>`.
 */
const SCHEMA_VERSION = 2;

// A record and its four index entries appear together or not at all, and a duplicate `ref`
// touches nothing (a MULTI could not skip the ZADDs when the SET NX fails). The intent of the
// ref goes in the same step, whichever record stays.
const APPEND_AUDIT_SCRIPT = `
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  for i = 4, #KEYS do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3]) end
  return 1
end
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
  const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const where = redactUrl(url);
  let lastError: Error | undefined;
  let everReady = false;

  const client = createClient({
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

  /** Runs Redis commands; a failure to reach Redis becomes a `StoreUnavailableError`. */
  async function run<T>(operation: string, commands: () => Promise<T>): Promise<T> {
    try {
      return await commands();
    } catch (error) {
      // An error reply is Redis answering (wrong type, script error), and a StoreDataError is
      // an answer that does not decode: not an outage.
      if (error instanceof ErrorReply || error instanceof StoreDataError) throw error;
      throw new StoreUnavailableError(
        `Redis at ${where} is unreachable (${operation}): ${describe(lastError ?? error)}`,
        { cause: error },
      );
    }
  }

  const versionKey = `${prefix}schema-version`;
  const appKey = (app: string) => `${prefix}app:${app}:`;
  const knownKey = (app: string, role: string) => `${appKey(app)}known:${role}`;
  const claimKey = (id: string) => `${prefix}claim:${id}`;
  const auditKey = (ref: string) => `${prefix}audit:${ref}`;
  const intentKey = (ref: string) => `${prefix}intent:${ref}`;
  const intentsByTimeKey = `${prefix}intents-by-time`;
  const approvalKey = (id: string) => `${prefix}approval:${id}`;
  const openApprovalsKey = `${prefix}approvals-open`;
  const byTimeKey = `${prefix}audit-by-time`;
  const byRoleKey = (role: string) => `${prefix}audit-by-role:${role}`;
  const appByTimeKey = (app: string) => `${appKey(app)}audit-by-time`;
  const appByRoleKey = (app: string, role: string) => `${appKey(app)}audit-by-role:${role}`;

  /** Brings the server to this layout, or refuses one a newer version of the app wrote. */
  async function migrate(): Promise<void> {
    let recorded = await client.get(versionKey);
    if (recorded === null) {
      // What follows `start` in each key of version 1 that begins with it: the role ids.
      const v1Roles = async (start: string) => {
        const keys: string[] = [];
        const match = `${globEscape(prefix + start)}*`;
        for await (const batch of client.scanIterator({ MATCH: match, COUNT: 1_000 })) {
          keys.push(...batch);
        }
        return keys.map((key) => key.slice(prefix.length + start.length));
      };
      const roles = await v1Roles('known:');
      const indexedRoles = await v1Roles('audit-by-role:');
      const reply = await client.eval(MIGRATE_FROM_VERSION_1_SCRIPT, {
        keys: [
          versionKey,
          byTimeKey,
          appByTimeKey(DEFAULT_APP),
          ...roles.flatMap((role) => [`${prefix}known:${role}`, knownKey(DEFAULT_APP, role)]),
          ...indexedRoles.flatMap((role) => [byRoleKey(role), appByRoleKey(DEFAULT_APP, role)]),
        ],
        arguments: [String(SCHEMA_VERSION), String(roles.length)],
      });
      recorded = decodeStored(z.string().nullable(), reply, 'the schema version');
      if (recorded === null) return;
    }
    if (recorded !== String(SCHEMA_VERSION)) {
      throw new StoreDataError(
        /^\d+$/.test(recorded) && Number(recorded) > SCHEMA_VERSION
          ? `Redis at ${where} was written by a newer version of the app (schema ${recorded}, this one knows ${SCHEMA_VERSION})`
          : `Redis at ${where} holds schema version ${JSON.stringify(recorded)}, which no version of the app writes`,
      );
    }
  }

  try {
    await run('open', migrate);
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw error;
  }

  /** The index that lists the records of `app` and `role`, each when given. */
  function auditIndex(app: string | undefined, role: string | undefined): string {
    if (app === undefined) return role === undefined ? byTimeKey : byRoleKey(role);
    return role === undefined ? appByTimeKey(app) : appByRoleKey(app, role);
  }

  return {
    async getKnownPermissions(app, role) {
      const text = await run('get known permissions', () => client.get(knownKey(app, role)));
      if (text === null) return undefined;
      const what = `known permissions of ${role} in ${app}`;
      return decodeStored(KnownPermissionsSchema, parseStoredJson(text, what), what);
    },
    async setKnownPermissions(known) {
      const text = JSON.stringify({
        app: known.app,
        role: known.role,
        permissions: known.permissions,
        seenAt: known.seenAt,
      });
      await run('set known permissions', () => client.set(knownKey(known.app, known.role), text));
    },
    async claim(id, ttlSeconds) {
      // PX rather than EX: a fractional TTL is kept, and never rounds down to "no expiry".
      const ttlMs = Math.max(1, Math.ceil(ttlSeconds * 1000));
      const reply = await run('claim', () =>
        client.set(claimKey(id), '1', {
          condition: 'NX',
          expiration: { type: 'PX', value: ttlMs },
        }),
      );
      return reply === 'OK';
    },
    async release(id) {
      await run('release', () => client.del(claimKey(id)));
    },
    async appendAudit(record) {
      const text = JSON.stringify(record satisfies AuditRecord);
      await run('append audit record', () =>
        client.eval(APPEND_AUDIT_SCRIPT, {
          keys: [
            auditKey(record.ref),
            intentKey(record.ref),
            intentsByTimeKey,
            byTimeKey,
            byRoleKey(record.role),
            appByTimeKey(record.app),
            appByRoleKey(record.app, record.role),
          ],
          arguments: [text, String(record.at), record.ref],
        }),
      );
    },
    async putIntent(record) {
      const text = JSON.stringify(record satisfies AuditRecord);
      await run('store audit intent', () =>
        client
          .multi()
          .set(intentKey(record.ref), text)
          .zAdd(intentsByTimeKey, { score: record.at, value: record.ref })
          .exec(),
      );
    },
    async listIntents(before) {
      const refs = await run('list audit intents', () =>
        client.zRangeByScore(intentsByTimeKey, '-inf', `(${before}`),
      );
      const refList = decodeStored(RefListSchema, refs, 'the intent index');
      if (refList.length === 0) return [];
      const texts = await run('list audit intents', () => client.mGet(refList.map(intentKey)));
      return texts.flatMap((text, i) => {
        const what = `audit intent ${refList[i]}`;
        return text === null
          ? []
          : [decodeStored(AuditRecordSchema, parseStoredJson(text, what), what)];
      });
    },
    async putApproval(request) {
      const text = JSON.stringify(request satisfies ApprovalRequest);
      // The request and its place in the open list change together.
      await run('store approval request', () => {
        const multi = client.multi().set(approvalKey(request.id), text);
        return (
          request.status === 'open'
            ? multi.zAdd(openApprovalsKey, { score: request.requestedAt, value: request.id })
            : multi.zRem(openApprovalsKey, request.id)
        ).exec();
      });
    },
    async getApproval(id) {
      const text = await run('get approval request', () => client.get(approvalKey(id)));
      if (text === null) return undefined;
      const what = `approval request ${id}`;
      return decodeStored(ApprovalRequestSchema, parseStoredJson(text, what), what);
    },
    async listOpenApprovals() {
      const ids = decodeStored(
        RefListSchema,
        await run('list approval requests', () => client.zRange(openApprovalsKey, 0, -1)),
        'the open approvals',
      );
      if (ids.length === 0) return [];
      const texts = await run('list approval requests', () => client.mGet(ids.map(approvalKey)));
      return texts.flatMap((text, i) => {
        const what = `approval request ${ids[i]}`;
        return text === null
          ? []
          : [decodeStored(ApprovalRequestSchema, parseStoredJson(text, what), what)];
      });
    },
    async listAudit({ app, role, offset, limit }) {
      const index = auditIndex(app, role);
      const start = Math.max(0, offset);
      const count = Math.max(0, limit);
      const [refs, total] = await run('list audit records', async () => {
        if (count === 0) return [[], await client.zCard(index)] as const;
        // One transaction, so that the page and the total agree. Equal times come in
        // descending ref order, as in the other stores.
        const [page, size] = await client
          .multi()
          .zRange(index, start, start + count - 1, { REV: true })
          .zCard(index)
          .exec();
        return [page, size] as const;
      });
      const refList = decodeStored(RefListSchema, refs, 'an audit index');
      const texts =
        refList.length === 0
          ? []
          : await run('list audit records', () => client.mGet(refList.map(auditKey)));
      const records: AuditRecord[] = [];
      texts.forEach((text, i) => {
        const what = `audit record ${refList[i]}`;
        // Records are never deleted, but a key removed by hand leaves only its index entry.
        if (text !== null)
          records.push(decodeStored(AuditRecordSchema, parseStoredJson(text, what), what));
      });
      return { records, total: decodeStored(CountSchema, total, 'an audit count') };
    },
    async ping() {
      await run('answer a ping', () => client.ping());
    },
    async close() {
      if (!client.isOpen) return;
      // Waits for commands in flight when connected; while reconnecting there is nothing to wait for.
      if (client.isReady) await client.close();
      else client.destroy();
    },
  };
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
