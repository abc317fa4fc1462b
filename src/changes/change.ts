import { createHash } from 'node:crypto';
import { z } from 'zod';
import { GROUP_SCOPES, type GroupScope } from '../cometchat/group-model.ts';
import {
  GuidSchema,
  MAX_ROLE_DESCRIPTION,
  MAX_ROLE_NAME,
  messageIdProblem,
  ruleIdProblem,
  UidSchema,
} from '../cometchat/id-rules.ts';
import { AccountSchema } from '../cometchat/model.ts';
import { type PermissionMap, type PermissionValue, RoleIdSchema } from '../cometchat/schemas.ts';
import { FINGERPRINT_LENGTH } from '../cometchat/sessions.ts';
import { type AuditChange, type ChangeSubject, knownScopeKey } from '../store/store.ts';
import { RULE_FIELDS } from './kinds/rule-fields.ts';

// A change, whatever it acts on: one type, a union over its kinds. What is the same for every
// kind (who may, the review, the approval, the claims, the pending record, the audit) reads the
// fields they share; what differs (what is sent, how "is it still as reviewed?" is asked, how it
// is named) is each kind's own (kinds.ts). A new kind is one more member here and one more file
// there. The records keep a change as they always have (`role`, `subject`, `changes`): Slack
// carries it back in a review's metadata, an approval request and an audit record store it.

/** Slack keeps at most this many characters of a view's private_metadata. */
export const METADATA_LIMIT = 3000;

/** One key of a change: its value before (as far as known), the value sent, and how. */
export interface KeyChange {
  key: string;
  before: PermissionValue | undefined;
  after: PermissionValue;
  /** True when the value equals what was shown and is sent only because the person asked. */
  explicit: boolean;
  /**
   * Unset rather than set: the key goes back to its default (`after` is that default), by
   * CometChat's own unset, so the role follows the default from then on.
   */
  unset?: true | undefined;
}

/** Where a promoted change came from: the app it was applied to, and that attempt's ref. */
export interface PromotedFrom {
  app: string;
  ref: string;
}

export const RoleActionSchema = z.enum(['create', 'update', 'delete']);
/** What a change to a role itself does: create it, rename or describe it, delete it. */
export type RoleAction = z.infer<typeof RoleActionSchema>;

/** What every kind of change has. */
interface ChangeFields {
  /** Its id (changeId): the same review, however often submitted, is applied once. */
  id: string;
  /** The role it is about; for a change to a user, the role they had when it was reviewed. */
  role: string;
  changes: KeyChange[];
  /** For a role's permissions: when the "before" values were seen (undefined: the defaults). */
  seenAt?: number | undefined;
  /** Set when this is another app's applied change, offered again for this app. */
  promotedFrom?: PromotedFrom | undefined;
  /** The `ref` of the audit record whose change this one puts back. */
  reverts?: string | undefined;
}

/** A role's permissions: the keys set, or unset back to their defaults. */
export interface PermissionsChange extends ChangeFields {
  kind: 'permissions';
}

/**
 * A group's scope's permissions, in the form of a role's: the keys set, or unset back to their
 * defaults. Its `role` is knownScopeKey(guid, scope), the name the store knows the scope's last
 * map under (and the records file it under), never a role id.
 */
export interface ScopePermissionsChange extends ChangeFields {
  kind: 'scope-permissions';
  guid: string;
  scope: GroupScope;
}

/** Whether a change sets a permission map (a role's or a group's scope's), known only as last seen. */
export function setsPermissions(
  change: Change,
): change is PermissionsChange | ScopePermissionsChange {
  return change.kind === 'permissions' || change.kind === 'scope-permissions';
}

/** A role itself: created (with its permissions set right after), renamed or described, deleted. */
export interface RoleChange extends ChangeFields {
  kind: 'role';
  action: RoleAction;
}

/** A user's role: exactly one change, of `role`. */
export interface UserRoleChange extends ChangeFields {
  kind: 'user-role';
  uid: string;
}

/** A user's account: exactly one change, of `status` (`active`, `deactivated`). */
export interface AccountChange extends ChangeFields {
  kind: 'account';
  uid: string;
}

/**
 * A message's place in moderation: waiting (`flagged`, `blocked`) or decided (`approved`,
 * `disapproved` of a flagged one; `delivered`, `rejected` of a blocked one).
 */
export const ModerationStatusSchema = z.enum([
  'flagged',
  'blocked',
  'approved',
  'disapproved',
  'delivered',
  'rejected',
]);
export type ModerationStatus = z.infer<typeof ModerationStatusSchema>;

