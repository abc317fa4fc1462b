import { z } from 'zod';

// The sandbox's in-memory world. Records are kept as the service would serve them; the only
// sandbox-specific field is a call's `shape`, which decides how GET /v3/calls/{id} wraps it.

/** A role id as the live service stores it: lower-case `a-z 0-9 - _`, at most 100 characters. */
export const ROLE_ID = /^[a-z0-9_-]{1,100}$/;

export const RoleSchema = z.strictObject({
  role: z.string().regex(ROLE_ID),
  name: z.string().max(100),
  description: z.string().max(255),
  metadata: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.string()).optional(),
  createdAt: z.int().nonnegative(),
  updatedAt: z.int().nonnegative().optional(),
});
export type Role = z.infer<typeof RoleSchema>;

export type PermissionValue = string | string[] | null;
export type PermissionMap = Record<string, PermissionValue>;

// Loose on purpose: call records carry drifted fields (see live-api-notes.md) that the sandbox
// serves as they are; only the id is needed to index them.
export const CallRecordSchema = z.looseObject({ sessionId: z.string().min(1) });
export type CallRecord = z.infer<typeof CallRecordSchema>;

/**
 * How `data` wraps the record: the reference documents a one-element array, current
 * documentation a single object. Both are live, so the seed has calls of each.
 */
export type CallShape = 'array' | 'object';

export const SeededCallSchema = z.strictObject({
  shape: z.enum(['array', 'object']),
  record: CallRecordSchema,
});
export interface SeededCall {
  shape: CallShape;
  record: CallRecord;
}

/**
 * A uid as the seed writes them: CometChat allows letters, digits, `_` and `-` (and the call
 * seed already has a `.`), at most 100 characters. Tests may push others to exercise encoding.
 */
export const USER_ID = /^[A-Za-z0-9_.-]{1,100}$/;

export const UserSchema = z.strictObject({
  uid: z.string().regex(USER_ID),
  name: z.string().min(1).max(100),
  avatar: z.string().optional(),
  link: z.string().optional(),
  role: z.string().regex(ROLE_ID),
  status: z.enum(['available', 'offline']),
  statusMessage: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()).optional(),
  createdAt: z.int().nonnegative(),
  updatedAt: z.int().nonnegative().optional(),
  lastActiveAt: z.int().nonnegative().optional(),
  /** Set while the user is deactivated (suspended, data kept); gone once reactivated. */
  deactivatedAt: z.int().nonnegative().optional(),
});
export type User = z.infer<typeof UserSchema>;

/** A chat message as the moderation routes serve it (flagged items carry its fields directly). */
export const ModerationMessageSchema = z.looseObject({
  id: z.string().min(1),
  conversationId: z.string().min(1),
  sender: z.string().min(1),
  receiverType: z.enum(['user', 'group']),
  receiver: z.string().min(1),
  category: z.string().min(1),
  type: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
  sentAt: z.int().nonnegative(),
  updatedAt: z.int().nonnegative().optional(),
});
export type ModerationMessage = z.infer<typeof ModerationMessageSchema>;

/** A flagged item as served: the message, who flagged it and how many did. */
export const FlaggedRecordSchema = ModerationMessageSchema.extend({
  flaggedBy: z
    .array(
      z.strictObject({
        uid: z.string().min(1),
        name: z.string().optional(),
        reasonId: z.string().optional(),
        reasonName: z.string().optional(),
        remark: z.string().optional(),
        flaggedAt: z.int().nonnegative(),
      }),
    )
    .min(1),
  flaggedCount: z.int().positive(),
});
export type FlaggedRecord = z.infer<typeof FlaggedRecordSchema>;

/** A blocked item as served: the rule and revision that blocked the message, and what matched. */
export const BlockedRecordSchema = z.strictObject({
  ruleId: z.string().min(1),
  ruleName: z.string().min(1),
  revisionId: z.string().min(1),
  condition: z.looseObject({ message: z.string().min(1) }),
  message: ModerationMessageSchema,
  action: z.array(z.string().min(1)).min(1),
  createdAt: z.int().nonnegative(),
});
export type BlockedRecord = z.infer<typeof BlockedRecordSchema>;

