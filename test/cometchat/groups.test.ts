import { describe, expect, it } from 'vitest';
import { SANDBOX_GROUP_IDS } from '../../offline/cometchat-standin/server.ts';
import { failure, only, useSandboxClient } from './client-harness.ts';

// The client's groups (group-model.ts) against the stand-in over loopback: what each method
// sends, how the answers are read, the pages, and how CometChat's refusals come back. The seed
// is described in offline/cometchat-standin/README.md ("Groups").

const { sandbox: standIn, client: clientOf } = useSandboxClient();
const {
  hiking,
  townHall,
  townHallMembers,
  hikingOwner,
  hikingModerator,
  deniedByScope,
  bannedFromHiking,
  notMember,
} = SANDBOX_GROUP_IDS;

const sent = () => standIn().requests.map((r) => `${r.method} ${r.path}`);

describe('getGroup and listGroups', () => {
  it('reads one group with its owner, member count and creation', async () => {
    const group = await clientOf().getGroup(hiking);
    expect(group).toEqual({
      guid: hiking,
      name: 'Hiking club',
      description: 'Weekend walks; only admins and moderators post.',
      type: 'private',
      owner: hikingOwner,
      membersCount: 5,
      createdAt: 1_700_100_000,
      tags: ['community'],
    });
    expect(only(standIn().requests)).toMatchObject({ method: 'GET', path: `/v3/groups/${hiking}` });
  });

  it('is not_found for an unknown guid, and refuses a dot segment before sending', async () => {
    const error = await failure(clientOf().getGroup('no-such-group'));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_GUID_NOT_FOUND' });
    standIn().requests.length = 0;
    expect((await failure(clientOf().getGroup('..'))).kind).toBe('bad_request');
    expect(standIn().requests).toEqual([]);
  });

  it('searches by text and type, one page at a time', async () => {
    const found = await clientOf().listGroups({ searchKey: 'hik', page: 1, perPage: 10 });
    expect(found.groups.map((g) => g.guid)).toEqual([hiking]);
    expect(found.pagination).toMatchObject({ total: 1, current_page: 1 });
    const privates = await clientOf().listGroups({ type: 'private', page: 2, perPage: 2 });
    expect(privates.groups.map((g) => g.guid)).toEqual([hiking, townHall]);
    expect(privates.pagination).toMatchObject({ total: 4, total_pages: 2, current_page: 2 });
    expect(standIn().requests.map((r) => r.query)).toEqual([
      { searchKey: 'hik', page: '1', perPage: '10' },
      { type: 'private', page: '2', perPage: '2' },
    ]);
  });
});

describe('listGroupMembers and listBannedMembers', () => {
  it('pages through a group of more members than a page holds', async () => {
    const first = await clientOf().listGroupMembers(townHall, { page: 1, perPage: 25 });
    const second = await clientOf().listGroupMembers(townHall, { page: 2, perPage: 25 });
    expect(first.members).toHaveLength(25);
    expect(second.members).toHaveLength(townHallMembers - 25);
    expect(first.pagination).toMatchObject({ total: townHallMembers, total_pages: 2 });
    expect(first.members[0]).toMatchObject({ uid: 'ops-lead', role: 'admin', scope: 'admin' });
    expect(typeof first.members[0]?.joinedAt).toBe('number');
  });

  it('narrows the members to some scopes, sent as one list', async () => {
    const staff = await clientOf().listGroupMembers(townHall, {
      scopes: ['admin', 'moderator'],
      page: 1,
      perPage: 25,
    });
    expect(staff.members.map((m) => m.scope).sort()).toEqual([
      'admin',
      'admin',
      'moderator',
      'moderator',
      'moderator',
    ]);
    expect(only(standIn().requests).query).toEqual({
      scopes: 'admin,moderator',
      page: '1',
      perPage: '25',
    });
  });

  it('lists the banned users, paged', async () => {
    const page = await clientOf().listBannedMembers(hiking, { page: 1, perPage: 25 });
    expect(page.banned).toEqual([{ uid: bannedFromHiking, name: expect.any(String) }]);
    expect(page.pagination).toMatchObject({ total: 1, total_pages: 1 });
    const empty = await clientOf().listBannedMembers(hiking, { page: 2, perPage: 25 });
    expect(empty.banned).toEqual([]);
    expect(sent()).toEqual([
      `GET /v3/groups/${hiking}/bannedusers`,
      `GET /v3/groups/${hiking}/bannedusers`,
    ]);
  });

  it('is not_found for an unknown group', async () => {
    const members = await failure(
      clientOf().listGroupMembers('no-such-group', { page: 1, perPage: 25 }),
    );
    expect(members).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_GUID_NOT_FOUND' });
  });
});

