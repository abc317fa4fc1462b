import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../offline/cometchat-standin/server.ts';
import {
  type CometChatClient,
  type CometChatClientOptions,
  createCometChatClient,
} from '../../src/cometchat/client.ts';
import { userSearchParams } from '../../src/cometchat/users.ts';
import type { Logger } from '../../src/log.ts';
import type { LogCapture } from '../log-capture.ts';
import { API_KEY, captureLogger, failure, only, T0, WRONG_KEY } from './client-harness.ts';

// The client's user operations against the stand-in over loopback, as client.test.ts tests the
// role and call operations: what is sent, what comes back, how failures read, and which
// failures are retried. The seed's users are described in offline/cometchat-standin/README.md.

let sandbox: Sandbox;
let logs: LogCapture;
let logger: Logger;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  ({ logger, capture: logs } = captureLogger());
});
afterEach(() => {
  for (const line of logs.lines) {
    expect(line).not.toContain(API_KEY);
    expect(line).not.toContain(WRONG_KEY);
  }
});

function client(overrides: Partial<CometChatClientOptions> = {}): CometChatClient {
  return createCometChatClient({
    apiUrl: sandbox.apiUrl,
    callApiUrl: sandbox.callUrl,
    apiKey: API_KEY,
    timeoutMs: 300,
    budgetMs: 1_500,
    logger,
    now: () => T0,
    random: () => 0,
    ...overrides,
  });
}

function refsOfDoneRequests(): unknown[] {
  return logs
    .records()
    .filter((r) => r.message === 'CometChat request done')
    .map((r) => r.cometchat_ops.ref);
}

describe('getUser', () => {
  it('GETs /v3/users/{uid} on the REST API host and reads the user', async () => {
    const user = await client().getUser('cometchat-uid-1');
    expect(user).toEqual({
      uid: 'cometchat-uid-1',
      name: 'Andrew Joseph',
      role: 'admin',
      status: 'available',
      avatar: 'https://data-us.cometchat.io/assets/images/avatars/cometchat-uid-1.webp',
      metadata: { '@private': { email: 'andrew@example.com' }, department: 'operations' },
      tags: ['staff', 'ops'],
      createdAt: 1690000100,
      updatedAt: 1699000000,
      lastActiveAt: 1700030000,
    });
    const request = only(sandbox.requests);
    expect(request).toMatchObject({
      method: 'GET',
      host: 'api',
      path: '/v3/users/cometchat-uid-1',
    });
    expect(request.headers.apikey).toBe(API_KEY);
  });

  it('reads a deactivated user with its deactivatedAt, and a hostile name as it is', async () => {
    const api = client();
    expect((await api.getUser('mallory-markup')).deactivatedAt).toBe(1699050000);
    expect((await api.getUser('cometchat-uid-6')).name).toBe('<!channel> Support');
  });

  it('reports an unknown uid as not_found with ERR_UID_NOT_FOUND, not as a wrong address', async () => {
    const error = await failure(client().getUser('nobody', { ref: 'ref-user' }));
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      serviceCode: 'ERR_UID_NOT_FOUND',
      operation: 'getUser',
      ref: 'ref-user',
      address: 'api',
      mayHaveReached: false,
    });
    expect(sandbox.requests).toHaveLength(1);
    // A 404 without CometChat's code, or with its "no such route", is a wrong address.
    const v3 = await failure(client({ apiUrl: `${sandbox.apiUrl}/v3` }).getUser('cometchat-uid-1'));
    expect(v3.kind).toBe('misaddressed');
  });

  it('keeps a uid inside one encoded path segment, and refuses a dot segment before sending', async () => {
    const api = client();
    expect((await api.getUser('_qa_night_shift_')).name).toBe('QA night shift');
    const hostile = await failure(api.getUser('../roles'));
    expect(hostile.kind).toBe('not_found');
    expect(sandbox.requests.map((r) => r.path)).toEqual([
      '/v3/users/_qa_night_shift_',
      `/v3/users/${encodeURIComponent('../roles')}`,
    ]);
    const dots = await failure(api.getUser('..'));
    expect(dots).toMatchObject({ kind: 'bad_request', operation: 'getUser' });
    expect(sandbox.requests).toHaveLength(2);
  });

  it('accepts a loose record: numbers as strings, nulls, missing fields, unknown fields', async () => {
    sandbox.inject({
      kind: 'schema',
      body: {
        data: {
          uid: 'loose-1',
          createdAt: '1690000000',
          updatedAt: null,
          lastActiveAt: 1700000000,
          avatar: null,
          metadata: null,
          conversationId: 'loose-1_user_cometchat-uid-1',
          blockedByMe: false,
        },
      },
    });
    const user = await client().getUser('loose-1');
    expect(user).toEqual({
      uid: 'loose-1',
      name: 'loose-1',
      role: 'default',
      status: 'offline',
      createdAt: 1690000000,
      lastActiveAt: 1700000000,
    });
  });

  it('rejects a record without its uid as invalid_response', async () => {
    sandbox.inject({ kind: 'schema', body: { data: { name: 'No uid' } } });
    const error = await failure(client().getUser('x'));
    expect(error).toMatchObject({
      kind: 'invalid_response',
      detail: expect.stringMatching(/^data\.uid/),
    });
  });
});