/** A reviewed item: what it was, the decision, and when it was taken. */
export type ReviewedRecord =
  | { queue: 'flagged'; item: FlaggedRecord; status: string; reviewedAt: number }
  | { queue: 'blocked'; item: BlockedRecord; status: string; reviewedAt: number };

/**
 * One revision of a moderation rule, as stored: the served `revisionId` is made from the app id,
 * the rule id and `revision` (`<appId>_<ruleId>_<n>`), so it names whichever app the stand-in
 * plays.
 */
export const StoredRuleSchema = z.strictObject({
  id: z.string().regex(/^\S{1,100}$/),
  name: z.string().min(1).max(100),
  description: z.string().optional(),
  enabled: z.boolean(),
  active: z.boolean(),
  default: z.boolean(),
  action: z.array(z.string().min(1)).min(1),
  conditions: z.array(z.unknown()),
  filters: z.array(z.unknown()),
  revision: z.int().positive(),
  createdAt: z.int().nonnegative(),
  updatedAt: z.int().nonnegative(),
});
export type StoredRule = z.infer<typeof StoredRuleSchema>;

/**
 * One auth token of a user (live-api-notes.md, "Sessions: auth tokens"): a credential, which the
 * stand-in serves as the service does; `platform`, `userAgent` and `appInfo` come from newer
 * versions of the service.
 */
export const AuthTokenSchema = z.strictObject({
  authToken: z.string().regex(/^[A-Za-z0-9_.-]{8,200}$/),
  uid: z.string().regex(USER_ID),
  createdAt: z.int().nonnegative(),
  platform: z.string().optional(),
  userAgent: z.string().optional(),
  appInfo: z.string().optional(),
});
export type AuthToken = z.infer<typeof AuthTokenSchema>;

