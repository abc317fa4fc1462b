import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultPermissionMap,
  STANDIN_ONLY_PERMISSION_KEYS,
} from '../../../offline/cometchat-standin/permission-catalogue.ts';
import { loadSeed, type Sandbox, startSandbox } from '../../../offline/cometchat-standin/server.ts';
import catalogue from '../../../src/cometchat/permissions.json' with { type: 'json' };

// Role management beyond the reference, over HTTP (live-api-notes.md, "Role management beyond
// the reference"): the permission definitions, creating, changing and deleting roles, and
// unsetting one permission; and the state model behind unsetting (which keys are set).

const API_KEY = 'roles-test-key-8d21';
const JSON_HEADERS = { apikey: API_KEY, 'content-type': 'application/json' };
const EXTRA_KEY = 'removeReaction';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

// Views of the stand-in's JSON for the assertions below (the stand-in is what is under test).
interface RoleJson {
  role: string;
  name: string;
  description: string;
  metadata?: Record<string, unknown>;
  settings?: Record<string, string>;
  createdAt: number;
  updatedAt?: number;
}
interface DefinitionJson {
  id: string;
  type: string;
  title: string;
  description: string;
  dataType: string;
  availableValues: string[];
  defaultValue: unknown;
  createdAt: number;
  updatedAt: number;
}
interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  total_pages: number;
}
interface DefinitionPageJson {
  data: DefinitionJson[];
  meta: { pagination: Pagination };
}
interface ErrorJson {
  code: string;
  message: string;
  devMessage: string;
  details?: Record<string, string[]>;
}

/** Every key of the shipped catalogue, in its order. */
const CATALOGUE_KEYS = catalogue.permissions.map((entry) => entry.key);

