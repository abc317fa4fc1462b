import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../offline/cometchat-standin/server.ts';
import { type CometChatClient, createCometChatClient } from '../../src/cometchat/client.ts';
import type { Role, RolePage } from '../../src/cometchat/model.ts';
import { withRoleCache } from '../../src/cometchat/role-cache.ts';

const API_KEY = 'role-cache-test-key';

describe('role list cache', () => {
  let sandbox: Sandbox;
  let clock = 0;
  beforeAll(async () => {
    sandbox = await startSandbox({ apiKey: API_KEY });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  beforeEach(() => {
    sandbox.reset();
    clock = 0;
  });

  function cachedClient() {
    const client = createCometChatClient({
      apiUrl: sandbox.apiUrl,
      callApiUrl: sandbox.callUrl,
      apiKey: API_KEY,
      timeoutMs: 1_000,
      budgetMs: 2_000,
      logger: pino({ level: 'silent' }),
    });
    return withRoleCache(client, { ttlMs: 30_000, now: () => clock });
  }
  const roleRequests = () =>
    sandbox.requests.filter((r) => r.path.startsWith('/v3/roles?') || r.path === '/v3/roles');

  it('answers a repeated page from memory until the time is up', async () => {
    const client = cachedClient();
    const first = await client.listRoles({ page: 1, perPage: 10 });
    const again = await client.listRoles({ page: 1, perPage: 10 });
    expect(again).toEqual(first);
    expect(roleRequests()).toHaveLength(1);
    await client.listRoles({ page: 2, perPage: 10 });
    expect(roleRequests()).toHaveLength(2);
    clock = 30_001;
    await client.listRoles({ page: 1, perPage: 10 });
    expect(roleRequests()).toHaveLength(3);
  });

  it('shares one request between concurrent asks', async () => {
    const client = cachedClient();
    await Promise.all([client.listAllRoles(), client.listAllRoles(), client.listAllRoles()]);
    expect(roleRequests()).toHaveLength(1);
  });

  it('forgets the list when permissions are changed through it, even if the change fails', async () => {
    const client = cachedClient();
    await client.listAllRoles();
    await client.setRolePermissions('default', { sendMessage: 'deny' });
    await client.listAllRoles();
    expect(roleRequests()).toHaveLength(2);
    sandbox.inject({ kind: 'status', status: 400, method: 'PUT' });
    await expect(client.setRolePermissions('default', { sendMessage: 'allow' })).rejects.toThrow();
    await client.listAllRoles();
    expect(roleRequests()).toHaveLength(3);
  });

  it('never keeps a failure', async () => {
    const client = cachedClient();
    sandbox.inject({ kind: 'status', status: 401, pathIncludes: '/roles' });
    await expect(client.listRoles({ page: 1 })).rejects.toMatchObject({ kind: 'unauthorized' });
    const roles = await client.listRoles({ page: 1 });
    expect(roles.roles.length).toBeGreaterThan(0);
  });

  it('never caches a call', async () => {
    const client = cachedClient();
    const id = [...sandbox.state.calls.keys()][0] ?? '';
    await client.getCall(id);
    await client.getCall(id);
    expect(sandbox.requests.filter((r) => r.path.startsWith('/v3/calls/'))).toHaveLength(2);
  });
  it("keeps how many users hold a role briefly, and forgets every count when a user's role changes", async () => {
    const client = cachedClient();
    const countRequests = () =>
      sandbox.requests.filter((r) => r.path === '/v3/users' && r.query.perPage === '1');
    const premium = await client.countUsersWithRole('premium');
    expect(await client.countUsersWithRole('premium')).toBe(premium);
    expect(countRequests()).toHaveLength(1);
    await client.setUserRole('cometchat-uid-5', 'premium');
    expect(await client.countUsersWithRole('premium')).toBe(premium + 1);
    expect(countRequests()).toHaveLength(2);
    clock += 30_001;
    await client.countUsersWithRole('premium');
    expect(countRequests()).toHaveLength(3);
  });
});

describe('role list cache, in front of a client the test answers by hand', () => {
  const notAsked = () => Promise.reject(new Error('not asked in these tests'));

  /** A client whose role lists wait until the test answers them; it counts what was asked. */
  function handClient() {
    const lists: ((roles: Role[]) => void)[] = [];
    const pages: number[] = [];
    const client: CometChatClient = {
      listAllRoles: () => new Promise((resolve) => lists.push(resolve)),
      listRoles: async (query = {}): Promise<RolePage> => {
        const page = query.page ?? 1;
        pages.push(page);
        return {
          roles: [],
          pagination: { total: 0, count: 0, per_page: 10, current_page: page, total_pages: 0 },
        };
      },
      setRolePermissions: async () => ({ permissions: {}, results: {} }),
      listPermissionDefinitions: notAsked,
      createRole: notAsked,
      updateRole: notAsked,
      deleteRole: notAsked,
      unsetRolePermission: notAsked,
      getCall: notAsked,
      getCallMessageSession: notAsked,
      listCalls: notAsked,
      getUsage: notAsked,
      getUser: notAsked,
      listUsers: notAsked,
      countUsersWithRole: notAsked,
      setUserRole: notAsked,
      deactivateUsers: notAsked,
      reactivateUsers: notAsked,
      listFriends: notAsked,
      areFriends: notAsked,
      listBlockedUsers: notAsked,
      blocksBetween: notAsked,
      listFlaggedMessages: notAsked,
      decideFlaggedMessage: notAsked,
      listBlockedMessages: notAsked,
      decideBlockedMessage: notAsked,
      listRules: notAsked,
      getRule: notAsked,
      updateRule: notAsked,
      listRuleRevisions: notAsked,
      listSessions: notAsked,
      revokeSession: notAsked,
      revokeAllSessions: notAsked,
      listMessages: notAsked,
      getMessage: notAsked,
      deleteMessage: notAsked,
      listUserGroups: notAsked,
      banGroupMember: notAsked,
      unbanGroupMember: notAsked,
      getGroup: notAsked,
      listGroups: notAsked,
      listGroupMembers: notAsked,
      listBannedMembers: notAsked,
      setMemberScope: notAsked,
      kickGroupMember: notAsked,
      listScopePermissionDefinitions: notAsked,
      setScopePermissions: notAsked,
      unsetScopePermission: notAsked,
    };
    return { client, lists, pages };
  }

  it('answers a list asked before a change with what it got, and asks again after it', async () => {
    const hand = handClient();
    const cached = withRoleCache(hand.client, { ttlMs: 30_000 });
    const before = cached.listAllRoles();
    await cached.setRolePermissions('default', { sendMessage: 'deny' });
    hand.lists[0]?.([]);
    expect(await before).toEqual([]);
    const after = cached.listAllRoles();
    expect(hand.lists).toHaveLength(2);
    hand.lists[1]?.([]);
    await after;
    await cached.listAllRoles();
    expect(hand.lists).toHaveLength(2);
  });

  it('keeps a bounded number of pages, forgetting the least recently used', async () => {
    const hand = handClient();
    const cached = withRoleCache(hand.client, { ttlMs: 30_000 });
    for (let page = 1; page <= 60; page += 1) await cached.listRoles({ page });
    await cached.listRoles({ page: 60 });
    expect(hand.pages).toHaveLength(60);
    await cached.listRoles({ page: 1 });
    expect(hand.pages).toHaveLength(61);
  });
});
