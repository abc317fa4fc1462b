import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  loadSeed,
  SANDBOX_ACCOUNT_IDS,
  SANDBOX_GROUP_IDS,
  type Sandbox,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

// A group's members, their scopes, kicks and the scopes' permissions on the stand-in, over
// HTTP, as live-api-notes.md describes them ("Groups"); the groups seeded for them.

const API_KEY = 'groups-test-key-5c2d';
const {
  hiking,
  townHall,
  townHallMembers,
  hikingOwner,
  hikingModerator,
  deniedByScope,
  bannedFromHiking,
  bannedFromTownHall,
  allowed,
  notMember,
  hikingParticipantPermissions,
} = SANDBOX_GROUP_IDS;
const { uid, deactivated } = SANDBOX_ACCOUNT_IDS;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

const JSON_TYPE = { 'content-type': 'application/json' };

function call(method: string, path: string, body?: unknown) {
  return fetch(`${sandbox.apiUrl}/v3/${path}`, {
    method,
    headers: { apikey: API_KEY, ...(body === undefined ? {} : JSON_TYPE) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

async function codeOf(response: Response, status: number): Promise<string> {
  return (await json<{ error: { code: string } }>(response, status)).error.code;
}

interface Paged<T> {
  data: T[];
  meta: { pagination: { total: number; count: number; total_pages: number } };
}
interface MemberJson {
  uid: string;
  scope: string;
  role?: string;
}
interface DefinitionJson {
  id: string;
  type: string;
  dataType: string;
  availableValues: string[];
  defaultValue: unknown;
}
interface UpdateJson {
  data: { permissions: Record<string, unknown> } & Record<string, unknown>;
}

const membersOf = (guid: string) => sandbox.state.accounts.members.get(guid);
const scopeValues = (guid: string, scope: 'admin' | 'moderator' | 'participant') =>
  sandbox.state.accounts.scopePermissions.get(guid)?.get(scope);

describe('the seeded groups', () => {
  it('gives hiking every scope, a banned active user, and participants denied sendMessage', () => {
    const { accounts, users } = loadSeed();
    const hikers = accounts.members.get(hiking);
    expect(hikers?.get(hikingOwner)?.scope).toBe('admin');
    expect(accounts.groups.get(hiking)?.owner).toBe(hikingOwner);
    expect(hikers?.get(hikingModerator)?.scope).toBe('moderator');
    expect(hikers?.get(deniedByScope)?.scope).toBe('participant');
    expect(accounts.bans.get(hiking)?.has(bannedFromHiking)).toBe(true);
    expect(users.get(bannedFromHiking)?.deactivatedAt).toBeUndefined();
    expect(accounts.scopePermissions.get(hiking)?.get('participant')).toEqual(
      hikingParticipantPermissions,
    );
  });

  it('gives town-hall more members than a page of 25, and its named users', () => {
    const { accounts, users } = loadSeed();
    const hall = accounts.members.get(townHall);
    expect(hall?.size).toBe(townHallMembers);
    expect(townHallMembers).toBeGreaterThan(25);
    expect(hall?.get(allowed)?.scope).toBe('participant');
    expect(accounts.bans.get(townHall)?.has(bannedFromTownHall)).toBe(true);
    expect(users.get(bannedFromTownHall)?.deactivatedAt).toBeUndefined();
    for (const guid of [hiking, townHall]) {
      expect(accounts.groups.get(guid)?.type).toBe('private');
      expect(accounts.members.get(guid)?.has(notMember)).toBe(false);
      // The account user's groups stay the three the account tests know.
      expect(accounts.members.get(guid)?.has(uid)).toBe(false);
    }
    for (const member of hall?.keys() ?? [])
      expect(users.get(member)?.deactivatedAt).toBeUndefined();
  });

  it('is the same on every load', () => {
    const early = loadSeed('default', 1_700_000_000).accounts;
    const late = loadSeed('default', 1_900_000_000).accounts;
    expect([...late.members]).toEqual([...early.members]);
    expect([...late.scopePermissions]).toEqual([...early.scopePermissions]);
  });
});

describe('members', () => {
  it('pages the members and narrows them by scope', async () => {
    const path = `groups/${townHall}/members`;
    const first = await json<Paged<MemberJson>>(await call('GET', `${path}?perPage=25`));
    const second = await json<Paged<MemberJson>>(await call('GET', `${path}?perPage=25&page=2`));
    expect(first.data).toHaveLength(25);
    expect(second.data).toHaveLength(townHallMembers - 25);
    expect(first.meta.pagination).toMatchObject({ total: townHallMembers, total_pages: 2 });
    const staff = await json<Paged<MemberJson>>(
      await call('GET', `${path}?scopes=admin,moderator`),
    );
    expect(staff.data.map((m) => m.scope).sort()).toEqual([
      'admin',
      'admin',
      'moderator',
      'moderator',
      'moderator',
    ]);
  });

  it('changes a member’s scope; the same scope again is ERR_SAME_SCOPE', async () => {
    const path = `groups/${hiking}/members/${deniedByScope}`;
    const changed = await json<{ data: { success: boolean } }>(
      await call('PUT', path, { scope: 'moderator' }),
    );
    expect(changed.data.success).toBe(true);
    expect(membersOf(hiking)?.get(deniedByScope)?.scope).toBe('moderator');
    expect(await codeOf(await call('PUT', path, { scope: 'moderator' }), 400)).toBe(
      'ERR_SAME_SCOPE',
    );
  });

  it('refuses a scope that is not one of the three, and changes nothing', async () => {
    const path = `groups/${hiking}/members/${deniedByScope}`;
    for (const body of [{ scope: 'owner' }, { scope: 'Admin' }, {}]) {
      expect(await codeOf(await call('PUT', path, body), 400)).toBe('ERR_BAD_REQUEST');
    }
    expect(membersOf(hiking)?.get(deniedByScope)?.scope).toBe('participant');
  });

  it('kicks a member out, once; a non-member is ERR_NOT_A_MEMBER', async () => {
    const path = `groups/${hiking}/members/${deniedByScope}`;
    expect((await call('DELETE', path)).status).toBe(200);
    expect(membersOf(hiking)?.has(deniedByScope)).toBe(false);
    expect(await codeOf(await call('DELETE', path), 404)).toBe('ERR_NOT_A_MEMBER');
    const outsider = `groups/${hiking}/members/${notMember}`;
    expect(await codeOf(await call('PUT', outsider, { scope: 'admin' }), 404)).toBe(
      'ERR_NOT_A_MEMBER',
    );
  });

  it('keeps the owner an admin: ERR_GROUP_NO_SCOPE_CLEARANCE', async () => {
    const path = `groups/${hiking}/members/${hikingOwner}`;
    expect(await codeOf(await call('PUT', path, { scope: 'participant' }), 400)).toBe(
      'ERR_GROUP_NO_SCOPE_CLEARANCE',
    );
    expect(await codeOf(await call('DELETE', path), 400)).toBe('ERR_GROUP_NO_SCOPE_CLEARANCE');
    expect(membersOf(hiking)?.get(hikingOwner)?.scope).toBe('admin');
  });

  it('answers an unknown group, an unknown or deactivated user as the service does', async () => {
    expect(await codeOf(await call('DELETE', `groups/nope/members/${deniedByScope}`), 404)).toBe(
      'ERR_GUID_NOT_FOUND',
    );
    for (const who of ['no-such-user', deactivated]) {
      expect(await codeOf(await call('DELETE', `groups/${hiking}/members/${who}`), 404)).toBe(
        'ERR_UID_NOT_FOUND',
      );
    }
    expect((await call('POST', `groups/${hiking}/members/${deniedByScope}`)).status).toBe(405);
  });

  it('lists the banned users, paged', async () => {
    const banned = await json<Paged<{ uid: string }>>(
      await call('GET', `groups/${hiking}/bannedusers?perPage=1`),
    );
    expect(banned.data.map((b) => b.uid)).toEqual([bannedFromHiking]);
    expect(banned.meta.pagination).toMatchObject({ total: 1, total_pages: 1 });
  });
});

describe('scope permissions', () => {
  const path = (scope: string, guid: string = hiking) =>
    `groups/${guid}/scopes/${scope}/permissions`;

  it('lists the eleven definitions, of type scope, the same for every scope', async () => {
    const page = await json<Paged<DefinitionJson>>(await call('GET', path('participant')));
    expect(page.data).toHaveLength(11);
    expect(page.meta.pagination).toMatchObject({ total: 11, total_pages: 1 });
    expect(new Set(page.data.map((d) => d.type))).toEqual(new Set(['scope']));
    expect(page.data.find((d) => d.id === 'sendMessage')).toMatchObject({
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'allow',
    });
    expect(page.data.find((d) => d.id === 'listMembers.allowedScopes')).toMatchObject({
      dataType: 'stringArray',
      availableValues: ['admin', 'moderator', 'participant'],
    });
    const admin = await json<Paged<DefinitionJson>>(await call('GET', path('admin', townHall)));
    expect(admin.data).toEqual(page.data);
  });

  it('sets keys: answers the effective map and each written action’s result', async () => {
    const { data } = await json<UpdateJson>(
      await call('PUT', path('moderator'), {
        permissions: { editMessage: 'deny', 'initiateCall.allowedType': ['video'] },
      }),
    );
    expect(Object.keys(data.permissions)).toHaveLength(11);
    expect(data.permissions).toMatchObject({
      editMessage: 'deny',
      'initiateCall.allowedType': ['video'],
      sendMessage: 'allow',
    });
    expect(data.editMessage).toMatchObject({ success: true });
    expect(data['initiateCall.allowedType']).toBeUndefined();
    expect(scopeValues(hiking, 'moderator')).toEqual({
      editMessage: 'deny',
      'initiateCall.allowedType': ['video'],
    });
    // Another group's same scope is untouched.
    expect(scopeValues(townHall, 'moderator')).not.toHaveProperty('editMessage');
  });

  it('refuses bad values all at once, and writes nothing', async () => {
    const response = await call('PUT', path('participant'), {
      permissions: { sendMessage: 'yes', 'listMembers.allowedScopes': ['owner'], 'bad key': 1 },
    });
    const body = await json<{ error: { code: string; details: Record<string, string[]> } }>(
      response,
      400,
    );
    expect(Object.keys(body.error.details).sort()).toEqual([
      'permissions.bad key',
      'permissions.listMembers.allowedScopes',
      'permissions.sendMessage',
    ]);
    expect(scopeValues(hiking, 'participant')).toEqual(hikingParticipantPermissions);
    for (const bad of [{}, { permissions: {} }, { permissions: 'x' }]) {
      expect(await codeOf(await call('PUT', path('participant'), bad), 400)).toBe(
        'ERR_BAD_REQUEST',
      );
    }
  });

  it('unsets a key set explicitly back to its default; any other is ERR_PERMISSION_NOT_FOUND', async () => {
    const { data } = await json<UpdateJson>(
      await call('DELETE', `${path('participant')}/sendMessage`),
    );
    expect(data.permissions).toMatchObject({ sendMessage: 'allow', initiateCall: 'deny' });
    expect(scopeValues(hiking, 'participant')).toEqual({ initiateCall: 'deny' });
    for (const key of ['sendMessage', 'addReaction', 'noSuchKey']) {
      expect(await codeOf(await call('DELETE', `${path('participant')}/${key}`), 404)).toBe(
        'ERR_PERMISSION_NOT_FOUND',
      );
    }
  });

  it('refuses a scope that is not one of the three, and an unknown group', async () => {
    for (const scope of ['owner', 'Admin']) {
      expect(await codeOf(await call('GET', path(scope)), 400)).toBe('ERR_BAD_REQUEST');
      expect(
        await codeOf(await call('PUT', path(scope), { permissions: { sendMessage: 'deny' } }), 400),
      ).toBe('ERR_BAD_REQUEST');
    }
    expect(await codeOf(await call('GET', path('admin', 'nope')), 404)).toBe('ERR_GUID_NOT_FOUND');
    expect(sandbox.state.accounts.scopePermissions.get(hiking)?.size).toBe(1);
  });

  it('answers a 404 fault on a scope permission’s path ERR_PERMISSION_NOT_FOUND', async () => {
    sandbox.inject({ kind: 'status', status: 404, pathIncludes: '/scopes/' });
    expect(await codeOf(await call('DELETE', `${path('participant')}/sendMessage`), 404)).toBe(
      'ERR_PERMISSION_NOT_FOUND',
    );
    expect(scopeValues(hiking, 'participant')).toEqual(hikingParticipantPermissions);
  });

  it('is back to the seed after a reset', async () => {
    await call('PUT', path('admin'), { permissions: { sendMessage: 'deny' } });
    await call('PUT', `groups/${hiking}/members/${deniedByScope}`, { scope: 'admin' });
    sandbox.reset();
    expect(scopeValues(hiking, 'admin')).toBeUndefined();
    expect(membersOf(hiking)?.get(deniedByScope)?.scope).toBe('participant');
  });
});
