import type { PermissionUpdate } from './model.ts';
import type { Pagination, PermissionDefinition, PermissionMap } from './schemas.ts';

// Groups as the app works with them (on the chat host: `/v3/groups`, live-api-notes.md,
// "Groups"): a group, its members and their scopes, its banned users, and each scope's
// permissions, which CometChat documents in the same form as a role's (definitions, set, unset;
// no read of current values). The service's shapes are resolved into these by groups.ts.

export const GROUP_SCOPES = ['admin', 'moderator', 'participant'] as const;
/** A member's standing inside one group; each scope has permissions of its own. */
export type GroupScope = (typeof GROUP_SCOPES)[number];

export interface Group {
  /** Lower-case, as the service stores it. */
  guid: string;
  name: string;
  description?: string | undefined;
  /** `public`, `private`, `password` (kept as the service says it, if another). */
  type: string;
  /** The owner's uid, when the service says. */
  owner?: string | undefined;
  membersCount: number;
  /** Unix seconds. */
  createdAt?: number | undefined;
  tags?: string[] | undefined;
}

export interface GroupMember {
  uid: string;
  name?: string | undefined;
  /** Their role (the app-wide layer), when the service says. */
  role?: string | undefined;
  scope: GroupScope;
  /** Unix seconds. */
  joinedAt?: number | undefined;
}

export interface BannedMember {
  uid: string;
  name?: string | undefined;
}

/** Which groups `listGroups` reads. */
export interface GroupQuery {
  /** A prefix of the guid or the name. */
  searchKey?: string | undefined;
  type?: string | undefined;
  page: number;
  perPage: number;
}

export interface GroupPage {
  groups: Group[];
  pagination: Pagination;
}

export interface MemberPage {
  members: GroupMember[];
  pagination: Pagination;
}

export interface BannedPage {
  banned: BannedMember[];
  pagination: Pagination;
}

export interface GroupOperations {
  /** One group; `not_found` (`ERR_GUID_NOT_FOUND`) when there is none. */
  getGroup(guid: string): Promise<Group>;
  listGroups(query: GroupQuery): Promise<GroupPage>;
  /** One page of the group's members, narrowed to some scopes when given. */
  listGroupMembers(
    guid: string,
    query: { scopes?: readonly GroupScope[] | undefined; page: number; perPage: number },
  ): Promise<MemberPage>;
  /** One page of the users banned from the group. */
  listBannedMembers(guid: string, query: { page: number; perPage: number }): Promise<BannedPage>;
  /** Gives a member another scope (`ERR_SAME_SCOPE`, `ERR_NOT_A_MEMBER` refused). */
  setMemberScope(guid: string, uid: string, scope: GroupScope): Promise<void>;
  /** Removes a member (they may join again, or be added back). */
  kickGroupMember(guid: string, uid: string): Promise<void>;
  /** The definitions of a scope's permission keys (not their values: there is no read). */
  listScopePermissionDefinitions(guid: string, scope: GroupScope): Promise<PermissionDefinition[]>;
  /** Sets keys of a scope's permissions; answers the effective map. */
  setScopePermissions(
    guid: string,
    scope: GroupScope,
    permissions: PermissionMap,
  ): Promise<PermissionUpdate>;
  /** Unsets one key (back to its default); answers the rest of the map. */
  unsetScopePermission(guid: string, scope: GroupScope, key: string): Promise<PermissionUpdate>;
}