describe('listUsers and countUsersWithRole', () => {
  it('sends only the filters asked for and reads the page', async () => {
    const page = await client().listUsers({ searchKey: 'priya', role: '', page: 1, perPage: 5 });
    expect(page.users.map((u) => u.uid)).toEqual(['cometchat-uid-12', 'support-agent-2']);
    expect(page.pagination).toEqual({
      total: 2,
      count: 2,
      per_page: 5,
      current_page: 1,
      total_pages: 1,
    });
    expect(only(sandbox.requests)).toMatchObject({
      path: '/v3/users',
      query: { searchKey: 'priya', page: '1', perPage: '5' },
    });
  });

  it('pages, and asks for deactivated users only when told', async () => {
    const api = client();
    const second = await api.listUsers({ page: 2, perPage: 10 });
    expect(second.users).toHaveLength(10);
    expect(second.pagination).toMatchObject({ total: 30, current_page: 2, total_pages: 3 });
    const deactivated = await api.listUsers({ onlyDeactivated: true, page: 1, perPage: 100 });
    expect(deactivated.users.every((u) => u.deactivatedAt !== undefined)).toBe(true);
    expect(deactivated.pagination.total).toBe(5);
    expect(sandbox.requests[1]?.query).toEqual({
      onlyDeactivated: 'true',
      page: '1',
      perPage: '100',
    });
  });

  it('builds the query from the flags that are set only', () => {
    expect(
      userSearchParams({
        status: 'available',
        onlyDeactivated: false,
        withDeactivated: true,
        page: 3,
        perPage: 50,
      }),
    ).toEqual({ status: 'available', withDeactivated: 'true', page: 3, perPage: 50 });
  });

  it('counts a role’s users from the total of a page of one', async () => {
    const api = client();
    expect(await api.countUsersWithRole('admin')).toBe(2);
    expect(await api.countUsersWithRole('banned')).toBe(0);
    expect(await api.countUsersWithRole('banned', { withDeactivated: true })).toBe(2);
    expect(await api.countUsersWithRole('no-such-role')).toBe(0);
    expect(sandbox.requests.map((r) => r.query)).toEqual([
      { role: 'admin', page: '1', perPage: '1' },
      { role: 'banned', page: '1', perPage: '1' },
      { role: 'banned', withDeactivated: 'true', page: '1', perPage: '1' },
      { role: 'no-such-role', page: '1', perPage: '1' },
    ]);
  });

  it('counts from the total alone, whatever the user on the page looks like', async () => {
    sandbox.inject({
      kind: 'schema',
      body: { data: [{ odd: true }], meta: { pagination: { total: 7 } } },
    });
    expect(await client().countUsersWithRole('admin')).toBe(7);
  });
});

describe('setUserRole', () => {
  it('PUTs the role as JSON and answers the updated user', async () => {
    const user = await client().setUserRole('cometchat-uid-5', 'vip');
    expect(user).toMatchObject({ uid: 'cometchat-uid-5', role: 'vip', name: 'John Paul' });
    expect(user.updatedAt).toBeGreaterThan(1_700_000_000);
    const request = only(sandbox.requests);
    expect(request).toMatchObject({
      method: 'PUT',
      path: '/v3/users/cometchat-uid-5',
      body: { role: 'vip' },
    });
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(sandbox.state.users.get('cometchat-uid-5')?.role).toBe('vip');
  });

  it('reports a role that does not exist, and a uid that does not, by their codes', async () => {
    const api = client();
    const role = await failure(api.setUserRole('cometchat-uid-5', 'superuser'));
    expect(role).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_ROLE_NOT_FOUND' });
    const uid = await failure(api.setUserRole('nobody', 'vip'));
    expect(uid).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_UID_NOT_FOUND' });
    expect(sandbox.requests).toHaveLength(2);
    expect(sandbox.state.users.get('cometchat-uid-5')?.role).toBe('default');
  });
});

