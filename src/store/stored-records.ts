import { z } from 'zod';
import { GROUP_SCOPES } from '../cometchat/group-model.ts';
import { PermissionMapSchema, PermissionValueSchema, ROLE_ID } from '../cometchat/schemas.ts';
import { StoreDataError } from './store-errors.ts';

/*
 * The records the store keeps, each written once: as the schema a backend parses what it reads
 * back with, the type (`z.infer`) being derived from it. What is read back is parsed, not cast: a
 * file or a Redis key may have been written by an older version of the app, or by hand. Unknown
 * fields are dropped, so a newer writer does not break an older reader. A record without `app`
 * was written before the store knew of apps, when there was only the one, so it reads as
 * `DEFAULT_APP`.
 */

/**
 * The CometChat app of every record written before the store knew of apps, and the app of a
 * configuration that names none.
 */
export const DEFAULT_APP = 'default';

/** The last full permission map an app's CometChat returned for a role (from an update). */
export const KnownPermissionsSchema = z.object({
  /** The CometChat app's configured name. */
  app: z.string().default(DEFAULT_APP),
  role: z.string(),
  permissions: PermissionMapSchema,
  /** Unix milliseconds when it was seen. */
  seenAt: z.number(),
  /**
   * The reference of the change whose answer this is (its audit record's `ref`); absent from a
   * map an earlier version stored.
   */
  ref: z.string().optional(),
});
export type KnownPermissions = z.infer<typeof KnownPermissionsSchema>;

/**
 * The name a group's scope's permissions are known under, in the place of a role id (the `role`
 * of a known map, of an audit record and of an approval request): CometChat has no read of a
 * scope's values either, so the store keeps the last map an update answered, as for a role. A
 * role id is only `a-z 0-9 - _` (ROLE_ID), so a name with `:` in it is never a role's, and every
 * store already takes it (in a Redis key it follows `app:<app>:known:`, whose app holds no `:`).
 */
export function knownScopeKey(guid: string, scope: string): string {
  return `group:${guid}:${scope}`;
}

const AuditChangeSchema = z.object({
  key: z.string(),
  /** The value before, as far as known (see `beforeSource`); null when not set. */
  before: PermissionValueSchema,
  after: PermissionValueSchema,
  /** Sent although it equals the shown value, because the user asked to state it. */
  explicit: z.boolean(),
  /** Unset (back to its default, `after`), not set to a value; absent for a set key. */
  unset: z.literal(true).optional(),
});
export type AuditChange = z.infer<typeof AuditChangeSchema>;

export const AuditChangesSchema = z.array(AuditChangeSchema);

/** The approval behind a change (`userId` of its record is the person who asked). */
export const AuditApprovalSchema = z.object({
  approvedBy: z.string(),
  /** Unix milliseconds. */
  approvedAt: z.number(),
  requestedAt: z.number(),
  reason: z.string().optional(),
});
export type AuditApproval = z.infer<typeof AuditApprovalSchema>;

/**
 * What a change acts on when it is not a role's permissions: a CometChat user, whose `role` or
 * account `status` it changes (the record's `changes` then name those keys, and `role` is the
 * user's role when the change was asked for); or the role itself, created, renamed or described,
 * or deleted (the changes then name `name` and `description`, a created role's permissions
 * beside them, or `role` for a deletion).
 */
