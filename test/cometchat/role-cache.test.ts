import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../offline/cometchat-standin/server.ts';
import { createCometChatClient } from '../../src/cometchat/client.ts';
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
});