/** A chat message as `GET /v3/messages` serves it; `deletedAt` set once it was soft-deleted. */
export const ChatMessageSchema = ModerationMessageSchema.extend({
  id: z.string().regex(/^[1-9][0-9]{0,15}$/),
  editedAt: z.int().nonnegative().optional(),
  editedBy: z.string().optional(),
  deletedAt: z.int().nonnegative().optional(),
  deletedBy: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** A group as `GET /v3/groups/{guid}` serves it (guids are lower-case on the live service). */
export const GroupSchema = z.strictObject({
  guid: z.string().regex(/^[a-z0-9_-]{1,100}$/),
  name: z.string().min(1).max(100),
  description: z.string().optional(),
  type: z.enum(['public', 'private', 'password']),
  owner: z.string().regex(USER_ID),
  createdAt: z.int().nonnegative(),
  tags: z.array(z.string()).optional(),
});
export type Group = z.infer<typeof GroupSchema>;

export const GROUP_SCOPES = ['admin', 'moderator', 'participant'] as const;
export type GroupScope = (typeof GROUP_SCOPES)[number];

/** A user's membership of one group. */
export interface GroupMember {
  scope: GroupScope;
  /** Unix seconds. */
  joinedAt: number;
}

/** A user's sessions, messages and groups: what an account in trouble is about. */
export interface AccountState {
  /** Each user's auth tokens, oldest first, by uid. */
  authTokens: Map<string, AuthToken[]>;
  /**
   * Chat messages by id, in id order (ids grow with time, as the service's do). A permanent
   * delete removes one; a soft delete sets its `deletedAt`.
   */
  messages: Map<string, ChatMessage>;
  /** Groups by guid, in list order. */
  groups: Map<string, Group>;
  /** Each group's members by uid. */
  members: Map<string, Map<string, GroupMember>>;
  /** Each group's banned users: uid to when (Unix seconds). A ban ends the membership. */
  bans: Map<string, Map<string, number>>;
  /**
   * The keys set explicitly on each group's scopes, by guid then scope (scope-permissions.ts):
   * the effective map is the definitions' defaults with these on top, as a role's is.
   */
  scopePermissions: Map<string, Map<GroupScope, PermissionMap>>;
}

export interface ModerationState {
  /** Flagged messages not yet reviewed, by message id. */
  flagged: Map<string, FlaggedRecord>;
  /** Blocked messages not yet reviewed, by message id. */
  blocked: Map<string, BlockedRecord>;
  /** Reviewed items, oldest decision first. */
  reviewed: ReviewedRecord[];
  /** Each rule's revisions, oldest first: the last is the rule as it stands. */
  rules: Map<string, StoredRule[]>;
  /**
   * How a flagged message's PATCH answers, both documented: `success` gives
   * `{success: true, message}`, `data` gives `{data: {}}`. (A blocked one's answers
   * `{data: {success, message}}`, the third documented form.)
   */
  flaggedAnswer: 'success' | 'data';
}

export interface SandboxState {
  /** Roles in list order: the order GET /v3/roles pages through. */
  roles: Role[];
  /**
   * The effective permission map of each role: the catalogue defaults with the explicitly set
   * keys on top. A role without an entry (say one a test pushed onto `roles`) has the defaults.
   */
  permissions: Map<string, PermissionMap>;
  /**
   * Which keys of each role's map were set explicitly (the seed's, and those written since):
   * only these can be unset. The stand-in keeps both maps in step (role-permissions.ts); a test
   * that writes `permissions` directly should add the keys here if it means them as set.
   */
  explicitPermissionKeys: Map<string, Set<string>>;
  /** Calls by session id, exactly as received in the path after one decoding. */
  calls: Map<string, SeededCall>;
  /**
   * The call message of a ringing call, by message id: the session it rang for. Made when the
   * stand-in first sends a ringing trigger of the call, and read by GET /v3/messages/{id}.
   */
  callMessages: Map<string, string>;
  /**
   * How GET /v3/calls answers, both seen live: `perPage` false leaves `per_page` out of the
   * pagination; `paging` false ignores `page` and `perPage` and answers every match at once.
   */
  callList: { perPage: boolean; paging: boolean };
  /** Users by uid, as served; lists sort them by uid. */
  users: Map<string, User>;
  /** Each user's friends: symmetric, both directions are stored. */
  friends: Map<string, Set<string>>;
  /** Whom each user blocked (one direction: `blocked.get(a)` holds b when a blocked b). */
  blocked: Map<string, Set<string>>;
  /** Flagged and blocked messages, the reviewed ones, the rules and their revisions. */
  moderation: ModerationState;
  /** Sessions, chat messages, groups, their members and bans. */
  accounts: AccountState;
}

/**
 * Puts `source` into `target` in place, so a test that kept a reference to `sandbox.state`
 * (or to one of its collections) keeps seeing the live state after a reset.
 */
export function replaceState(target: SandboxState, source: SandboxState): void {
  target.roles.splice(0, target.roles.length, ...source.roles);
  target.permissions.clear();
  for (const [role, map] of source.permissions) target.permissions.set(role, map);
  target.explicitPermissionKeys.clear();
  for (const [role, keys] of source.explicitPermissionKeys) {
    target.explicitPermissionKeys.set(role, keys);
  }
  target.calls.clear();
  for (const [id, call] of source.calls) target.calls.set(id, call);
  target.callMessages.clear();
  for (const [id, sessionId] of source.callMessages) target.callMessages.set(id, sessionId);
  Object.assign(target.callList, source.callList);
  for (const key of ['users', 'friends', 'blocked'] as const) {
    const into: Map<string, unknown> = target[key];
    into.clear();
    for (const [uid, value] of source[key]) into.set(uid, value);
  }
  const moderation = target.moderation;
  for (const key of ['flagged', 'blocked', 'rules'] as const) {
    const into: Map<string, unknown> = moderation[key];
    into.clear();
    for (const [id, value] of source.moderation[key]) into.set(id, value);
  }
  moderation.reviewed.splice(0, moderation.reviewed.length, ...source.moderation.reviewed);
  moderation.flaggedAnswer = source.moderation.flaggedAnswer;
  const accountKeys = [
    'authTokens',
    'messages',
    'groups',
    'members',
    'bans',
    'scopePermissions',
  ] as const;
  for (const key of accountKeys) {
    const into: Map<string, unknown> = target.accounts[key];
    into.clear();
    for (const [id, value] of source.accounts[key]) into.set(id, value);
  }
}