/**
 * The decisions a waiting message takes, by its queue: the only status changes a moderation
 * change may carry (a decided message is never decided again: CometChat documents no way).
 */
export const DECIDED_FROM: Readonly<Record<'flagged' | 'blocked', readonly ModerationStatus[]>> = {
  flagged: ['approved', 'disapproved'],
  blocked: ['delivered', 'rejected'],
};

/**
 * A decision on a flagged or blocked message: exactly one change, of its `status`. Its `role` is
 * empty (a message has none); `rule` or `reasons` say why it was in the queue, never its text.
 */
export interface ModerationChange extends ChangeFields {
  kind: 'moderation';
  messageId: string;
  queue: 'flagged' | 'blocked';
  rule?: { id: string; name: string } | undefined;
  reasons?: string[] | undefined;
}

/**
 * An account in trouble contained, as one change of a user, its steps in the order they are sent:
 * `sessions` (how many the review saw, to `0`), `bans` (none, to the groups banned from;
 * optional), `messagesSince` (the Unix seconds from which their messages are soft-deleted;
 * optional), `status` (`active` to `deactivated`, last: CometChat answers a deactivated user's
 * uid as unknown). Its revert is the same kind the other way: `status` back to `active` first,
 * then `bans` lifted; revoked sessions and deleted messages do not come back.
 */
export interface ContainmentChange extends ChangeFields {
  kind: 'containment';
  uid: string;
}

/**
 * One user's messages deleted: one key per message (its id), from `sent` (or `deleted`, soft,
 * for one deleted permanently) to `deleted` or `deleted permanently`. Its `role` is empty; the
 * record names the messages' ids, never their text.
 */
export interface MessageDeletionChange extends ChangeFields {
  kind: 'message-deletion';
  /** The uid whose messages they are. */
  sender: string;
  /** Removed for good (after a second confirmation, by a moderator); else soft. */
  permanent: boolean;
}

/**
 * A user's sessions revoked: exactly one change, of `sessions`, from the fingerprints the review
 * saw to those that remain (none: signed out everywhere). Fingerprints only: a token never
 * leaves the client.
 */
export interface SessionsChange extends ChangeFields {
  kind: 'sessions';
  uid: string;
}

/**
 * One member of one group: exactly one change, of `scope` (one scope to another), `membership`
 * (`member` to `kicked`: CometChat documents no way back but adding them again), or `ban`
 * (`none` to `banned`, or back). Its `role` is empty: a member's scope is the group's layer.
 */
export interface GroupMemberChange extends ChangeFields {
  kind: 'group-member';
  guid: string;
  uid: string;
}

export type Change =
  | GroupMemberChange
  | PermissionsChange
  | RoleChange
  | UserRoleChange
  | AccountChange
  | ModerationChange
  | RuleChange
  | ContainmentChange
  | MessageDeletionChange
  | SessionsChange
  | ScopePermissionsChange;

/** At most this many messages are deleted by one change: a page of them, with room to spare. */
export const MAX_DELETED_MESSAGES = 20;

/**
 * What a moderation decision acts on, as Slack carries it back: a message id, its queue, and why
 * it was there (bounded, like all such input).
 */
const MessageSubjectSchema = z.object({
  kind: z.literal('message'),
  id: z.string().min(1).max(100),
  queue: z.enum(['flagged', 'blocked']),
  rule: z.object({ id: z.string().max(100), name: z.string().max(200) }).optional(),
  reasons: z.array(z.string().max(200)).max(20).optional(),
});

/**
 * A moderation rule, replaced whole by one PUT: each of its fields (RULE_FIELDS) from before to
 * after, the rule's id in `role` (the field every record files a change under).
 */
export interface RuleChange extends ChangeFields {
  kind: 'rule';
}

/** A permission value as it comes back from Slack in metadata: bounded, like all such input. */
export const SubmittedValueSchema = z.union([
  z.string().max(200),
  z.array(z.string().max(200)).max(200),
  z.null(),
]);

const KeyChangeSchema = z.object({
  key: z.string().min(1).max(100),
  before: SubmittedValueSchema.optional(),
  after: SubmittedValueSchema,
  explicit: z.boolean(),
  unset: z.literal(true).optional(),
});

/** A role's name or description, as a change to the role carries them (see roleChangesProblem). */
const RoleTextSchema = z.string().max(255);

