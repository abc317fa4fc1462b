import type { UserGroup } from './account-model.ts';
import { everyPage } from './every-page.ts';
import type {
  BannedPage,
  Group,
  GroupMember,
  GroupOperations,
  GroupPage,
  GroupQuery,
  GroupScope,
  MemberPage,
} from './group-model.ts';
import { toPermissionUpdate } from './model.ts';
import { onBehalfOf, Refused, segment } from './refusals.ts';
import {
  BannedMemberListResponseSchema,
  type GroupDetail,
  GroupListResponseSchema,
  GroupMemberListResponseSchema,
  GroupPageResponseSchema,
  GroupResponseSchema,
  type Pagination,
  PermissionDefinitionListResponseSchema,
  type PermissionMap,
  PermissionUpdateResponseSchema,
} from './schemas.ts';
import type { Send, Sender } from './send.ts';

// Groups, on the REST API's host: `/v3/groups` (live-api-notes.md, "Groups"): the groups, one
// group, its members and their scopes, bans, and each scope's permissions (a role's twins in
// roles.ts: the same schemas, the same answer read by toPermissionUpdate). The groups a user is
// in are read on their behalf.
//
// Retries are ky's (ky-instance.ts): a ban is a POST, never repeated (a repeat after a lost
// answer would be refused `ERR_ALREADY_BANNED`). A scope change (PUT) and a kick (DELETE) are
// repeated after a lost answer; such a repeat may be refused `ERR_SAME_SCOPE` or
// `ERR_NOT_A_MEMBER` though the first took: the failure then says `mayHaveReached`.

