import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { z } from 'zod';
import { PermissionMapSchema } from '../../src/cometchat/schemas.ts';
import { type AuditRecord, DEFAULT_APP, type KnownPermissions } from '../../src/store/store.ts';
import { AuditChangesSchema } from '../../src/store/stored-records.ts';

/*
 * The state version 1 of the store (one CometChat app, keyed by role) was given to write, and
 * what it wrote: test/fixtures/store/generate-v1-fixtures.ts says how they were made. The files
 * are parsed here, not cast, so a fixture edited by hand into another shape fails loudly.
 */

const fixtures = fileURLToPath(new URL('../fixtures/store/', import.meta.url));

const V1StateSchema = z.strictObject({
  now: z.number(),
  known: z.array(
    z.strictObject({ role: z.string(), permissions: PermissionMapSchema, seenAt: z.number() }),
  ),
  audit: z.array(
    z.strictObject({
      ref: z.string(),
      at: z.number(),
      teamId: z.string(),
      userId: z.string(),
      role: z.string(),
      changes: AuditChangesSchema,
      beforeSource: z.enum(['last-update', 'defaults']),
      outcome: z.enum(['applied', 'failed']),
      serviceMessage: z.string().optional(),
      errorKind: z.string().optional(),
    }),
  ),
  claims: z.array(z.strictObject({ id: z.string(), ttlSeconds: z.number() })),
});

const v1State = V1StateSchema.parse(
  JSON.parse(readFileSync(join(fixtures, 'v1-state.json'), 'utf8')),
);

/** The clock version 1's SQLite store ran on while writing (claims expire relative to it). */
export const V1_WRITTEN_AT = v1State.now;

/** The claims version 1 took, each held for a day. */
export const V1_CLAIMS = v1State.claims;

/** The roles version 1 knew permissions of. */
export const V1_KNOWN_ROLES = v1State.known.map((k) => k.role);

/** What version 1 knew of `role`, as read now: in the default app. */
export function v1Known(role: string): KnownPermissions {
  const known = v1State.known.find((k) => k.role === role);
  if (!known) throw new Error(`version 1 knew nothing of ${role}`);
  return { app: DEFAULT_APP, ...known };
}

/** Version 1's audit records (of `role`, if given) as read now: default app, newest first. */
export function v1Audit(role?: string): AuditRecord[] {
  return v1State.audit
    .filter((r) => role === undefined || r.role === role)
    .map((r) => ({ app: DEFAULT_APP, ...r }))
    .sort((a, b) => b.at - a.at || b.ref.localeCompare(a.ref));
}

/** A copy, at `dir`/v1.sqlite, of the SQLite file version 1 wrote (the fixture stays untouched). */
export function copyV1SqliteFile(dir: string): string {
  const path = join(dir, 'v1.sqlite');
  copyFileSync(join(fixtures, 'v1.sqlite'), path);
  return path;
}

const RedisCaptureSchema = z.object({
  prefix: z.string(),
  keys: z.array(
    z.discriminatedUnion('type', [
      z.strictObject({
        key: z.string(),
        type: z.literal('string'),
        value: z.string(),
        ttlMs: z.number().int().positive().optional(),
      }),
      z.strictObject({
        key: z.string(),
        type: z.literal('zset'),
        members: z.array(z.strictObject({ value: z.string(), score: z.number() })),
      }),
    ]),
  ),
});

const redisCapture = RedisCaptureSchema.parse(
  JSON.parse(readFileSync(join(fixtures, 'v1-redis.json'), 'utf8')),
);

/** The key prefix version 1 wrote under (its default). */
export const V1_REDIS_PREFIX = redisCapture.prefix;

/**
 * Writes every key version 1 wrote into the Redis at `url`, under `prefix` instead of the one it
 * used, so that each test has a copy of its own on the shared server. Claims keep their TTL.
 */
export async function loadV1Redis(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for (const entry of redisCapture.keys) {
      if (!entry.key.startsWith(redisCapture.prefix)) {
        throw new Error(`${entry.key} is not under ${redisCapture.prefix}`);
      }
      const key = prefix + entry.key.slice(redisCapture.prefix.length);
      if (entry.type === 'zset') {
        await client.zAdd(key, entry.members);
      } else if (entry.ttlMs === undefined) {
        await client.set(key, entry.value);
      } else {
        await client.set(key, entry.value, { expiration: { type: 'PX', value: entry.ttlMs } });
      }
    }
  } finally {
    await client.close();
  }
}