/** A change to a role itself: its keys (roleChangesProblem says which it may hold). */
const RoleChangesSchema = z
  .array(KeyChangeSchema.extend({ after: z.union([SubmittedValueSchema, RoleTextSchema]) }))
  .min(1)
  .max(200);

/**
 * What a change to a user is: exactly one change, of its role (to a role id) or of its account.
 * Nothing else is ever sent to a user, so nothing else is read back as one.
 */
const UserChangesSchema = z.tuple([
  z.discriminatedUnion('key', [
    KeyChangeSchema.extend({ key: z.literal('role'), after: RoleIdSchema }),
    KeyChangeSchema.extend({ key: z.literal('status'), after: AccountSchema }),
  ]),
]);

/** What a change to a group's member is: exactly one change, each key only the ways it goes. */
const GroupMemberChangesSchema = z
  .tuple([
    z.discriminatedUnion('key', [
      KeyChangeSchema.extend({
        key: z.literal('scope'),
        before: z.enum(GROUP_SCOPES),
        after: z.enum(GROUP_SCOPES),
      }),
      KeyChangeSchema.extend({
        key: z.literal('membership'),
        before: z.literal('member'),
        after: z.literal('kicked'),
      }),
      KeyChangeSchema.extend({
        key: z.literal('ban'),
        before: z.enum(['none', 'banned']),
        after: z.enum(['none', 'banned']),
      }),
    ]),
  ])
  .refine(([{ before, after }]) => before !== after);

/** A session's fingerprint as Slack carries it back: a short hash, never a token. */
export const FingerprintSchema = z.string().regex(new RegExp(`^[0-9a-f]{${FINGERPRINT_LENGTH}}$`));

/**
 * What revoking sessions is: one change of `sessions`, from the fingerprints the review saw to
 * those that remain: every one but one (Revoke), or none (Sign out everywhere).
 */
const SessionsChangesSchema = z
  .tuple([
    KeyChangeSchema.extend({
      key: z.literal('sessions'),
      before: z.array(FingerprintSchema).min(1).max(200),
      after: z.array(FingerprintSchema).max(199),
    }),
  ])
  .refine(([{ before, after }]) => sessionsRevokedProblem(before, after) === undefined);

/**
 * Why a change of sessions is not one the app makes, or undefined when it is: what remains is
 * the sessions before, but one, or none. Pure.
 */
export function sessionsRevokedProblem(
  before: readonly string[],
  after: readonly string[],
): string | undefined {
  const distinct = new Set(before).size === before.length;
  const kept = after.every((fingerprint) => before.includes(fingerprint));
  const count = after.length === 0 || after.length === before.length - 1;
  return distinct && kept && count && new Set(after).size === after.length
    ? undefined
    : 'revoking sessions leaves every session but one, or none';
}

/** The one change a change to a user makes (see UserChangesSchema). */
export type UserKeyChange = z.infer<typeof UserChangesSchema>[0];

/** A change's keys read as a change to a user's, or undefined when they are not one. Pure. */
export function userKeyChange(changes: readonly KeyChange[]): UserKeyChange | undefined {
  const parsed = UserChangesSchema.safeParse(changes);
  return parsed.success ? parsed.data[0] : undefined;
}

const FieldsSchema = z.object({
  role: RoleIdSchema,
  id: z.string().regex(/^[0-9a-f]{24}$/),
  seenAt: z.number().optional(),
  promotedFrom: z.object({ app: z.string().max(32), ref: z.string().min(1).max(64) }).optional(),
  reverts: z.string().min(1).max(64).optional(),
});