function send(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = JSON_HEADERS,
) {
  return fetch(`${sandbox.apiUrl}/v3/${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as T;
}

async function errorOf(response: Response, status: number): Promise<ErrorJson> {
  return (await json<{ error: ErrorJson }>(response, status)).error;
}

async function definitions(role = 'guest', query = ''): Promise<DefinitionPageJson> {
  return json<DefinitionPageJson>(await send('GET', `roles/${role}/permissions${query}`));
}

async function createRole(body: unknown) {
  return send('POST', 'roles', body);
}

async function roleIds(): Promise<string[]> {
  const page = await json<{ data: RoleJson[] }>(await send('GET', 'roles'));
  return page.data.map((role) => role.role);
}

function unset(role: string, key: string) {
  return send('DELETE', `roles/${role}/permissions/${encodeURIComponent(key)}`);
}

async function effectiveAfterUnset(role: string, key: string) {
  return (await json<{ data: { permissions: Record<string, unknown> } }>(await unset(role, key)))
    .data.permissions;
}

describe('GET /v3/roles/{role}/permissions', () => {
  it('lists a definition for every catalogue key and for the stand-in’s extra key', async () => {
    expect(CATALOGUE_KEYS).not.toContain(EXTRA_KEY);
    expect(STANDIN_ONLY_PERMISSION_KEYS).toEqual([EXTRA_KEY]);
    const { data, meta } = await definitions();
    expect(data.map((d) => d.id)).toEqual([...CATALOGUE_KEYS, EXTRA_KEY]);
    expect(meta.pagination).toEqual({
      total: CATALOGUE_KEYS.length + 1,
      count: CATALOGUE_KEYS.length + 1,
      per_page: 100,
      current_page: 1,
      total_pages: 1,
    });
    for (const definition of data) {
      expect(definition.type, definition.id).toBe('role');
      expect(definition.title, definition.id).toMatch(/^\S.*\S$/);
      expect(definition.description, definition.id).toMatch(/\.$/);
      expect(Number.isInteger(definition.createdAt), definition.id).toBe(true);
      expect(definition.updatedAt, definition.id).toBeGreaterThanOrEqual(definition.createdAt);
    }
  });

  it('describes each kind of key: values, data type and default', async () => {
    const byId = new Map((await definitions()).data.map((d) => [d.id, d]));
    expect(byId.get('sendMessage')).toMatchObject({
      title: 'Allows/Denies sending messages',
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'allow',
    });
    expect(byId.get('listUsers.mode')).toMatchObject({
      dataType: 'string',
      availableValues: ['all', 'friends'],
      defaultValue: 'all',
    });
    expect(byId.get('sendMessage.allowedMessageTypes')).toMatchObject({
      title: 'Allowed message types for sending messages',
      dataType: 'stringArray',
      availableValues: ['text', 'image', 'audio', 'video', 'file'],
      defaultValue: null,
    });
    for (const key of ['listUsers.allowedRoles', 'sendMessage.allowedMimeTypes']) {
      expect(byId.get(key), key).toMatchObject({
        dataType: 'stringArray',
        availableValues: [],
        defaultValue: null,
      });
    }
    expect(byId.get('getUserDetails')?.title).toBe('Allows/Denies getting user details');
    expect(byId.get('unblockedUser')?.title).toBe('Allows/Denies unblocking users');
    expect(byId.get(EXTRA_KEY)).toMatchObject({
      title: 'Allows/Denies removing reactions from messages',
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'allow',
    });
  });

  it('pages like the role list', async () => {
    const total = CATALOGUE_KEYS.length + 1;
    const all = (await definitions()).data.map((d) => d.id);
    const second = await definitions('guest', '?page=2&perPage=25');
    expect(second.data.map((d) => d.id)).toEqual(all.slice(25, 50));
    expect(second.meta.pagination).toEqual({
      total,
      count: 25,
      per_page: 25,
      current_page: 2,
      total_pages: Math.ceil(total / 25),
    });
    const past = await definitions('guest', '?page=9&perPage=25');
    expect(past.data).toEqual([]);
    expect(past.meta.pagination).toMatchObject({ total, count: 0, current_page: 9 });
    const bad = await errorOf(await send('GET', 'roles/guest/permissions?page=0&perPage=x'), 400);
    expect(bad.code).toBe('ERR_BAD_REQUEST');
    expect(Object.keys(bad.details ?? {}).sort()).toEqual(['page', 'perPage']);
  });

  it('gives the same definitions for every role, whatever it holds', async () => {
    expect((await definitions('banned')).data).toEqual((await definitions('admin')).data);
  });

  it('answers 404 ERR_ROLE_NOT_FOUND for an unknown role', async () => {
    const error = await errorOf(await send('GET', 'roles/ghost/permissions'), 404);
    expect(error.code).toBe('ERR_ROLE_NOT_FOUND');
  });
});

describe('the extra key in the permissions', () => {
  it('is a default of every role’s map and an action an update accepts', async () => {
    expect(sandbox.state.permissions.get('guest')?.[EXTRA_KEY]).toBe('allow');
    const response = await send('PUT', 'roles/guest/permissions', {
      permissions: { [EXTRA_KEY]: 'deny' },
    });
    const { data } = await json<{ data: Record<string, unknown> }>(response);
    expect(data[EXTRA_KEY]).toEqual({
      success: true,
      message: `Permission ${EXTRA_KEY} is mapped to the role guest.`,
    });
    expect((data.permissions as Record<string, unknown>)[EXTRA_KEY]).toBe('deny');
    const refused = await send('PUT', 'roles/guest/permissions', {
      permissions: { [EXTRA_KEY]: 'sometimes' },
    });
    expect(Object.keys((await errorOf(refused, 400)).details ?? {})).toEqual([
      `permissions.${EXTRA_KEY}`,
    ]);
  });
});

describe('POST /v3/roles', () => {
  it('creates the role with its id lower-cased, last in the list, with default permissions', async () => {
    const before = Math.floor(Date.now() / 1000);
    const body = {
      role: 'Premium-2',
      name: 'Premium 2 ⭐',
      description: 'Second tier.',
      metadata: { tier: 2 },
      settings: { listUsers: 'friendsOnly' },
      ignored: true,
    };
    const { data } = await json<{ data: RoleJson }>(await createRole(body));
    expect(data).toEqual({
      role: 'premium-2',
      name: 'Premium 2 ⭐',
      description: 'Second tier.',
      metadata: { tier: 2 },
      settings: { listUsers: 'friendsOnly' },
      createdAt: expect.any(Number),
    });
    expect(data.createdAt).toBeGreaterThanOrEqual(before);
    expect((await roleIds()).at(-1)).toBe('premium-2');
    expect(sandbox.state.permissions.get('premium-2')).toEqual(defaultPermissionMap());
    expect(sandbox.state.explicitPermissionKeys.get('premium-2')?.size).toBe(0);
    // Nothing is set, so nothing can be unset.
    expect((await errorOf(await unset('premium-2', 'sendMessage'), 404)).code).toBe(
      'ERR_PERMISSION_NOT_FOUND',
    );
    // Its permissions can be written, and its definitions read, like any role's.
    const write = { permissions: { sendMessage: 'deny' } };
    expect((await send('PUT', 'roles/premium-2/permissions', write)).status).toBe(200);
    expect((await definitions('premium-2')).data).toHaveLength(CATALOGUE_KEYS.length + 1);
  });

  it('needs only the id and the name; the description is then empty', async () => {
    const { data } = await json<{ data: RoleJson }>(await createRole({ role: 'x', name: 'X' }));
    expect(data).toEqual({ role: 'x', name: 'X', description: '', createdAt: expect.any(Number) });
  });

  it.each([
    ['no role', { name: 'N' }, ['role']],
    ['a role with a space', { role: 'new role', name: 'N' }, ['role']],
    ['a role with an accent', { role: 'équipe', name: 'N' }, ['role']],
    ['a role of 101 characters', { role: 'r'.repeat(101), name: 'N' }, ['role']],
    ['a role that is a number', { role: 7, name: 'N' }, ['role']],
    ['no name', { role: 'r' }, ['name']],
    ['a blank name', { role: 'r', name: '  ' }, ['name']],
    ['a name of 101 characters', { role: 'r', name: 'n'.repeat(101) }, ['name']],
    [
      'a description of 256',
      { role: 'r', name: 'N', description: 'd'.repeat(256) },
      ['description'],
    ],
    ['metadata that is a list', { role: 'r', name: 'N', metadata: [1] }, ['metadata']],
    ['settings with a number', { role: 'r', name: 'N', settings: { listUsers: 1 } }, ['settings']],
    ['every problem at once', { role: 'a b', description: 5 }, ['description', 'name', 'role']],
    ['a body that is a list', [], ['body']],
    ['a body that is not JSON', '{"role":', ['body']],
  ])(
    'answers 400 ERR_BAD_REQUEST with details for %s, creating nothing',
    async (_name, body, fields) => {
      const error = await errorOf(await createRole(body), 400);
      expect(error.code).toBe('ERR_BAD_REQUEST');
      expect(Object.keys(error.details ?? {}).sort()).toEqual(fields);
      expect(sandbox.state.roles).toHaveLength(10);
    },
  );

  it('accepts a role id and a name at their limits', async () => {
    const role = `a-${'z'.repeat(98)}`;
    const { data } = await json<{ data: RoleJson }>(
      await createRole({ role: role.toUpperCase(), name: 'n'.repeat(100), description: '' }),
    );
    expect(data.role).toBe(role);
  });

  it('refuses an id that is taken, whatever its case', async () => {
    const error = await errorOf(await createRole({ role: 'ADMIN', name: 'Again' }), 400);
    expect(error).toMatchObject({
      code: 'ERR_BAD_REQUEST',
      details: { role: ['The role has already been taken.'] },
    });
    expect(sandbox.state.roles.find((r) => r.role === 'admin')?.name).toBe('Administrator');
    expect(sandbox.state.roles).toHaveLength(10);
  });

  it('refuses a 26th role', async () => {
    for (let i = 11; i <= 25; i += 1) {
      expect((await createRole({ role: `role-${i}`, name: `Role ${i}` })).status, `${i}`).toBe(200);
    }
    const error = await errorOf(await createRole({ role: 'role-26', name: 'Role 26' }), 400);
    expect(error).toMatchObject({
      code: 'ERR_BAD_REQUEST',
      details: { role: ['An application can have at most 25 roles.'] },
    });
    expect(await roleIds()).toHaveLength(25);
    // Deleting one makes room again.
    expect((await send('DELETE', 'roles/role-25')).status).toBe(200);
    expect((await createRole({ role: 'role-26', name: 'Role 26' })).status).toBe(200);
  });
});

describe('PUT /v3/roles/{role}', () => {
  it('changes the fields sent, keeps the others, and bumps updatedAt', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { data } = await json<{ data: RoleJson }>(
      await send('PUT', 'roles/admin', { name: 'Admins', metadata: { team: 'sre' } }),
    );
    expect(data).toEqual({
      role: 'admin',
      name: 'Admins',
      description: 'Operations team: full access to users, groups, messages and calls.',
      metadata: { team: 'sre' },
      createdAt: 1689000120,
      updatedAt: expect.any(Number),
    });
    expect(data.updatedAt).toBeGreaterThanOrEqual(before);
    const listed = await json<{ data: RoleJson[] }>(await send('GET', 'roles'));
    expect(listed.data.find((r) => r.role === 'admin')).toEqual(data);
  });

  it('drops what `unset` names; an empty description is none', async () => {
    const { data } = await json<{ data: RoleJson }>(
      await send('PUT', 'roles/moderator', {
        unset: ['settings', 'metadata', 'description'],
        settings: { listUsers: 'friendsOnly' },
      }),
    );
    // Sent and unset at once: what is sent wins.
    expect(data.settings).toEqual({ listUsers: 'friendsOnly' });
    expect(data).not.toHaveProperty('metadata');
    expect(data.description).toBe('');
    expect(data.name).toBe('Modérateur 🛡️');
  });

  it.each([
    ['a name of 101 characters', { name: 'n'.repeat(101) }, ['name']],
    ['a blank name', { name: '' }, ['name']],
    ['a description of 256', { description: 'd'.repeat(256) }, ['description']],
    ['unset naming the name', { unset: ['name'] }, ['unset']],
    ['no field it knows', { role: 'other' }, ['body']],
    ['no body', undefined, ['body']],
  ])(
    'answers 400 ERR_BAD_REQUEST with details for %s, changing nothing',
    async (_name, body, fields) => {
      const before = structuredClone(sandbox.state.roles.find((r) => r.role === 'guest'));
      const error = await errorOf(await send('PUT', 'roles/guest', body), 400);
      expect(error.code).toBe('ERR_BAD_REQUEST');
      expect(Object.keys(error.details ?? {})).toEqual(fields);
      expect(sandbox.state.roles.find((r) => r.role === 'guest')).toEqual(before);
    },
  );

  it('answers 404 ERR_ROLE_NOT_FOUND for an unknown role, the case folded or not', async () => {
    for (const role of ['ghost', 'ADMIN']) {
      const error = await errorOf(await send('PUT', `roles/${role}`, { name: 'N' }), 404);
      expect(error.code, role).toBe('ERR_ROLE_NOT_FOUND');
    }
  });
});

describe('DELETE /v3/roles/{role}', () => {
  it('deletes the role and gives its users the role default', async () => {
    const holders = [...sandbox.state.users.values()].filter((u) => u.role === 'vip');
    expect(holders.map((u) => u.uid).sort()).toEqual(['cometchat-uid-8', 'vip-1']);
    const body = await json<unknown>(await send('DELETE', 'roles/vip'));
    expect(body).toEqual({
      data: { success: true, message: 'Role vip has been deleted successfully.' },
    });
    expect(await roleIds()).not.toContain('vip');
    for (const { uid } of holders) {
      const { data } = await json<{ data: { role: string; updatedAt?: number } }>(
        await send('GET', `users/${uid}`),
      );
      expect(data.role, uid).toBe('default');
      expect(data.updatedAt, uid).toBeGreaterThan(0);
    }
    expect(sandbox.state.permissions.has('vip')).toBe(false);
    expect(sandbox.state.explicitPermissionKeys.has('vip')).toBe(false);
    expect((await errorOf(await send('DELETE', 'roles/vip'), 404)).code).toBe('ERR_ROLE_NOT_FOUND');
    expect((await errorOf(await send('GET', 'roles/vip/permissions'), 404)).code).toBe(
      'ERR_ROLE_NOT_FOUND',
    );
  });

  it('forgets the deleted role’s permissions: the id created again starts from the defaults', async () => {
    expect((await send('DELETE', 'roles/banned')).status).toBe(200);
    expect((await createRole({ role: 'banned', name: 'Banned again' })).status).toBe(200);
    expect(sandbox.state.permissions.get('banned')?.sendMessage).toBe('allow');
  });

  it('refuses to delete the role default', async () => {
    const error = await errorOf(await send('DELETE', 'roles/default'), 400);
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(error.details?.role?.[0]).toMatch(/^The role default cannot be deleted/);
    expect(await roleIds()).toContain('default');
  });

  it('answers 404 ERR_ROLE_NOT_FOUND for an unknown role', async () => {
    expect((await errorOf(await send('DELETE', 'roles/ghost'), 404)).code).toBe(
      'ERR_ROLE_NOT_FOUND',
    );
  });
});

describe('DELETE /v3/roles/{role}/permissions/{permission}', () => {
  it('puts a key the seed set back to its default, and refuses to unset it twice', async () => {
    const before = structuredClone(sandbox.state.permissions.get('guest') ?? {});
    const after = await effectiveAfterUnset('guest', 'listUsers.mode');
    expect(after).toEqual({ ...before, 'listUsers.mode': 'all' });
    expect(after['sendMessage.mode']).toBe('friends'); // still set by the seed
    expect(sandbox.state.permissions.get('guest')).toEqual(after);
    const again = await errorOf(await unset('guest', 'listUsers.mode'), 404);
    expect(again.code).toBe('ERR_PERMISSION_NOT_FOUND');
  });

  it('unsets a key written since, the extra key among them', async () => {
    await send('PUT', 'roles/premium/permissions', {
      permissions: { [EXTRA_KEY]: 'deny', 'listGroups.allowedGroupTypes': ['public'] },
    });
    expect((await effectiveAfterUnset('premium', EXTRA_KEY))[EXTRA_KEY]).toBe('allow');
    const after = await effectiveAfterUnset('premium', 'listGroups.allowedGroupTypes');
    expect(after['listGroups.allowedGroupTypes']).toBeNull();
    expect(after['sendMessage.allowedMimeTypes']).toEqual(['image/png', 'image/jpeg', 'video/mp4']);
    expect(sandbox.state.explicitPermissionKeys.get('premium')).toEqual(
      new Set(['sendMessage.allowedMimeTypes', 'createGroup.allowedGroupTypes']),
    );
  });

  it('removes an unknown key altogether: it has no default to go back to', async () => {
    const after = await effectiveAfterUnset('moderator', 'flagMessage');
    expect(after).not.toHaveProperty('flagMessage');
    expect(Object.keys(after)).toHaveLength(CATALOGUE_KEYS.length + 1);
  });

  it('bumps the role’s updatedAt', async () => {
    const before = Math.floor(Date.now() / 1000);
    await effectiveAfterUnset('guest', 'createGroup');
    expect(sandbox.state.roles.find((r) => r.role === 'guest')?.updatedAt).toBeGreaterThanOrEqual(
      before,
    );
  });

  it.each([
    ['a catalogue key left at its default', 'guest', 'sendMessage'],
    ['a key nobody knows', 'guest', 'noSuchKey'],
    ['a key of another role', 'guest', 'deleteMessage'],
  ])('answers 404 ERR_PERMISSION_NOT_FOUND for %s', async (_name, role, key) => {
    const before = structuredClone(sandbox.state.permissions.get(role));
    const error = await errorOf(await unset(role, key), 404);
    expect(error.code).toBe('ERR_PERMISSION_NOT_FOUND');
    expect(sandbox.state.permissions.get(role)).toEqual(before);
  });

  it('answers 404 ERR_ROLE_NOT_FOUND for an unknown role', async () => {
    const error = await errorOf(await unset('ghost', 'sendMessage'), 404);
    expect(error.code).toBe('ERR_ROLE_NOT_FOUND');
  });
});

describe('the state behind unsetting', () => {
  it('counts the seed’s maps as set explicitly, and keeps state.permissions effective', () => {
    const state = loadSeed();
    expect(state.explicitPermissionKeys.get('admin')).toEqual(new Set());
    expect(state.explicitPermissionKeys.get('moderator')).toEqual(
      new Set(['deleteMessage', 'listMessages.mode', 'flagMessage']),
    );
    expect([...state.explicitPermissionKeys.keys()]).toEqual(state.roles.map((r) => r.role));
    // The effective map, as before: defaults (the extra key's too) with the seed's keys on top.
    expect(state.permissions.get('moderator')).toEqual({
      ...defaultPermissionMap(),
      deleteMessage: 'allow',
      'listMessages.mode': 'all',
      flagMessage: 'allow',
    });
  });

  it('comes back on reset, in place', async () => {
    const { explicitPermissionKeys } = sandbox.state;
    await effectiveAfterUnset('guest', 'listUsers.mode');
    await send('DELETE', 'roles/vip');
    await createRole({ role: 'fresh', name: 'Fresh' });
    sandbox.reset();
    expect(sandbox.state.explicitPermissionKeys).toBe(explicitPermissionKeys);
    expect(explicitPermissionKeys.get('guest')?.has('listUsers.mode')).toBe(true);
    expect(sandbox.state.permissions.get('guest')?.['listUsers.mode']).toBe('friends');
    expect(await roleIds()).toEqual(loadSeed().roles.map((r) => r.role));
    expect(sandbox.state.users.get('vip-1')?.role).toBe('vip');
    expect((await unset('guest', 'listUsers.mode')).status).toBe(200);
  });

  it('lets a role a test pushed start with nothing set', async () => {
    sandbox.state.roles.push({ role: 'pushed', name: 'Pushed', description: '', createdAt: 1 });
    expect((await unset('pushed', 'sendMessage')).status).toBe(404);
    await send('PUT', 'roles/pushed/permissions', { permissions: { sendMessage: 'deny' } });
    expect((await effectiveAfterUnset('pushed', 'sendMessage')).sendMessage).toBe('allow');
  });
});

describe('keys, routes and faults', () => {
  const requests: [string, string, unknown?][] = [
    ['GET', 'roles/guest/permissions'],
    ['POST', 'roles', { role: 'k', name: 'K' }],
    ['PUT', 'roles/guest', { name: 'G' }],
    ['DELETE', 'roles/guest'],
    ['DELETE', 'roles/guest/permissions/listUsers.mode'],
  ];

  it.each(requests)(
    '%s /v3/%s needs the key, and changes nothing without it',
    async (method, path, body) => {
      const missing = await send(method, path, body, { 'content-type': 'application/json' });
      expect((await errorOf(missing, 401)).code).toBe('AUTH_ERR_EMPTY_APIKEY');
      const wrong = await send(method, path, body, { ...JSON_HEADERS, apikey: 'wrong-3f' });
      expect((await errorOf(wrong, 401)).code).toBe('AUTH_ERR_APIKEY_NOT_FOUND');
      expect(sandbox.state.roles).toEqual(loadSeed().roles);
      expect(sandbox.state.explicitPermissionKeys).toEqual(loadSeed().explicitPermissionKeys);
    },
  );

  it.each(requests)(
    '%s /v3/%s takes a fault matched on its method and path',
    async (method, path, body) => {
      sandbox.inject({
        kind: 'status',
        status: 503,
        method: method as 'GET' | 'POST' | 'PUT' | 'DELETE',
        pathIncludes: `/v3/${path}`,
      });
      const faulted = await send(method, path, body);
      expect((await errorOf(faulted, 503)).code).toBe('ERR_SERVICE_UNAVAILABLE');
      expect(sandbox.state.roles).toEqual(loadSeed().roles);
      expect((await send(method, path, body)).status).toBe(200);
    },
  );

  it('answers a 404 fault on one permission with ERR_PERMISSION_NOT_FOUND', async () => {
    sandbox.inject({ kind: 'status', status: 404, method: 'DELETE' });
    sandbox.inject({ kind: 'status', status: 404, method: 'DELETE' });
    expect((await errorOf(await unset('guest', 'listUsers.mode'), 404)).code).toBe(
      'ERR_PERMISSION_NOT_FOUND',
    );
    expect((await errorOf(await send('DELETE', 'roles/guest'), 404)).code).toBe(
      'ERR_ROLE_NOT_FOUND',
    );
  });

  it('answers 405 with Allow for a wrong method, and 404 for a path that names nothing', async () => {
    const cases: [string, string, string][] = [
      ['PATCH', 'roles', 'GET, POST'],
      ['GET', 'roles/guest', 'PUT, DELETE'],
      ['DELETE', 'roles/guest/permissions', 'GET, PUT'],
      ['PUT', 'roles/guest/permissions/sendMessage', 'DELETE'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await send(method, path, method === 'GET' ? undefined : '{}');
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
    for (const path of [
      'roles/',
      'roles/guest/permissions/',
      'roles/guest/other',
      'roles/a/b/c/d',
    ]) {
      const response = await send('DELETE', path);
      expect(response.status, path).toBe(404);
      expect((await errorOf(response, 404)).code, path).toBe('ERR_NOT_FOUND');
    }
  });
});