describe('deactivateUsers and reactivateUsers', () => {
  it('DELETEs /v3/users with the uids and answers those deactivated', async () => {
    const done = await client().deactivateUsers(['cometchat-uid-5', 'nobody']);
    expect(done).toEqual(['cometchat-uid-5']);
    const request = only(sandbox.requests);
    expect(request).toMatchObject({
      method: 'DELETE',
      path: '/v3/users',
      body: { uidsToDeactivate: ['cometchat-uid-5', 'nobody'] },
    });
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(sandbox.state.users.get('cometchat-uid-5')?.deactivatedAt).toBeDefined();
  });

  it('PUTs /v3/users to reactivate and answers those reactivated', async () => {
    const done = await client().reactivateUsers(['guest-7781', 'user-2002', 'nobody']);
    expect(done).toEqual(['guest-7781', 'user-2002']);
    expect(only(sandbox.requests)).toMatchObject({
      method: 'PUT',
      path: '/v3/users',
      body: { uidsToActivate: ['guest-7781', 'user-2002', 'nobody'] },
    });
    expect(sandbox.state.users.get('guest-7781')?.deactivatedAt).toBeUndefined();
  });

  it('asks nothing of the service for an empty list', async () => {
    const api = client();
    expect(await api.deactivateUsers([])).toEqual([]);
    expect(await api.reactivateUsers([])).toEqual([]);
    expect(sandbox.requests).toEqual([]);
  });

  it('rejects an answer without the list of uids, saying the change may have been made', async () => {
    sandbox.inject({ kind: 'schema', body: { data: { success: true } } });
    const error = await failure(client().deactivateUsers(['cometchat-uid-5']));
    expect(error).toMatchObject({ kind: 'invalid_response', mayHaveReached: true });
  });
});

