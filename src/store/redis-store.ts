import { createClient, ErrorReply } from 'redis';
import { z } from 'zod';
import { redactUrl } from './redact-url.ts';
import type { AuditRecord, Store } from './store.ts';
import { StoreUnavailableError } from './store-errors.ts';
import {
  AuditRecordSchema,
  decodeStored,
  KnownPermissionsSchema,
  parseStoredJson,
} from './stored-records.ts';

export interface RedisStoreOptions {
  /** Put before every key, so that apps (or tests) can share one Redis. */
  keyPrefix?: string | undefined;
}

export const DEFAULT_KEY_PREFIX = 'cometchat-ops:';

/** Attempts at the first connection before `createRedisStore` gives up. */
const INITIAL_CONNECT_ATTEMPTS = 3;
/** A command with no answer by then rejects, so a hung server cannot hang a Slack handler. */
const COMMAND_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;

/*
 * Keys, all under the prefix:
 *   known:<role>          string, JSON of KnownPermissions
 *   claim:<id>            string with a TTL; its existence is the claim
 *   audit:<ref>           string, JSON of AuditRecord; written with NX, so the first one stays
 *   audit-by-time         sorted set of refs scored by `at` (every record)
 *   audit-by-role:<role>  sorted set of refs scored by `at` (one role's records)
 */

// A record and its two index entries appear together or not at all, and a duplicate `ref`
// touches nothing (a MULTI could not skip the ZADDs when the SET NX fails).
const APPEND_AUDIT_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
  return 1
end
return 0
`;

/**
 * A store in Redis, shared by every replica of the app that points at the same server and prefix.
 * Claims are `SET NX` with an expiry, which Redis applies atomically and on its own clock, so
 * there is no `now` to inject here.
 *
 * Resolves once connected; rejects with a `StoreUnavailableError` if the server cannot be reached.
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
      // An error reply is Redis answering (wrong type, script error): not an outage.
      if (error instanceof ErrorReply) throw error;
      throw new StoreUnavailableError(
        `Redis at ${where} is unreachable (${operation}): ${describe(lastError ?? error)}`,
        { cause: error },
      );
    }
  }

  const knownKey = (role: string) => `${prefix}known:${role}`;
  const claimKey = (id: string) => `${prefix}claim:${id}`;
  const auditKey = (ref: string) => `${prefix}audit:${ref}`;
  const byTimeKey = `${prefix}audit-by-time`;
  const byRoleKey = (role: string) => `${prefix}audit-by-role:${role}`;

  return {
    async getKnownPermissions(role) {
      const text = await run('get known permissions', () => client.get(knownKey(role)));
      if (text === null) return undefined;
      const what = `known permissions of ${role}`;
      return decodeStored(KnownPermissionsSchema, parseStoredJson(text, what), what);
    },
    async setKnownPermissions(known) {
      const text = JSON.stringify({
        role: known.role,
        permissions: known.permissions,
        seenAt: known.seenAt,
      });
      await run('set known permissions', () => client.set(knownKey(known.role), text));
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
          keys: [auditKey(record.ref), byTimeKey, byRoleKey(record.role)],
          arguments: [text, String(record.at), record.ref],
        }),
      );
    },
    async listAudit({ role, offset, limit }) {
      const index = role === undefined ? byTimeKey : byRoleKey(role);
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

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describe).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
