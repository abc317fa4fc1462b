import type { CometChatApp } from '../../apps/apps.ts';
import type { AccountOperations } from '../../cometchat/account-model.ts';
import type { CometChatClient } from '../../cometchat/client.ts';
import type { GroupOperations } from '../../cometchat/group-model.ts';
import type { ModerationOperations } from '../../cometchat/moderation-model.ts';
import type { KeyResult, PermissionMap } from '../../cometchat/schemas.ts';
import type { AuditRecord, AuditStep, KnownPermissions, Store } from '../../store/store.ts';

// What a kind of change is to the road (see kindOf in index.ts).

/** What a change's answer says, key by key; a permission update also carries the role's map. */
export interface Sent {
  results: Record<string, KeyResult>;
  permissions?: PermissionMap | undefined;
  /** For a moderation rule: its revision as the answer gave it. */
  revision?: string | undefined;
  /** For a change sent as several requests (a containment): each step's outcome, for the record. */
  steps?: AuditStep[] | undefined;
}

/** What a change may ask of CometChat: the writes, and the reads that check them. */
export type ChangeClient = Pick<
  CometChatClient,
  | 'setRolePermissions'
  | 'unsetRolePermission'
  | 'setUserRole'
  | 'deactivateUsers'
  | 'reactivateUsers'
  | 'getUser'
  | 'listUsers'
  | 'createRole'
  | 'updateRole'
  | 'deleteRole'
  | 'listAllRoles'
> &
  Pick<
    ModerationOperations,
    | 'decideFlaggedMessage'
    | 'decideBlockedMessage'
    | 'listFlaggedMessages'
    | 'listBlockedMessages'
    | 'getRule'
    | 'updateRule'
  > &
  Pick<
    AccountOperations,
    | 'listSessions'
    | 'revokeSession'
    | 'revokeAllSessions'
    | 'listMessages'
    | 'getMessage'
    | 'deleteMessage'
    | 'banGroupMember'
    | 'unbanGroupMember'
  > &
  Pick<
    GroupOperations,
    | 'setScopePermissions'
    | 'unsetScopePermission'
    | 'setMemberScope'
    | 'kickGroupMember'
    | 'listGroupMembers'
    | 'listBannedMembers'
  >;

/** Where "is it still as reviewed?" is asked: the store (a role's map), CometChat (the rest). */
export interface Reads {
  store: Pick<Store, 'getKnownPermissions'>;
  app: Pick<CometChatApp, 'name'> & {
    cometchat: Pick<CometChatClient, 'getUser' | 'listAllRoles'> &
      Pick<ModerationOperations, 'listFlaggedMessages' | 'listBlockedMessages' | 'getRule'> &
      Pick<AccountOperations, 'getMessage' | 'listSessions'> &
      Pick<GroupOperations, 'listGroupMembers' | 'listBannedMembers'>;
  };
}

/** What "is it still as reviewed?" found. */
export interface SinceReview {
  /** Its target is no longer as the review saw it: sending it would undo someone else's. */
  changed: boolean;
  /** What changed, in one sentence, where the kind can say exactly (a role itself). */
  why?: string | undefined;
  /**
   * Whether CometChat already has every "after" of it: after an attempt whose outcome was not
   * known, the change did take. Never said of a role's permissions, which cannot be read.
   */
  has: boolean;
  /** The role's last known map, for a change of its permissions. */
  known?: KnownPermissions | undefined;
}

/** What the audit record names besides the keys, read just before the change is sent. */
export type RecordFacts = Pick<AuditRecord, 'movedToDefault' | 'deletedRole'>;

/** One kind of change, bound to one change of it. */
export interface Kind {
  /** The claim that lets one change of its target (a user, a role) run at a time, in its app. */
  target: string;
  /** What it acts on: "`vip`", "user `ana`", "role `vip` (new)". */
  name: string;
  /** What it did, once CometChat confirmed it: "role is now `vip`", "deleted". */
  done: string;
  /** Said when it is no longer as reviewed, or its target is being changed meanwhile. */
  outOfDate: string;
  /** The log line of it applied. */
  logged: string;
  /**
   * Sends it. A kind whose send takes many requests (a containment's deletions) calls `alive`
   * between them: the road keeps its target claimed and its pending record young meanwhile.
   */
  send(client: ChangeClient, alive?: () => Promise<void>): Promise<Sent>;
  sinceReview(reads: Reads): Promise<SinceReview>;
  recordFacts(client: ChangeClient, reads: Reads): Promise<RecordFacts>;
}

/** For the kinds whose record names nothing besides their keys. */
export const NO_FACTS = async (): Promise<RecordFacts> => ({});