describe('a DELETE is retried and judged like a PUT', () => {
  it('retries a DELETE after a dropped connection, and deactivates once', async () => {
    sandbox.inject({ kind: 'reset', method: 'DELETE' });
    const done = await client().deactivateUsers(['cometchat-uid-5']);
    expect(done).toEqual(['cometchat-uid-5']);
    expect(sandbox.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    const retry = logs.records().find((r) => r.message === 'retrying CometChat request');
    expect(retry?.cometchat_ops).toMatchObject({ retryCount: 1, operation: 'deactivateUsers' });
  });

  it('retries a 503 on the DELETE as on the PUT', async () => {
    sandbox.inject({ kind: 'status', status: 503, method: 'DELETE' });
    sandbox.inject({ kind: 'status', status: 503, method: 'PUT' });
    const api = client();
    await api.deactivateUsers(['cometchat-uid-5']);
    await api.setUserRole('cometchat-uid-5', 'vip');
    expect(sandbox.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE', 'PUT', 'PUT']);
  });

  it('does not retry a refusal (400), on the DELETE as on the PUT', async () => {
    sandbox.inject({ kind: 'status', status: 400, method: 'DELETE' });
    const error = await failure(client().deactivateUsers(['cometchat-uid-5']));
    expect(error).toMatchObject({ kind: 'bad_request', mayHaveReached: false });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('says a DELETE a gateway failed may have been made, as for a PUT, never for a GET', async () => {
    const api = client({ retryLimit: 0 });
    const failed = async (method: 'GET' | 'PUT' | 'DELETE', call: () => Promise<unknown>) => {
      sandbox.inject({ kind: 'status', status: 502, method });
      return failure(call());
    };
    const del = await failed('DELETE', () => api.deactivateUsers(['cometchat-uid-5']));
    const put = await failed('PUT', () => api.setUserRole('cometchat-uid-5', 'vip'));
    const get = await failed('GET', () => api.getUser('cometchat-uid-5'));
    expect([del, put, get].map((e) => [e.kind, e.status, e.mayHaveReached])).toEqual([
      ['unavailable', 502, true],
      ['unavailable', 502, true],
      ['unavailable', 502, false],
    ]);
  });
});

describe('friends and blocks', () => {
  it('lists a user’s friends, with searchKey and the page asked for', async () => {
    const page = await client().listFriends('cometchat-uid-2', { searchKey: 'cometchat-uid-1' });
    expect(page.users.map((u) => u.uid)).toEqual(['cometchat-uid-1', 'cometchat-uid-12']);
    expect(only(sandbox.requests)).toMatchObject({
      path: '/v3/users/cometchat-uid-2/friends',
      query: { searchKey: 'cometchat-uid-1' },
    });
  });

  it('tells friends apart by the exact uid, both ways round', async () => {
    const api = client();
    expect(await api.areFriends('cometchat-uid-2', 'cometchat-uid-1')).toBe(true);
    expect(await api.areFriends('cometchat-uid-1', 'cometchat-uid-2')).toBe(true);
    // The search finds cometchat-uid-1, -6 and -12 by this prefix: none is this uid.
    expect(await api.areFriends('cometchat-uid-2', 'cometchat-uid-')).toBe(false);
    expect(await api.areFriends('cometchat-uid-1', 'cometchat-uid-4')).toBe(false);
    // A deactivated friend is still a friend.
    expect(await api.areFriends('cometchat-uid-11', 'guest-7781')).toBe(true);
    expect(sandbox.requests[0]?.query).toEqual({
      searchKey: 'cometchat-uid-1',
      page: '1',
      perPage: '1000',
    });
  });

  it('reads further pages when the search matches more than a page, under one reference', async () => {
    // A thousand friends whose names start like the uid looked for, and sort before it.
    for (let i = 0; i < 1_000; i += 1) {
      const uid = `a-fan-${String(i).padStart(4, '0')}`;
      sandbox.state.users.set(uid, {
        uid,
        name: `pal-1 fan ${i}`,
        role: 'default',
        status: 'offline',
        createdAt: 1,
      });
    }
    const friends = new Set([...sandbox.state.users.keys()].filter((u) => u.startsWith('a-fan')));
    friends.add('pal-1');
    sandbox.state.users.set('pal-1', {
      uid: 'pal-1',
      name: 'Pal',
      role: 'default',
      status: 'offline',
      createdAt: 1,
    });
    sandbox.state.friends.set('cometchat-uid-5', friends);
    expect(await client().areFriends('cometchat-uid-5', 'pal-1', { ref: 'ref-pal' })).toBe(true);
    expect(sandbox.requests.map((r) => r.query.page)).toEqual(['1', '2']);
    expect(refsOfDoneRequests()).toEqual(['ref-pal', 'ref-pal']);
  });

  it('reports an unknown user of a friend check as ERR_UID_NOT_FOUND', async () => {
    const error = await failure(client().areFriends('nobody', 'cometchat-uid-1'));
    expect(error).toMatchObject({
      kind: 'not_found',
      serviceCode: 'ERR_UID_NOT_FOUND',
      operation: 'listFriends',
    });
  });

  it('lists whom a user blocked', async () => {
    const page = await client().listBlockedUsers('cometchat-uid-4', { perPage: 10 });
    expect(page.users.map((u) => u.uid)).toEqual(['eve-mentions']);
    expect(page.users[0]?.name).toBe('Eve <@U123> <!here>');
    expect(only(sandbox.requests)).toMatchObject({
      path: '/v3/users/cometchat-uid-4/blockedusers',
      query: { perPage: '10' },
    });
  });

  it('tells which of two users blocked the other, reading both lists under one reference', async () => {
    const api = client();
    expect(await api.blocksBetween('cometchat-uid-4', 'eve-mentions', { ref: 'ref-b' })).toEqual({
      uidBlockedOther: true,
      otherBlockedUid: false,
    });
    expect(refsOfDoneRequests()).toEqual(['ref-b', 'ref-b']);
    expect(sandbox.requests.map((r) => r.path).sort()).toEqual([
      '/v3/users/cometchat-uid-4/blockedusers',
      '/v3/users/eve-mentions/blockedusers',
    ]);
    expect(await api.blocksBetween('eve-mentions', 'cometchat-uid-4')).toEqual({
      uidBlockedOther: false,
      otherBlockedUid: true,
    });
    expect(await api.blocksBetween('cometchat-uid-5', 'cometchat-uid-7')).toEqual({
      uidBlockedOther: true,
      otherBlockedUid: true,
    });
    expect(await api.blocksBetween('cometchat-uid-1', 'cometchat-uid-2')).toEqual({
      uidBlockedOther: false,
      otherBlockedUid: false,
    });
  });
});

describe('the API key stays secret in user failures', () => {
  it('appears in no error text and no log line', async () => {
    const api = client();
    const scenarios: Array<() => Promise<unknown>> = [
      () => client({ apiKey: WRONG_KEY }).getUser('cometchat-uid-1'),
      () => api.getUser('nobody'),
      () => api.setUserRole('cometchat-uid-1', 'superuser'),
      () => {
        sandbox.inject({ kind: 'status', status: 500, rawBody: `<p>${API_KEY}</p>` });
        return client({ retryLimit: 0 }).deactivateUsers(['cometchat-uid-1']);
      },
      () => {
        sandbox.inject({
          kind: 'status',
          status: 400,
          body: { error: { code: 'ERR_BAD_REQUEST', message: `bad key ${API_KEY}` } },
        });
        return api.reactivateUsers(['cometchat-uid-1']);
      },
      () => api.listFriends('nobody'),
      () => {
        sandbox.inject({ kind: 'schema' });
        return api.blocksBetween('cometchat-uid-1', 'cometchat-uid-2');
      },
    ];
    for (const scenario of scenarios) {
      sandbox.clearFaults();
      const error = await failure(scenario());
      expect(JSON.stringify(error)).not.toContain(API_KEY);
    }
    expect(logs.text()).not.toContain(API_KEY);
    expect(sandbox.requests.every((r) => r.headers.apikey !== undefined)).toBe(true);
  });
});
