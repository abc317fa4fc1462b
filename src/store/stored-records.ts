import { z } from 'zod';
import { PermissionMapSchema, PermissionValueSchema } from '../cometchat/schemas.ts';
import {
  type ApprovalRequest,
  type AuditRecord,
  DEFAULT_APP,
  type KnownPermissions,
} from './store.ts';
import { StoreDataError } from './store-errors.ts';

/*
 * What a backend reads back is parsed, not cast: a file or a Redis key may have been written by
 * an older version of the app, or by hand. Unknown fields are dropped, so a newer writer does
 * not break an older reader. A record without `app` was written before the store knew of apps,
 * when there was only the one, so it reads as `DEFAULT_APP`.
 */

const AuditChangeSchema = z.object({
  key: z.string(),
  before: PermissionValueSchema,
  after: PermissionValueSchema,
  explicit: z.boolean(),
});

export const AuditChangesSchema = z.array(AuditChangeSchema);

export const AuditApprovalSchema = z.object({
  approvedBy: z.string(),
  approvedAt: z.number(),
  requestedAt: z.number(),
  reason: z.string().optional(),
});

export const AuditRecordSchema = z.object({
  ref: z.string(),
  at: z.number(),
  app: z.string().default(DEFAULT_APP),
  teamId: z.string(),
  userId: z.string(),
  role: z.string(),
  changes: AuditChangesSchema,
  beforeSource: z.enum(['last-update', 'defaults']),
  outcome: z.enum(['applied', 'failed', 'unknown']),
  serviceMessage: z.string().optional(),
  errorKind: z.string().optional(),
  promotedFrom: z.string().optional(),
  approval: AuditApprovalSchema.optional(),
}) satisfies z.ZodType<AuditRecord>;

export const ApprovalRequestSchema = z.object({
  id: z.string(),
  app: z.string(),
  role: z.string(),
  changes: AuditChangesSchema,
  seenAt: z.number().optional(),
  promotedFrom: z.string().optional(),
  teamId: z.string(),
  requester: z.string(),
  reason: z.string().optional(),
  requestedAt: z.number(),
  expiresAt: z.number(),
  channel: z.string(),
  ts: z.string().optional(),
  status: z.enum(['open', 'applied', 'failed', 'unknown', 'rejected', 'expired', 'stale']),
  decidedBy: z.string().optional(),
  decidedAt: z.number().optional(),
  rejectReason: z.string().optional(),
  ref: z.string().optional(),
}) satisfies z.ZodType<ApprovalRequest>;

export const KnownPermissionsSchema = z.object({
  app: z.string().default(DEFAULT_APP),
  role: z.string(),
  permissions: PermissionMapSchema,
  seenAt: z.number(),
}) satisfies z.ZodType<KnownPermissions>;

/** Parses `value` with `schema`, or throws a `StoreDataError` naming what was read. */
export function decodeStored<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new StoreDataError(`${what} in the store is not valid: ${z.prettifyError(result.error)}`);
}

/** `JSON.parse` that reports a broken value as a `StoreDataError`. */
export function parseStoredJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StoreDataError(`${what} in the store is not JSON`, { cause: error });
  }
}