/** The service's largest page: a user's groups in as few trips as can be. */
const PER_PAGE = 1_000;

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class GroupRequests implements GroupOperations {
  readonly #send: Send;
  readonly #underOneRef: Sender['underOneRef'];

  constructor({ send, underOneRef }: Sender) {
    this.#send = send;
    this.#underOneRef = underOneRef;
  }

  /**
   * Listed on the user's behalf, each group says whether they joined it (`hasJoined`) and their
   * scope; those they joined are theirs. A deactivated user is `not_found` (`ERR_UID_NOT_FOUND`).
   */
  listUserGroups = (uid: string) =>
    this.#underOneRef(async () => {
      const groups = await everyPage(async (page) => {
        const { data, meta } = await this.#send('listUserGroups', ({ api }) => {
          // Without the header the list is everyone's groups, none of them "joined".
          if (uid === '') throw new Refused('the uid is empty');
          return api
            .get('groups', { searchParams: { page, perPage: PER_PAGE }, headers: onBehalfOf(uid) })
            .json(GroupListResponseSchema);
        });
        return { data, pagination: meta };
      });
      return groups
        .filter((group) => group.hasJoined === true)
        .map(
          (group): UserGroup => ({
            guid: group.guid,
            name: group.name ?? group.guid,
            type: group.type ?? 'public',
            scope: group.scope ?? undefined,
          }),
        );
    });

  getGroup = async (guid: string) => {
    const { data } = await this.#send('getGroup', ({ api }) =>
      api.get(groupPath(guid)).json(GroupResponseSchema),
    );
    return toGroup(data);
  };

  listGroups = async ({ searchKey, type, page, perPage }: GroupQuery) => {
    const searchParams = {
      searchKey: searchKey || undefined,
      type: type || undefined,
      page,
      perPage,
    };
    const { data, meta } = await this.#send('listGroups', ({ api }) =>
      api.get('groups', { searchParams }).json(GroupPageResponseSchema),
    );
    return {
      groups: data.map(toGroup),
      pagination: meta ?? onePage(data, page, perPage),
    } satisfies GroupPage;
  };

  listGroupMembers = async (
    guid: string,
    query: { scopes?: readonly GroupScope[] | undefined; page: number; perPage: number },
  ) => {
    const { scopes, page, perPage } = query;
    const searchParams = { scopes: scopes?.length ? scopes.join(',') : undefined, page, perPage };
    const { data, meta } = await this.#send('listGroupMembers', ({ api }) =>
      api.get(`${groupPath(guid)}/members`, { searchParams }).json(GroupMemberListResponseSchema),
    );
    const members = data.map(
      (member): GroupMember => ({
        uid: member.uid,
        name: member.name ?? undefined,
        role: member.role ?? undefined,
        scope: member.scope,
        joinedAt: member.joinedAt ?? undefined,
      }),
    );
    return { members, pagination: meta ?? onePage(data, page, perPage) } satisfies MemberPage;
  };

  listBannedMembers = async (
    guid: string,
    { page, perPage }: { page: number; perPage: number },
  ) => {
    const { data, meta } = await this.#send('listBannedMembers', ({ api }) =>
      api
        .get(`${groupPath(guid)}/bannedusers`, { searchParams: { page, perPage } })
        .json(BannedMemberListResponseSchema),
    );
    const banned = data.map(({ uid, name }) => ({ uid, name: name ?? undefined }));
    return { banned, pagination: meta ?? onePage(data, page, perPage) } satisfies BannedPage;
  };

  /** Any 2xx is the change; its words are not needed. */
  setMemberScope = async (guid: string, uid: string, scope: GroupScope) => {
    await this.#send('setMemberScope', ({ api }) =>
      api.put(memberPath(guid, uid), { json: { scope } }).text(),
    );
  };

  kickGroupMember = async (guid: string, uid: string) => {
    await this.#send('kickGroupMember', ({ api }) => api.delete(memberPath(guid, uid)).text());
  };

  /** Every page of the definitions (CometChat documents eleven: one page). */
  listScopePermissionDefinitions = (guid: string, scope: GroupScope) =>
    this.#underOneRef(() =>
      everyPage(async (page) => {
        const { data, meta } = await this.#send('listScopePermissionDefinitions', ({ api }) =>
          api
            .get(scopePermissionsPath(guid, scope), { searchParams: { page, perPage: 100 } })
            .json(PermissionDefinitionListResponseSchema),
        );
        return { data, pagination: meta.pagination };
      }),
    );

  setScopePermissions = async (guid: string, scope: GroupScope, permissions: PermissionMap) => {
    const { data } = await this.#send('setScopePermissions', ({ api }) =>
      api
        .put(scopePermissionsPath(guid, scope), { json: { permissions } })
        .json(PermissionUpdateResponseSchema),
    );
    return toPermissionUpdate(data);
  };

  unsetScopePermission = async (guid: string, scope: GroupScope, key: string) => {
    const { data } = await this.#send('unsetScopePermission', ({ api }) =>
      api
        .delete(`${scopePermissionsPath(guid, scope)}/${segment(key, 'permission')}`)
        .json(PermissionUpdateResponseSchema),
    );
    return toPermissionUpdate(data);
  };

  /** Any 2xx is the ban; its words are not needed. */
  banGroupMember = async (guid: string, uid: string) => {
    await this.#send('banGroupMember', ({ api }) => api.post(banPath(guid, uid)).text());
  };

  unbanGroupMember = async (guid: string, uid: string) => {
    await this.#send('unbanGroupMember', ({ api }) => api.delete(banPath(guid, uid)).text());
  };
}

function groupPath(guid: string): string {
  return `groups/${segment(guid, 'guid')}`;
}

function memberPath(guid: string, uid: string): string {
  return `${groupPath(guid)}/members/${segment(uid, 'uid')}`;
}

function banPath(guid: string, uid: string): string {
  return `${groupPath(guid)}/bannedusers/${segment(uid, 'uid')}`;
}

function scopePermissionsPath(guid: string, scope: GroupScope): string {
  return `${groupPath(guid)}/scopes/${segment(scope, 'scope')}/permissions`;
}

function toGroup(group: GroupDetail): Group {
  return {
    guid: group.guid,
    name: group.name ?? group.guid,
    description: group.description ?? undefined,
    type: group.type ?? 'public',
    owner: group.owner ?? undefined,
    membersCount: group.membersCount ?? 0,
    createdAt: group.createdAt ?? undefined,
    tags: group.tags ?? undefined,
  };
}

/** A list answered without pagination is one page: all there is. */
function onePage(data: readonly unknown[], page: number, perPage: number): Pagination {
  const count = data.length;
  return { total: count, count, per_page: perPage, current_page: page, total_pages: 1 };
}