export const ChangeSubjectSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), uid: z.string() }),
  z.object({ kind: z.literal('role'), action: z.enum(['create', 'update', 'delete']) }),
  // A moderation decision: the message, its queue, and why it was there (never its text).
  z.object({
    kind: z.literal('message'),
    id: z.string(),
    queue: z.enum(['flagged', 'blocked']),
    rule: z.object({ id: z.string(), name: z.string() }).optional(),
    reasons: z.array(z.string()).optional(),
  }),
  // A moderation rule, replaced whole by one PUT; the record's `role` is the rule's id.
  z.object({ kind: z.literal('rule') }),
  // An account contained (or its containment reverted): its steps are the record's keys.
  z.object({ kind: z.literal('containment'), uid: z.string() }),
  // One user's messages deleted (the keys are their ids), soft or permanently; never their text.
  z.object({ kind: z.literal('messages'), sender: z.string(), permanent: z.boolean() }),
  // A group's scope's permissions; the record's `role` is knownScopeKey(guid, scope).
  z.object({ kind: z.literal('scope'), guid: z.string(), scope: z.enum(GROUP_SCOPES) }),
  // One member of one group: their scope, their membership (kicked) or a ban of them there.
  z.object({ kind: z.literal('group-member'), guid: z.string(), uid: z.string() }),
  // Not a change sent to CometChat: the audit records older than AUDIT_RETENTION_DAYS (`days`)
  // removed, those before `before` (Unix ms), `removed` of them (this app's; unknown when the app
  // stopped during the prune). Nothing to revert.
  z.object({
    kind: z.literal('retention'),
    before: z.number(),
    days: z.number().int().positive(),
    removed: z.number().int().nonnegative().optional(),
  }),
]);
export type ChangeSubject = z.infer<typeof ChangeSubjectSchema>;

/** The users a role's deletion left with `default` (see AuditRecord's `movedToDefault`). */
export const MovedToDefaultSchema = z.object({
  uids: z.array(z.string()),
  total: z.number().int().nonnegative(),
});

/**
 * A role as it was just before its deletion (see AuditRecord's `deletedRole`): its name and
 * description as CometChat had them, and its permissions as this app last saw them (absent: it
 * never saw them; CometChat answers a role's map only to a change), with when.
 */
export const DeletedRoleSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  permissions: PermissionMapSchema.optional(),
  seenAt: z.number().optional(),
});

/**
 * One step of a change sent as several requests (a containment): which of its keys, or which
 * group of its `bans` (`bans:<guid>`), what became of it, and CometChat's words or the count.
 */
export const AuditStepSchema = z.object({
  key: z.string(),
  outcome: z.enum(['applied', 'failed', 'unknown']),
  message: z.string(),
});
export type AuditStep = z.infer<typeof AuditStepSchema>;

