import { activeUser } from './auth-tokens.ts';
import { errorResponse } from './errors.ts';
import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { pageOf, readPaging } from './paging.ts';
import { ok, type SandboxResponse } from './response.ts';
import { GROUP_SCOPES, type Group, type GroupMember, type SandboxState } from './state.ts';

// Groups (live-api-notes.md, "Groups"): the list, one group, its members (a scope changed, a
// member kicked), and bans. Read on a
// user's behalf (`onBehalfOf`), the list shows the groups that user can see (public and
// password ones, private ones they are in), each with `hasJoined` and, when joined, `scope`.
// Like the service, a deactivated user's uid is `ERR_UID_NOT_FOUND` there and in the bans.

/** A group as served: its fields and how many members it has. */
function served(state: SandboxState, group: Group): Record<string, unknown> {
  return { ...group, membersCount: state.accounts.members.get(group.guid)?.size ?? 0 };
}

export function listGroups(
  state: SandboxState,
  query: Record<string, string>,
  onBehalfOf: string | undefined,
): SandboxResponse {
  const details: Record<string, string[]> = {};
  const paging = readPaging(query, details);
  if (paging === undefined) return errorResponse('ERR_BAD_REQUEST', { details });
  const user = onBehalfOf === undefined ? undefined : activeUser(state, onBehalfOf);
  if (onBehalfOf !== undefined && user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  const search = query.searchKey?.toLowerCase();
  const groups = [...state.accounts.groups.values()].flatMap((group) => {
    if (query.type !== undefined && group.type !== query.type) return [];
    if (search && !`${group.guid} ${group.name}`.toLowerCase().includes(search)) return [];
    if (user === undefined) return [served(state, group)];
    const member = state.accounts.members.get(group.guid)?.get(user.uid);
    if (group.type === 'private' && member === undefined) return [];
    const joined = member && { scope: member.scope, joinedAt: member.joinedAt };
    return [{ ...served(state, group), hasJoined: member !== undefined, ...joined }];
  });
  return ok(pageOf(groups, paging));
}

export function getGroup(state: SandboxState, guid: string | undefined): SandboxResponse {
  const group = guid === undefined ? undefined : state.accounts.groups.get(guid);
  if (group === undefined) return errorResponse('ERR_GUID_NOT_FOUND');
  return ok({ data: served(state, group) });
}

/** The members, in the order they joined the seed; `scopes` (`admin,moderator`) narrows them. */
export function listMembers(
  state: SandboxState,
  guid: string | undefined,
  query: Record<string, string>,
): SandboxResponse {
  const group = guid === undefined ? undefined : state.accounts.groups.get(guid);
  if (group === undefined) return errorResponse('ERR_GUID_NOT_FOUND');
  const details: Record<string, string[]> = {};
  const paging = readPaging(query, details);
  if (paging === undefined) return errorResponse('ERR_BAD_REQUEST', { details });
  const scopes = query.scopes?.split(',').map((scope) => scope.trim());
  const members = [...(state.accounts.members.get(group.guid) ?? new Map())].flatMap(
    ([uid, member]) => {
      if (scopes && !scopes.includes(member.scope)) return [];
      const user = state.users.get(uid);
      return [{ uid, name: user?.name ?? uid, role: user?.role, ...member }];
    },
  );
  return ok(pageOf(members, paging));
}

/** The group, the user and their membership a member route names, or the service's error. */
function memberTarget(
  state: SandboxState,
  guid: string | undefined,
  uid: string | undefined,
): { group: Group; uid: string; member: GroupMember } | SandboxResponse {
  const group = guid === undefined ? undefined : state.accounts.groups.get(guid);
  if (group === undefined) return errorResponse('ERR_GUID_NOT_FOUND');
  const user = activeUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  const member = state.accounts.members.get(group.guid)?.get(user.uid);
  if (member === undefined) return errorResponse('ERR_NOT_A_MEMBER');
  // Not documented: the stand-in keeps the owner an admin of their group, whoever asks.
  if (user.uid === group.owner) return errorResponse('ERR_GROUP_NO_SCOPE_CLEARANCE');
  return { group, uid: user.uid, member };
}

/** PUT /v3/groups/{guid}/members/{uid} `{scope}`: the member's new scope. */
export function changeMemberScope(
  state: SandboxState,
  request: {
    guid: string | undefined;
    uid: string | undefined;
    contentType: string | undefined;
    body: RequestBody;
  },
): SandboxResponse {
  const target = memberTarget(state, request.guid, request.uid);
  if (!('member' in target)) return target;
  const body = jsonBody(request.contentType, request.body);
  if (!body.ok) return body.response;
  const scope = isObject(body.value) ? body.value.scope : undefined;
  const known = GROUP_SCOPES.find((one) => one === scope);
  if (known === undefined) {
    return badRequest('scope', `The scope must be one of: ${GROUP_SCOPES.join(', ')}.`);
  }
  if (target.member.scope === known) return errorResponse('ERR_SAME_SCOPE');
  target.member.scope = known;
  const message = `The scope of ${target.uid} in the group ${target.group.guid} is now ${known}.`;
  return ok({ data: { success: true, message } });
}

/** DELETE the same: the member kicked out (they may join again, or be added back). */
export function kickMember(
  state: SandboxState,
  request: { guid: string | undefined; uid: string | undefined },
): SandboxResponse {
  const target = memberTarget(state, request.guid, request.uid);
  if (!('member' in target)) return target;
  state.accounts.members.get(target.group.guid)?.delete(target.uid);
  const message = `${target.uid} is kicked from the group ${target.group.guid} successfully.`;
  return ok({ data: { success: true, message } });
}

/** The group and the (active) user a ban names, or the error the service answers. */
function banTarget(
  state: SandboxState,
  guid: string | undefined,
  uid: string | undefined,
): { guid: string; uid: string } | SandboxResponse {
  const group = guid === undefined ? undefined : state.accounts.groups.get(guid);
  if (group === undefined) return errorResponse('ERR_GUID_NOT_FOUND');
  const user = activeUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  return { guid: group.guid, uid: user.uid };
}

/** POST /v3/groups/{guid}/bannedusers/{uid}: the user leaves the group and cannot rejoin. */
export function banMember(
  state: SandboxState,
  request: { guid: string | undefined; uid: string | undefined; now: number },
): SandboxResponse {
  const target = banTarget(state, request.guid, request.uid);
  if (!('uid' in target)) return target;
  const bans = state.accounts.bans.get(target.guid) ?? new Map<string, number>();
  if (bans.has(target.uid)) return errorResponse('ERR_ALREADY_BANNED');
  state.accounts.bans.set(target.guid, bans.set(target.uid, request.now));
  state.accounts.members.get(target.guid)?.delete(target.uid);
  const message = `${target.uid} is banned from the group ${target.guid} successfully.`;
  return ok({ data: { success: true, message } });
}

/** DELETE the same: the ban lifted; the user may join again (they are not put back). */
export function unbanMember(
  state: SandboxState,
  request: { guid: string | undefined; uid: string | undefined },
): SandboxResponse {
  const target = banTarget(state, request.guid, request.uid);
  if (!('uid' in target)) return target;
  if (!state.accounts.bans.get(target.guid)?.delete(target.uid)) {
    return errorResponse('ERR_NOT_A_BANNED_USER');
  }
  const message = `${target.uid} is unbanned from the group ${target.guid} successfully.`;
  return ok({ data: { success: true, message } });
}

/** GET /v3/groups/{guid}/bannedusers: who is banned, in the order they were. */
export function listBans(
  state: SandboxState,
  guid: string | undefined,
  query: Record<string, string>,
): SandboxResponse {
  const group = guid === undefined ? undefined : state.accounts.groups.get(guid);
  if (group === undefined) return errorResponse('ERR_GUID_NOT_FOUND');
  const details: Record<string, string[]> = {};
  const paging = readPaging(query, details);
  if (paging === undefined) return errorResponse('ERR_BAD_REQUEST', { details });
  const banned = [...(state.accounts.bans.get(group.guid) ?? new Map<string, number>())].map(
    ([uid, bannedAt]) => ({ uid, name: state.users.get(uid)?.name ?? uid, bannedAt }),
  );
  return ok(pageOf(banned, paging));
}