/** A moderation rule's id as a button's value or a review's metadata carries it back. */
export const RuleIdSchema = z.string().superRefine((id, context) => {
  const problem = ruleIdProblem(id);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** A rule's field as a change to it carries it: conditions and filters are JSON text. */
const RuleValueSchema = z.union([
  z.string().max(METADATA_LIMIT),
  z.array(z.string().max(200)).max(50),
  z.null(),
]);

/** A change to a rule: each of its fields once. */
const RuleChangesSchema = z
  .array(
    KeyChangeSchema.extend({
      key: z.enum(RULE_FIELDS),
      before: RuleValueSchema.optional(),
      after: RuleValueSchema,
    }),
  )
  .length(RULE_FIELDS.length)
  .refine((changes) => new Set(changes.map((c) => c.key)).size === RULE_FIELDS.length);

/** The groups a containment bans the user from, or lifts their bans in, by guid. */
export const MAX_CONTAINMENT_GROUPS = 20;
/** A guid as a change carries it: lower-cased, as CometChat stores it. */
const GuidsSchema = z.array(GuidSchema).max(MAX_CONTAINMENT_GROUPS);

/** A containment's keys, each at most once, in the order they are sent (containmentProblem). */
const ContainmentChangesSchema = z
  .array(
    z.discriminatedUnion('key', [
      // How many sessions the review saw, to none: a count, as a compromised account may have
      // more than a review could carry.
      KeyChangeSchema.extend({
        key: z.literal('sessions'),
        before: z.string().regex(/^\d{1,7}$/),
        after: z.literal('0'),
      }),
      KeyChangeSchema.extend({ key: z.literal('bans'), before: GuidsSchema, after: GuidsSchema }),
      KeyChangeSchema.extend({
        key: z.literal('messagesSince'),
        before: z.null(),
        after: z.string().regex(/^\d{1,12}$/),
      }),
      KeyChangeSchema.extend({
        key: z.literal('status'),
        before: AccountSchema,
        after: AccountSchema,
      }),
    ]),
  )
  .min(1)
  .max(4);

/**
 * Why a containment's keys are not one the app makes, or undefined when they are: a containment
 * revokes every session and deactivates, banning and deleting between, in that order; its revert
 * reactivates, then lifts the bans it made. Pure.
 */
export function containmentProblem(
  changes: readonly { key: string; before?: unknown; after: unknown }[],
): string | undefined {
  const keys = changes.map((c) => c.key).join(',');
  const status = changes.find((c) => c.key === 'status');
  const bans = changes.find((c) => c.key === 'bans');
  const listed = (value: unknown) => Array.isArray(value) && value.length > 0;
  if (status?.before === 'active' && status.after === 'deactivated') {
    if (bans && (listed(bans.before) || !listed(bans.after))) {
      return 'a containment bans from groups the user was not banned from';
    }
    return /^sessions(,bans)?(,messagesSince)?,status$/.test(keys)
      ? undefined
      : 'a containment is sessions, bans, messages, then status';
  }
  if (status && (status.before !== 'deactivated' || status.after !== 'active')) {
    return 'a revert of a containment reactivates';
  }
  if (bans && (!listed(bans.before) || listed(bans.after))) {
    return 'a revert of a containment lifts bans';
  }
  return /^(status,bans|status|bans)$/.test(keys)
    ? undefined
    : 'a revert of a containment is status, then bans';
}

/** The keys of a deletion of messages: each message once, each deleted the one way. */
const MessageDeletionChangesSchema = z
  .array(
    KeyChangeSchema.extend({
      key: z.string().refine((id) => messageIdProblem(id) === undefined),
      before: z.enum(['sent', 'deleted']),
      after: z.enum(['deleted', 'deleted permanently']),
    }),
  )
  .min(1)
  .max(MAX_DELETED_MESSAGES)
  .refine((changes) => new Set(changes.map((c) => c.key)).size === changes.length);

/** Whether the keys delete the way the subject says: soft only what is not deleted yet. Pure. */
function deletesAsSaid(
  permanent: boolean,
  changes: readonly { before: string; after: string }[],
): boolean {
  return changes.every(({ before, after }) =>
    permanent ? after === 'deleted permanently' : before === 'sent' && after === 'deleted',
  );
}

/**
 * A change as it comes back from Slack (a review's metadata, signed for its app): a role's
 * changed keys; with a `subject` (a uid the app could have sent), exactly one change to that
 * user; or a change to a role itself that the app makes. Anything else is not the app's, and is
 * refused where it is read.
 */
export const ChangeSchema = z
  .union([
    FieldsSchema.extend({
      subject: z.undefined().optional(),
      changes: z.array(KeyChangeSchema).min(1),
    }),
    FieldsSchema.extend({
      subject: z.object({ kind: z.literal('user'), uid: UidSchema }),
      changes: UserChangesSchema,
    }),
    FieldsSchema.extend({
      subject: z.object({ kind: z.literal('user'), uid: UidSchema }),
      changes: SessionsChangesSchema,
    }),
    FieldsSchema.extend({
      subject: z.object({ kind: z.literal('role'), action: RoleActionSchema }),
      changes: RoleChangesSchema,
    }).refine((m) => roleChangesProblem(m.subject.action, m.changes, m.role) === undefined),
    FieldsSchema.extend({
      role: z.literal(''),
      subject: MessageSubjectSchema,
      changes: z.tuple([
        KeyChangeSchema.extend({
          key: z.literal('status'),
          before: ModerationStatusSchema,
          after: ModerationStatusSchema,
        }),
      ]),
    }).refine(({ subject: { queue }, changes: [{ before, after }] }) => {
      return before === queue && DECIDED_FROM[queue].includes(after);
    }),
    FieldsSchema.extend({
      role: RuleIdSchema,
      subject: z.object({ kind: z.literal('rule') }),
      changes: RuleChangesSchema,
    }),
    FieldsSchema.extend({
      subject: z.object({ kind: z.literal('containment'), uid: UidSchema }),
      changes: ContainmentChangesSchema,
    }).refine((m) => containmentProblem(m.changes) === undefined),
    FieldsSchema.extend({
      role: z.literal(''),
      subject: z.object({ kind: z.literal('messages'), sender: UidSchema, permanent: z.boolean() }),
      changes: MessageDeletionChangesSchema,
    }).refine(({ subject, changes }) => deletesAsSaid(subject.permanent, changes)),
    FieldsSchema.extend({
      role: z.string().max(120),
      subject: z.object({
        kind: z.literal('scope'),
        guid: GuidSchema,
        scope: z.enum(GROUP_SCOPES),
      }),
      changes: z.array(KeyChangeSchema).min(1),
    }).refine(({ role, subject }) => role === knownScopeKey(subject.guid, subject.scope)),
    FieldsSchema.extend({
      role: z.literal(''),
      subject: z.object({ kind: z.literal('group-member'), guid: GuidSchema, uid: UidSchema }),
      changes: GroupMemberChangesSchema,
    }),
  ])
  .transform(({ subject, changes, seenAt, ...fields }): Change => {
    const common = {
      ...fields,
      changes: changes.map(({ key, before, after, explicit, unset }) => ({
        key,
        before,
        after,
        explicit,
        ...(unset ? { unset } : {}),
      })),
      seenAt,
    };
    return withKind(common, subject);
  });

/** The fields of a change and what it acts on, as one member of the union. Pure. */
function withKind(fields: ChangeFields, subject: ChangeSubject | undefined): Change {
  if (subject?.kind === 'message') {
    const { id: messageId, queue, rule, reasons } = subject;
    return { kind: 'moderation', messageId, queue, ...fields, ...whyOf({ rule, reasons }) };
  }
  if (subject?.kind === 'role') return { kind: 'role', action: subject.action, ...fields };
  if (subject?.kind === 'rule') return { kind: 'rule', ...fields };
  if (subject?.kind === 'scope') {
    return { kind: 'scope-permissions', guid: subject.guid, scope: subject.scope, ...fields };
  }
  if (subject?.kind === 'containment') return { kind: 'containment', uid: subject.uid, ...fields };
  if (subject?.kind === 'group-member') {
    return { kind: 'group-member', guid: subject.guid, uid: subject.uid, ...fields };
  }
  if (subject?.kind === 'messages') {
    const { sender, permanent } = subject;
    return { kind: 'message-deletion', sender, permanent, ...fields };
  }
  if (subject?.kind !== 'user') return { kind: 'permissions', ...fields };
  if (fields.changes[0]?.key === 'sessions')
    return { kind: 'sessions', uid: subject.uid, ...fields };
  const account = fields.changes[0]?.key === 'status';
  return { kind: account ? 'account' : 'user-role', uid: subject.uid, ...fields };
}

/** What a change acts on, as the records name it: none for a role's permissions. Pure. */
export function subjectOf(change: Change): ChangeSubject | undefined {
  switch (change.kind) {
    case 'permissions':
      return undefined;
    case 'role':
      return { kind: 'role', action: change.action };
    case 'user-role':
    case 'account':
    case 'sessions':
      return { kind: 'user', uid: change.uid };
    case 'moderation':
      return {
        kind: 'message',
        id: change.messageId,
        queue: change.queue,
        ...whyOf(change),
      };
    case 'rule':
      return { kind: 'rule' };
    case 'containment':
      return { kind: 'containment', uid: change.uid };
    case 'message-deletion':
      return { kind: 'messages', sender: change.sender, permanent: change.permanent };
    case 'scope-permissions':
      return { kind: 'scope', guid: change.guid, scope: change.scope };
    case 'group-member':
      return { kind: 'group-member', guid: change.guid, uid: change.uid };
  }
}

/** Why a message was in its queue, without empty fields (a record keeps what is there). Pure. */
function whyOf(why: Pick<ModerationChange, 'rule' | 'reasons'>) {
  return {
    ...(why.rule ? { rule: why.rule } : {}),
    ...(why.reasons && why.reasons.length > 0 ? { reasons: why.reasons } : {}),
  };
}

/**
 * A change as a record keeps it (an approval request, an audit record), made one again; where it
 * was promoted from is the caller's to add (a record names only the ref). Pure.
 */
export function changeOf(stored: {
  id: string;
  role: string;
  subject?: ChangeSubject | undefined;
  changes: readonly AuditChange[];
  seenAt?: number | undefined;
  reverts?: string | undefined;
}): Change {
  const { id, role, subject, changes, seenAt, reverts } = stored;
  const keys = changes.map(({ before, ...c }) => ({ ...c, before: before ?? undefined }));
  return withKind({ id, role, changes: keys, seenAt, ...(reverts ? { reverts } : {}) }, subject);
}

/** The change as a review's metadata carries it, before it is written out (signed). Pure. */
export function changeRecord(change: Change): Record<string, unknown> {
  const subject = subjectOf(change);
  return {
    role: change.role,
    ...(subject ? { subject } : {}),
    id: change.id,
    changes: change.changes,
    seenAt: change.seenAt,
    ...(change.promotedFrom ? { promotedFrom: change.promotedFrom } : {}),
    ...(change.reverts ? { reverts: change.reverts } : {}),
  };
}

export function encodeChange(change: Change): string {
  return JSON.stringify(changeRecord(change));
}

/** Parses plain (unsigned) metadata; undefined when it is not a change the app made. */
export function decodeChange(raw: string | undefined): Change | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? '');
  } catch {
    return undefined;
  }
  const parsed = ChangeSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** The keys of a role's own fields; a created role's other keys are its permissions. */