/** One attempted change (a role's permissions, or a user's role or account), applied or not. */
export const AuditRecordSchema = z.object({
  /** The request's reference id: unique, shown to the user, in every log line of the attempt. */
  ref: z.string(),
  /** Unix milliseconds. */
  at: z.number(),
  /** The CometChat app's configured name. */
  app: z.string().default(DEFAULT_APP),
  teamId: z.string(),
  userId: z.string(),
  role: z.string(),
  changes: AuditChangesSchema,
  /**
   * Where the "before" values came from: the last update response seen, the defaults, or (for a
   * change to a user) CometChat itself, read at the review.
   */
  beforeSource: z.enum(['last-update', 'defaults', 'service']),
  /** `unknown`: the app stopped while the update was in flight (from a pending record; see putPending). */
  outcome: z.enum(['applied', 'failed', 'unknown']),
  /** The service's per-key messages (applied) or its error message (failed). */
  serviceMessage: z.string().optional(),
  /** The failure kind (`unavailable`, `timeout`, ...) when the outcome is `failed`. */
  errorKind: z.string().optional(),
  /** For a change promoted from another app: the `ref` of that app's record of the change. */
  promotedFrom: z.string().optional(),
  /** For a change approved by a second person: who, when, and the request's reason and time. */
  approval: AuditApprovalSchema.optional(),
  /** Absent for a change of a role's permissions. */
  subject: ChangeSubjectSchema.optional(),
  /**
   * For a role's deletion: the users who held the role just before it was sent, whom CometChat
   * leaves with `default` (every user holds one role). `uids` names at most one page (1000) of
   * them, `total` counts them all.
   */
  movedToDefault: MovedToDefaultSchema.optional(),
  /** For a role's deletion: the role as it was, so that the deletion can be put back. */
  deletedRole: DeletedRoleSchema.optional(),
  /** For a change that puts back another: the `ref` of that change's record. */
  reverts: z.string().optional(),
  /**
   * For a change of several steps (a containment): each step's outcome, in the order sent. A
   * record with a step that failed beside one that took is partial (failedSteps).
   */
  steps: z.array(AuditStepSchema).optional(),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

/**
 * A record's post to the audit channel, kept with the record (appendAudit) until Slack takes it:
 * a Slack failure, a rate limit or a stop in between loses no post; the sweep tries it again.
 */
export const AuditPostSchema = z.object({
  /** The record it posts; its `ref` names the post. */
  record: AuditRecordSchema,
  /** The Slack channel's id (AUDIT_CHANNEL when the record was kept). */
  channel: z.string(),
  /** Attempts Slack refused so far. */
  attempts: z.number().int().nonnegative(),
  /** Unix milliseconds: not tried again before then. */
  dueAt: z.number(),
});
export type AuditPost = z.infer<typeof AuditPostSchema>;

/**
 * The roles a record is filed under, which `listAudit` narrows by: the role it names, then, for
 * a change of a user's role, the roles the user was moved from and to, so that a move from
 * `premium` to `vip` is found under either. Only role ids: each is part of a Redis key. Pure.
 */
export function auditRoles(record: Pick<AuditRecord, 'role' | 'subject' | 'changes'>): string[] {
  const roles = [record.role];
  if (record.subject?.kind !== 'user') return roles;
  for (const { key, before, after } of record.changes) {
    if (key !== 'role') continue;
    for (const role of [before, after]) {
      if (typeof role === 'string' && ROLE_ID.test(role) && !roles.includes(role)) {
        roles.push(role);
      }
    }
  }
  return roles;
}

/**
 * The revision of a moderation rule this app last saw (the rules' daily check, or a change the
 * app sent): a later revision seen there was made outside this app.
 */
export const SeenRevisionSchema = z.object({
  app: z.string(),
  rule: z.string(),
  revisionId: z.string(),
  /** Unix milliseconds when it was seen. */
  seenAt: z.number(),
});
export type SeenRevision = z.infer<typeof SeenRevisionSchema>;

/** Where an approval request stands; only `open` can still be approved or rejected. */
const ApprovalStatusSchema = z.enum([
  'open',
  'applied',
  'failed',
  'unknown',
  'rejected',
  'expired',
  'stale',
]);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

/**
 * A change waiting for a second person (APPROVAL_CHANNEL): exactly what will be sent, against
 * which last known permissions it was reviewed, who asked and why, and what became of it.
 */
export const ApprovalRequestSchema = z.object({
  /** The change's id (as a confirmation's): its claim makes the approval apply at most once. */
  id: z.string(),
  app: z.string(),
  role: z.string(),
  /** Absent for a change of a role's permissions. */
  subject: ChangeSubjectSchema.optional(),
  changes: AuditChangesSchema,
  /** When the "before" values were seen; a newer update of the role makes the request stale. */
  seenAt: z.number().optional(),
  /** The ref of the change this one was promoted from, if any. */
  promotedFrom: z.string().optional(),
  /**
   * For a role's deletion: how many users held the role when it was requested (deactivated ones
   * included), shown to the approver; absent when CometChat could not say, and for other changes.
   */
  holders: z.number().int().nonnegative().optional(),
  teamId: z.string(),
  requester: z.string(),
  reason: z.string().optional(),
  /** Unix milliseconds. */
  requestedAt: z.number(),
  expiresAt: z.number(),
  /** Where the request was posted, and its message (`ts`) once posted. */
  channel: z.string(),
  ts: z.string().optional(),
  status: ApprovalStatusSchema,
  /** Who approved (applied, failed) or rejected it, when, and why (a rejection). */
  decidedBy: z.string().optional(),
  decidedAt: z.number().optional(),
  rejectReason: z.string().optional(),
  /** The ref of the attempt that applied it (its audit record's). */
  ref: z.string().optional(),
  /** For a request to put back another change: the `ref` of that change's record. */
  reverts: z.string().optional(),
  /**
   * For a request a Workflow Builder step made: the step's run, completed with the request's
   * outcome when it is decided (src/changes/step-completion.ts).
   */
  workflowStep: z.object({ executionId: z.string(), callbackId: z.string() }).optional(),
  /**
   * Unix milliseconds when Slack took the step's completion (or said the run was over already);
   * a step's request decided without it is completed by the approvals' sweep.
   */
  stepCompletedAt: z.number().optional(),
  /** Unix milliseconds when its approvers were reminded (APPROVAL_REMINDER_MINUTES), once. */
  remindedAt: z.number().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/**
 * What a channel's subscription posts: call events, recordings, transcripts, a daily digest, or
 * moderation alerts (its filters name which: `blocked`, `failed`, `approved`), or the
 * moderation rules changed outside this app.
 */
export const SubscriptionKindSchema = z.enum([
  'calls',
  'recordings',
  'transcripts',
  'digest',
  'moderation',
  'rules',
]);
export type SubscriptionKind = z.infer<typeof SubscriptionKindSchema>;

/** A Slack channel subscribed to one CometChat app's webhook events (or its daily digest). */
export const SubscriptionSchema = z.object({
  /** Opaque and unique; the caller makes it. */
  id: z.string(),
  /** The CometChat app's configured name. */
  app: z.string().default(DEFAULT_APP),
  /** The Slack channel's id. */
  channel: z.string(),
  kind: SubscriptionKindSchema,
  /** The call search's filter words, as the caller normalised them. */
  filters: z.array(z.string()).default([]),
  /** For a digest: the local time 'HH:MM' and the IANA zone it is read in. */
  at: z.object({ time: z.string(), zone: z.string() }).optional(),
  /** For a digest: where the last one posted ended (Unix seconds); the next covers from there. */
  coveredTo: z.number().optional(),
  /** The Slack user who made it. */
  createdBy: z.string(),
  /** Unix milliseconds. */
  createdAt: z.number(),
});
export type Subscription = z.infer<typeof SubscriptionSchema>;

/**
 * A webhook delivery from CometChat, stored before it is answered and removed once handled, so
 * that an app stopping in between loses no event (a sweep handles what is left).
 */
export const WebhookEventSchema = z.object({
  /** The delivery's id: a hash the caller makes of it. */
  id: z.string(),
  /** The CometChat app it was sent for (its configured name). */
  app: z.string(),
  trigger: z.string(),
  /** Unix milliseconds. */
  receivedAt: z.number(),
  /** The parsed JSON envelope as received (the receiver refuses one over 1 MB). */
  body: z.unknown(),
});
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

/** Parses `value` with `schema`, or throws a `StoreDataError` naming what was read. */
export function decodeStored<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new StoreDataError(`${what} in the store is not valid: ${z.prettifyError(result.error)}`);
}

/** `text` as JSON parsed with `schema`; either failing is a `StoreDataError` naming `what`. */
export function decodeStoredJson<T>(schema: z.ZodType<T>, text: string, what: string): T {
  return decodeStored(schema, parseStoredJson(text, what), what);
}

/** `JSON.parse` that reports a broken value as a `StoreDataError`. */
function parseStoredJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StoreDataError(`${what} in the store is not JSON`, { cause: error });
  }
}

/**
 * The steps of a record that did not take, when others did: a partial change (a containment
 * whose ban failed, its sessions revoked and its account deactivated all the same). Empty when
 * every step took, or none did. Pure.
 */
export function failedSteps(record: Pick<AuditRecord, 'steps'>): AuditStep[] {
  const steps = record.steps ?? [];
  const failed = steps.filter((step) => step.outcome !== 'applied');
  return failed.length < steps.length ? failed : [];
}