describe('setMemberScope and kickGroupMember', () => {
  const scopeOf = (guid: string, uid: string) =>
    standIn().state.accounts.members.get(guid)?.get(uid)?.scope;

  it('PUTs the new scope, once', async () => {
    await clientOf().setMemberScope(hiking, deniedByScope, 'moderator');
    expect(scopeOf(hiking, deniedByScope)).toBe('moderator');
    const request = only(standIn().requests);
    expect(request).toMatchObject({
      method: 'PUT',
      path: `/v3/groups/${hiking}/members/${deniedByScope}`,
    });
    expect(request.body).toEqual({ scope: 'moderator' });
  });

  it('says the service’s refusals: same scope, not a member, the owner, an unknown group', async () => {
    const same = await failure(clientOf().setMemberScope(hiking, hikingModerator, 'moderator'));
    expect(same).toMatchObject({ kind: 'bad_request', serviceCode: 'ERR_SAME_SCOPE' });
    const outside = await failure(clientOf().setMemberScope(hiking, notMember, 'admin'));
    expect(outside).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_NOT_A_MEMBER' });
    const owner = await failure(clientOf().setMemberScope(hiking, hikingOwner, 'participant'));
    expect(owner).toMatchObject({ serviceCode: 'ERR_GROUP_NO_SCOPE_CLEARANCE' });
    const nowhere = await failure(clientOf().kickGroupMember('no-such-group', deniedByScope));
    expect(nowhere).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_GUID_NOT_FOUND' });
    expect(scopeOf(hiking, hikingModerator)).toBe('moderator');
    expect(scopeOf(hiking, hikingOwner)).toBe('admin');
  });

  it('DELETEs a member to kick them; a second kick is refused ERR_NOT_A_MEMBER', async () => {
    await clientOf().kickGroupMember(hiking, deniedByScope);
    expect(scopeOf(hiking, deniedByScope)).toBeUndefined();
    const again = await failure(clientOf().kickGroupMember(hiking, deniedByScope));
    expect(again).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_NOT_A_MEMBER' });
    expect(sent()).toEqual([
      `DELETE /v3/groups/${hiking}/members/${deniedByScope}`,
      `DELETE /v3/groups/${hiking}/members/${deniedByScope}`,
    ]);
  });

  it('repeats a scope change (a PUT) after a 503, as ky repeats a PUT', async () => {
    standIn().inject({ kind: 'status', status: 503, method: 'PUT', pathIncludes: '/members/' });
    await clientOf().setMemberScope(hiking, deniedByScope, 'moderator');
    expect(standIn().requests).toHaveLength(2);
    expect(scopeOf(hiking, deniedByScope)).toBe('moderator');
  });
});

describe('scope permissions', () => {
  const path = `/v3/groups/${hiking}/scopes/participant/permissions`;

  it('lists the eleven definitions CometChat documents for a scope', async () => {
    const definitions = await clientOf().listScopePermissionDefinitions(hiking, 'participant');
    expect(definitions).toHaveLength(11);
    expect(definitions.map((d) => d.id)).toEqual(
      expect.arrayContaining(['sendMessage', 'listMembers.allowedScopes', 'addReaction']),
    );
    expect(definitions.find((d) => d.id === 'initiateCall.allowedType')).toMatchObject({
      dataType: 'stringArray',
      availableValues: ['audio', 'video'],
      defaultValue: [],
    });
    expect(only(standIn().requests)).toMatchObject({ method: 'GET', path });
  });

  it('sets keys and answers the scope’s effective map, with the written key’s result', async () => {
    const update = await clientOf().setScopePermissions(hiking, 'moderator', {
      addReaction: 'deny',
    });
    expect(update.permissions).toMatchObject({ addReaction: 'deny', sendMessage: 'allow' });
    expect(Object.keys(update.permissions)).toHaveLength(11);
    expect(update.results.addReaction?.success).toBe(true);
    const request = only(standIn().requests);
    expect(request).toMatchObject({
      method: 'PUT',
      path: `/v3/groups/${hiking}/scopes/moderator/permissions`,
    });
    expect(request.body).toEqual({ permissions: { addReaction: 'deny' } });
    expect(standIn().state.accounts.scopePermissions.get(hiking)?.get('moderator')).toEqual({
      addReaction: 'deny',
    });
  });

  it('unsets one key back to its default, and is refused for a key not set', async () => {
    const after = await clientOf().unsetScopePermission(hiking, 'participant', 'sendMessage');
    expect(after.permissions).toMatchObject({ sendMessage: 'allow', initiateCall: 'deny' });
    expect(only(standIn().requests)).toMatchObject({
      method: 'DELETE',
      path: `${path}/sendMessage`,
    });
    const unset = await failure(
      clientOf().unsetScopePermission(hiking, 'participant', 'sendMessage'),
    );
    expect(unset).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_PERMISSION_NOT_FOUND' });
  });

  it('is refused for a value a key does not take, and changes nothing', async () => {
    const error = await failure(
      clientOf().setScopePermissions(hiking, 'participant', { sendMessage: 'sometimes' }),
    );
    expect(error).toMatchObject({ kind: 'bad_request', serviceCode: 'ERR_BAD_REQUEST' });
    expect(standIn().state.accounts.scopePermissions.get(hiking)?.get('participant')).toEqual(
      SANDBOX_GROUP_IDS.hikingParticipantPermissions,
    );
  });

  it('is not_found for an unknown group', async () => {
    const error = await failure(clientOf().listScopePermissionDefinitions('nope', 'admin'));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_GUID_NOT_FOUND' });
  });
});