export const ROLE_FIELDS: readonly string[] = ['name', 'description'];

/**
 * Why a role change's keys are not one the app makes, or undefined when they are: a deletion is
 * exactly `role` (the id, to nothing); an update, a new name or description; a creation, a name,
 * perhaps a description, and permissions to set. Pure.
 */
export function roleChangesProblem(
  action: RoleAction,
  changes: readonly { key: string; before?: unknown; after: unknown; unset?: true | undefined }[],
  role?: string,
): string | undefined {
  if (changes.some((c) => c.unset)) return 'a change to a role unsets nothing';
  if (action === 'delete') {
    // CometChat keeps `default` for every user given no other role: never asked to delete it.
    if (role === 'default') return 'the role `default` is never deleted';
    const [only] = changes;
    return changes.length === 1 && only?.key === 'role' && only.after === null
      ? undefined
      : 'a deletion is one change of `role` to nothing';
  }
  const fields = changes.filter((c) => ROLE_FIELDS.includes(c.key));
  if (fields.some((c) => !fieldFits(c.key, c.after))) return 'a name or description does not fit';
  if (action === 'update') {
    return fields.length === changes.length && fields.length > 0
      ? undefined
      : 'an update changes the name or the description only';
  }
  if (!fields.some((c) => c.key === 'name')) return 'a new role needs a name';
  return changes.some((c) => c.key === 'role') ? 'a new role is not a deletion' : undefined;
}

function fieldFits(key: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return key === 'name'
    ? value.trim().length > 0 && value.length <= MAX_ROLE_NAME
    : value.length <= MAX_ROLE_DESCRIPTION;
}

/** Each key and the value it is set to. Pure. */
export function changePayload(changes: readonly KeyChange[]): PermissionMap {
  return Object.fromEntries(changes.map((c) => [c.key, c.after]));
}

/**
 * What a change's id is made of: its keys and values, an unset told apart from setting the same
 * key to its default value (they are two changes).
 */
export function idPayload(changes: readonly KeyChange[]): PermissionMap {
  return Object.fromEntries(changes.map((c) => [c.unset ? `${c.key} (unset)` : c.key, c.after]));
}

/**
 * The same review, however often it is submitted, gets the same id; the same change for another
 * app gets another (the claims of every app share one store). `origin` is where it was asked
 * (a view's id), `target` what it acts on.
 */
export function changeId(
  origin: string,
  app: string,
  target: string,
  payload: PermissionMap,
): string {
  const canonical = JSON.stringify(Object.entries(payload).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256')
    .update(`${app}\n${origin}\n${target}\n${canonical}`)
    .digest('hex')
    .slice(0, 24);
}
