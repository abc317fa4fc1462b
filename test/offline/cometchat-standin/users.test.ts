import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RECENT_USERS } from '../../../offline/cometchat-standin/recent-calls.ts';
import {
  loadSeed,
  SANDBOX_SEED_NAMES,
  type Sandbox,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

// The users of the stand-in over HTTP, as the live service serves them on the role host
// (live-api-notes.md, "Users"): the list and its filters, one user, the role change, the
// deactivation and reactivation, friends and blocks; and the seed those rest on.

const API_KEY = 'users-test-key-3c9a';
const JSON_HEADERS = { apikey: API_KEY, 'content-type': 'application/json' };

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

const extra: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.close()));
});

// Views of the stand-in's JSON for the assertions below (the stand-in is what is under test).
interface UserJson {
  uid: string;
  name: string;
  role: string;
  status: string;
  tags?: string[];
  avatar?: string;
  createdAt: number;
  updatedAt?: number;
  deactivatedAt?: number;
}
interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  total_pages: number;
}
interface UserPageJson {
  data: UserJson[];
  meta: { pagination: Pagination };
}

/** The seed's deactivated users. */
const DEACTIVATED = [
  'banned-spammer',
  'customer-1003',
  'guest-7781',
  'mallory-markup',
  'user-2002',
];

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

async function page(query = ''): Promise<UserPageJson> {
  return json<UserPageJson>(await send('GET', `users${query}`));
}

async function uids(query = ''): Promise<string[]> {
  return (await page(query)).data.map((user) => user.uid);
}

async function user(uid: string): Promise<UserJson> {
  return (await json<{ data: UserJson }>(await send('GET', `users/${encodeURIComponent(uid)}`)))
    .data;
}

async function errorOf(response: Response, status: number) {
  return (
    await json<{ error: { code: string; details?: Record<string, string[]> } }>(response, status)
  ).error;
}

describe('the seed', () => {
  it('makes every participant of the hand-written and recent calls a user', () => {
    for (const seed of SANDBOX_SEED_NAMES) {
      const state = loadSeed(seed);
      const people = new Set<string>();
      for (const { record } of state.calls.values()) {
        const participants = (record.participants ?? []) as { uid: string }[];
        for (const { uid } of participants) people.add(uid);
      }
      // The presenter call's generated viewers are the one exception: 297 of them.
      const missing = [...people].filter((uid) => !state.users.has(uid));
      expect(
        missing.every((uid) => /^viewer-\d{3}$/.test(uid)),
        missing.join(),
      ).toBe(true);
    }
    const seeded = loadSeed().users;
    for (const { uid, name } of RECENT_USERS) expect(seeded.get(uid)?.name).toBe(name);
    // At the service's limit, for truncation in Slack.
    expect(seeded.get('long-name-user')?.name).toHaveLength(100);
  });

  it('spreads the users over the roles, with deactivated ones, friends and blocks', () => {
    const state = loadSeed();
    expect(state.users.size).toBeGreaterThanOrEqual(25);
    const roles = new Set([...state.users.values()].map((u) => u.role));
    expect(roles).toEqual(new Set(state.roles.map((r) => r.role)));
    const deactivated = [...state.users.values()].filter((u) => u.deactivatedAt !== undefined);
    expect(deactivated.map((u) => u.uid).sort()).toEqual(DEACTIVATED);
    for (const [uid, friends] of state.friends) {
      for (const friend of friends) expect(state.friends.get(friend)?.has(uid)).toBe(true);
    }
    expect(state.blocked.get('cometchat-uid-4')?.has('eve-mentions')).toBe(true);
    expect(state.blocked.get('eve-mentions')?.has('cometchat-uid-4') ?? false).toBe(false);
  });

  it('gives the second seed its own, smaller set of users', () => {
    const second = loadSeed('second');
    expect(second.users.size).toBeLessThan(loadSeed().users.size);
    expect(second.users.has('agent-7')).toBe(true);
    expect(second.users.has('cometchat-uid-1')).toBe(false);
    const roles = new Set(second.roles.map((r) => r.role));
    for (const u of second.users.values()) expect(roles.has(u.role)).toBe(true);
  });
});

describe('GET /v3/users', () => {
  it('lists the active users in uid order, 100 a page, tags left out', async () => {
    const { data, meta } = await page();
    const expected = [...loadSeed().users.values()]
      .filter((u) => u.deactivatedAt === undefined)
      .map((u) => u.uid)
      .sort((a, b) => (a < b ? -1 : 1));
    expect(data.map((u) => u.uid)).toEqual(expected);
    expect(meta.pagination).toEqual({
      total: 30,
      count: 30,
      per_page: 100,
      current_page: 1,
      total_pages: 1,
    });
    // Code-unit order, as uids are compared.
    expect(expected.indexOf('cometchat-uid-10')).toBeLessThan(expected.indexOf('cometchat-uid-2'));
    expect(data.some((u) => u.tags !== undefined)).toBe(false);
    expect(data.find((u) => u.uid === 'cometchat-uid-6')?.name).toBe('<!channel> Support');
  });

  it('pages, with an empty page past the end', async () => {
    const second = await page('?perPage=7&page=2');
    expect(second.data).toHaveLength(7);
    expect(second.meta.pagination).toEqual({
      total: 30,
      count: 7,
      per_page: 7,
      current_page: 2,
      total_pages: 5,
    });
    expect(second.data.map((u) => u.uid)).toEqual((await uids()).slice(7, 14));
    const past = await page('?perPage=7&page=9');
    expect(past.data).toEqual([]);
    expect(past.meta.pagination).toMatchObject({ total: 30, count: 0, total_pages: 5 });
  });

  it('refuses page sizes and pages that are not positive integers up to 1000', async () => {
    for (const query of ['?perPage=0', '?perPage=1001', '?perPage=x', '?page=0', '?page=-1']) {
      const error = await errorOf(await send('GET', `users${query}`), 400);
      expect(error.code, query).toBe('ERR_BAD_REQUEST');
      expect(Object.keys(error.details ?? {}), query).toHaveLength(1);
    }
    expect((await page('?perPage=1000')).meta.pagination.per_page).toBe(1000);
  });

  it('searches a prefix of the uid or the name, whatever the case', async () => {
    expect(await uids('?searchKey=PRIYA')).toEqual(['cometchat-uid-12', 'support-agent-2']);
    expect(await uids('?searchKey=cometchat-uid-1')).toEqual([
      'cometchat-uid-1',
      'cometchat-uid-10',
      'cometchat-uid-11',
      'cometchat-uid-12',
    ]);
    // A prefix, not a part: "Raman" is inside the name, not at its start.
    expect(await uids('?searchKey=raman')).toEqual([]);
    expect(await uids('?searchKey=priya&searchIn=uid')).toEqual([]);
    expect(await uids('?searchKey=support&searchIn=name')).toEqual([]);
    expect(await uids('?searchKey=support&searchIn=uid,name')).toEqual(['support-agent-2']);
    expect(await uids('?searchKey=%3C!channel')).toEqual(['cometchat-uid-6']);
    const bad = await errorOf(await send('GET', 'users?searchKey=a&searchIn=email'), 400);
    expect(Object.keys(bad.details ?? {})).toEqual(['searchIn']);
  });

  it('filters by role, roles, status and tags', async () => {
    expect(await uids('?role=admin')).toEqual(['cometchat-uid-1', 'ops-lead']);
    expect(await uids('?roles=vip,guest')).toEqual([
      'cometchat-uid-11',
      'cometchat-uid-8',
      'eve-mentions',
      'guest-9001',
      'vip-1',
    ]);
    const available = await page('?status=available');
    expect(available.data.every((u) => u.status === 'available')).toBe(true);
    expect(available.meta.pagination.total).toBeGreaterThan(5);
    expect(await uids('?tags=emea')).toEqual(['cometchat-uid-12', 'cometchat-uid-9']);
    const bad = await errorOf(await send('GET', 'users?status=busy'), 400);
    expect(Object.keys(bad.details ?? {})).toEqual(['status']);
  });

  it('shows tags only when asked for with withTags=true', async () => {
    const tagged = await page('?withTags=true&searchKey=cometchat-uid-12');
    expect(tagged.data[0]?.tags).toEqual(['staff', 'emea']);
  });

  it('leaves deactivated users out unless asked: onlyDeactivated, withDeactivated', async () => {
    expect(await uids('?onlyDeactivated=true')).toEqual(DEACTIVATED);
    const all = await page('?withDeactivated=true');
    expect(all.meta.pagination.total).toBe(35);
    expect(all.data.filter((u) => u.deactivatedAt !== undefined)).toHaveLength(5);
    // A role whose users are all deactivated counts none by default.
    expect((await page('?role=banned&perPage=1')).meta.pagination.total).toBe(0);
    const banned = await page('?role=banned&perPage=1&withDeactivated=true');
    expect(banned.meta.pagination).toMatchObject({ total: 2, count: 1, total_pages: 2 });
    const bad = await errorOf(await send('GET', 'users?onlyDeactivated=yes'), 400);
    expect(Object.keys(bad.details ?? {})).toEqual(['onlyDeactivated']);
  });

  it('needs the key, like every route', async () => {
    const response = await send('GET', 'users', undefined, { apikey: 'wrong' });
    expect((await errorOf(response, 401)).code).toBe('AUTH_ERR_APIKEY_NOT_FOUND');
  });
});

describe('GET /v3/users/{uid}', () => {
  it('answers the user with its tags and metadata', async () => {
    const andrew = await user('cometchat-uid-1');
    expect(andrew).toMatchObject({
      uid: 'cometchat-uid-1',
      name: 'Andrew Joseph',
      role: 'admin',
      status: 'available',
      tags: ['staff', 'ops'],
      metadata: { department: 'operations' },
      createdAt: expect.any(Number),
    });
  });

  it('answers a deactivated user too, with deactivatedAt', async () => {
    const mallory = await user('mallory-markup');
    expect(mallory.deactivatedAt).toBe(1699050000);
    expect(mallory.avatar).toBe('javascript:alert(1)');
  });

  it('finds a uid with punctuation when it is encoded as one segment', async () => {
    expect((await user('_qa_night_shift_')).name).toBe('QA night shift');
    expect((await user('ana_souza')).name).toBe('Ana Souza');
  });

  it('answers 404 ERR_UID_NOT_FOUND for an unknown uid or one that cannot be a uid', async () => {
    // (fetch would resolve a `..` segment before sending: sandbox.test.ts sends those raw.)
    for (const segment of ['nobody', 'cometchat-uid-1%2Ffriends', '%2e%2e.', '%E0%A4%A']) {
      const response = await send('GET', `users/${segment}`);
      const error = await errorOf(response, 404);
      expect(error.code, segment).toBe('ERR_UID_NOT_FOUND');
      expect(Object.keys(error).sort()).toEqual(['code', 'devMessage', 'message', 'source']);
    }
    // No uid at all is no route.
    expect((await errorOf(await send('GET', 'users/'), 404)).code).toBe('ERR_NOT_FOUND');
  });

  it('never deletes: DELETE /v3/users/{uid} is not allowed', async () => {
    const response = await send('DELETE', 'users/cometchat-uid-5', { permanent: true });
    expect((await errorOf(response, 405)).code).toBe('ERR_METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('GET, PUT');
    expect((await user('cometchat-uid-5')).deactivatedAt).toBeUndefined();
  });
});

describe('PUT /v3/users/{uid}', () => {
  it('changes the role and answers the user, updatedAt from the stand-in clock', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await send('PUT', 'users/cometchat-uid-5', { role: 'vip' });
    const { data } = await json<{ data: UserJson }>(response);
    expect(data).toMatchObject({ uid: 'cometchat-uid-5', name: 'John Paul', role: 'vip' });
    expect(data.updatedAt).toBeGreaterThanOrEqual(before);
    expect((await user('cometchat-uid-5')).role).toBe('vip');
    expect(await uids('?role=vip')).toContain('cometchat-uid-5');
  });

  it('answers 404 ERR_ROLE_NOT_FOUND for a role that does not exist, changing nothing', async () => {
    const response = await send('PUT', 'users/cometchat-uid-5', { role: 'superuser' });
    expect((await errorOf(response, 404)).code).toBe('ERR_ROLE_NOT_FOUND');
    expect((await user('cometchat-uid-5')).role).toBe('default');
  });

  it('answers 404 ERR_UID_NOT_FOUND for an unknown uid', async () => {
    const response = await send('PUT', 'users/nobody', { role: 'vip' });
    expect((await errorOf(response, 404)).code).toBe('ERR_UID_NOT_FOUND');
  });

  it('changes other fields, unsets optional ones and ignores unknown ones', async () => {
    const response = await send('PUT', 'users/cometchat-uid-4', {
      name: 'Susan M.',
      unset: ['avatar', 'link'],
      favouriteColour: 'blue',
    });
    const { data } = await json<{ data: UserJson & Record<string, unknown> }>(response);
    expect(data).toMatchObject({ name: 'Susan M.', role: 'premium' });
    expect(data.avatar).toBeUndefined();
    expect(data.link).toBeUndefined();
    expect(data.favouriteColour).toBeUndefined();
  });

  it('refuses bad values all at once, a body that is not JSON, and an empty update', async () => {
    const bad = await errorOf(
      await send('PUT', 'users/cometchat-uid-4', { name: '', tags: 'vip', unset: ['uid'] }),
      400,
    );
    expect(Object.keys(bad.details ?? {}).sort()).toEqual(['name', 'tags', 'unset']);
    const text = await send('PUT', 'users/cometchat-uid-4', '{"role":', JSON_HEADERS);
    expect(Object.keys((await errorOf(text, 400)).details ?? {})).toEqual(['body']);
    const plain = await send(
      'PUT',
      'users/cometchat-uid-4',
      { role: 'vip' },
      {
        apikey: API_KEY,
        'content-type': 'text/plain',
      },
    );
    expect(Object.keys((await errorOf(plain, 400)).details ?? {})).toEqual(['body']);
    const empty = await send('PUT', 'users/cometchat-uid-4', { nothing: 1 });
    expect(Object.keys((await errorOf(empty, 400)).details ?? {})).toEqual(['body']);
    expect((await user('cometchat-uid-4')).name).toBe('Susan Marie');
  });
});

describe('deactivating and reactivating', () => {
  it('DELETE /v3/users deactivates the known uids and names them, unknown ones left out', async () => {
    const response = await send('DELETE', 'users', {
      uidsToDeactivate: ['cometchat-uid-5', 'nobody', 'cometchat-uid-5', 'late-joiner'],
    });
    expect(await json(response)).toEqual({
      data: { success: true, deactivatedUids: ['cometchat-uid-5', 'late-joiner'] },
    });
    const john = await user('cometchat-uid-5');
    expect(john.deactivatedAt).toBeGreaterThan(0);
    expect(john.status).toBe('offline');
    expect(await uids()).not.toContain('cometchat-uid-5');
    expect(await uids('?onlyDeactivated=true')).toContain('cometchat-uid-5');
    // The request log keeps the body of the DELETE.
    expect(sandbox.requests[0]).toMatchObject({
      method: 'DELETE',
      path: '/v3/users',
      body: { uidsToDeactivate: expect.any(Array) },
    });
  });

  it('answers a repeated deactivation the same way, keeping the first deactivatedAt', async () => {
    const body = { uidsToDeactivate: ['guest-7781', 'cometchat-uid-3'] };
    const first = await json(await send('DELETE', 'users', body));
    const at = (await user('cometchat-uid-3')).deactivatedAt;
    expect(await json(await send('DELETE', 'users', body))).toEqual(first);
    expect((await user('cometchat-uid-3')).deactivatedAt).toBe(at);
    expect((await user('guest-7781')).deactivatedAt).toBe(1699100000);
  });

  it('PUT /v3/users reactivates: the users are listed again without deactivatedAt', async () => {
    const response = await send('PUT', 'users', {
      uidsToActivate: ['mallory-markup', 'nobody', 'cometchat-uid-1'],
    });
    expect(await json(response)).toEqual({
      data: { success: true, nonDeactivatedUids: ['mallory-markup', 'cometchat-uid-1'] },
    });
    expect((await user('mallory-markup')).deactivatedAt).toBeUndefined();
    expect(await uids()).toContain('mallory-markup');
    expect(await uids('?onlyDeactivated=true')).not.toContain('mallory-markup');
  });

  it('refuses a missing or empty list, or one that holds something else than uids', async () => {
    for (const [method, body, field] of [
      ['DELETE', {}, 'uidsToDeactivate'],
      ['DELETE', { uidsToDeactivate: [] }, 'uidsToDeactivate'],
      ['DELETE', { uidsToDeactivate: 'cometchat-uid-1' }, 'uidsToDeactivate'],
      ['PUT', { uidsToActivate: [1] }, 'uidsToActivate'],
      ['PUT', { uidsToDeactivate: ['cometchat-uid-1'] }, 'uidsToActivate'],
    ] as const) {
      const error = await errorOf(await send(method, 'users', body), 400);
      expect(Object.keys(error.details ?? {}), JSON.stringify(body)).toEqual([field]);
    }
    expect(await uids('?onlyDeactivated=true')).toEqual(DEACTIVATED);
  });

  it('keeps changes for the sandbox’s lifetime and forgets them on reset', async () => {
    await send('DELETE', 'users', { uidsToDeactivate: ['cometchat-uid-2'] });
    await send('PUT', 'users/cometchat-uid-3', { role: 'guest' });
    expect((await user('cometchat-uid-2')).deactivatedAt).toBeDefined();
    const { users } = sandbox.state;
    sandbox.reset();
    expect((await user('cometchat-uid-2')).deactivatedAt).toBeUndefined();
    expect((await user('cometchat-uid-3')).role).toBe('moderator');
    // Reset in place: a reference kept to the state sees the seed again.
    expect(sandbox.state.users).toBe(users);
    expect(users.get('cometchat-uid-2')?.deactivatedAt).toBeUndefined();
  });

  it('keeps sandboxes apart', async () => {
    const other = await startSandbox({ apiKey: API_KEY });
    extra.push(other);
    await send('DELETE', 'users', { uidsToDeactivate: ['cometchat-uid-2'] });
    expect(other.state.users.get('cometchat-uid-2')?.deactivatedAt).toBeUndefined();
  });
});

describe('friends and blocked users', () => {
  it('lists a user’s friends in uid order, both ways round', async () => {
    const friends = await json<UserPageJson>(await send('GET', 'users/cometchat-uid-2/friends'));
    expect(friends.data.map((u) => u.uid)).toEqual([
      'cometchat-uid-1',
      'cometchat-uid-12',
      'cometchat-uid-6',
      'support-agent-2',
    ]);
    expect(friends.meta.pagination).toMatchObject({ total: 4, count: 4, per_page: 100 });
    const back = await json<UserPageJson>(await send('GET', 'users/cometchat-uid-6/friends'));
    expect(back.data.map((u) => u.uid)).toEqual(['cometchat-uid-2']);
  });

  it('narrows friends with searchKey and pages them', async () => {
    const search = await json<UserPageJson>(
      await send('GET', 'users/cometchat-uid-2/friends?searchKey=cometchat-uid-1'),
    );
    expect(search.data.map((u) => u.uid)).toEqual(['cometchat-uid-1', 'cometchat-uid-12']);
    const second = await json<UserPageJson>(
      await send('GET', 'users/cometchat-uid-2/friends?perPage=3&page=2'),
    );
    expect(second.data.map((u) => u.uid)).toEqual(['support-agent-2']);
    expect(second.meta.pagination).toMatchObject({ total: 4, total_pages: 2, current_page: 2 });
  });

  it('keeps a deactivated friend on the list, with deactivatedAt', async () => {
    const friends = await json<UserPageJson>(await send('GET', 'users/cometchat-uid-11/friends'));
    const guest = friends.data.find((u) => u.uid === 'guest-7781');
    expect(guest?.deactivatedAt).toBe(1699100000);
  });

  it('lists whom a user blocked, not who blocked them', async () => {
    const blockedBy = async (uid: string) =>
      (await json<UserPageJson>(await send('GET', `users/${uid}/blockedusers`))).data.map(
        (u) => u.uid,
      );
    expect(await blockedBy('cometchat-uid-4')).toEqual(['eve-mentions']);
    expect(await blockedBy('eve-mentions')).toEqual(['cometchat-uid-1']);
    expect(await blockedBy('cometchat-uid-5')).toEqual(['cometchat-uid-7']);
    expect(await blockedBy('cometchat-uid-7')).toEqual(['cometchat-uid-5']);
    expect(await blockedBy('cometchat-uid-1')).toEqual([]);
  });

  it('answers 404 ERR_UID_NOT_FOUND for an unknown user, 400 for a bad page', async () => {
    for (const list of ['friends', 'blockedusers']) {
      expect((await errorOf(await send('GET', `users/nobody/${list}`), 404)).code).toBe(
        'ERR_UID_NOT_FOUND',
      );
      const bad = await send('GET', `users/cometchat-uid-1/${list}?perPage=5000`);
      expect((await errorOf(bad, 400)).code).toBe('ERR_BAD_REQUEST');
    }
    expect((await errorOf(await send('POST', 'users/cometchat-uid-1/friends', {}), 405)).code).toBe(
      'ERR_METHOD_NOT_ALLOWED',
    );
  });
});

describe('faults on the user paths', () => {
  it('match the DELETE by method and path, and a bodiless 404 names a missing uid', async () => {
    sandbox.inject({ kind: 'status', status: 502, method: 'DELETE', pathIncludes: '/users' });
    expect((await send('GET', 'users')).status).toBe(200);
    const gateway = await send('DELETE', 'users', { uidsToDeactivate: ['cometchat-uid-1'] });
    expect(gateway.status).toBe(502);
    expect(sandbox.state.users.get('cometchat-uid-1')?.deactivatedAt).toBeUndefined();
    sandbox.inject({ kind: 'status', status: 404, pathIncludes: '/users/' });
    const missing = await send('GET', 'users/cometchat-uid-1');
    expect((await errorOf(missing, 404)).code).toBe('ERR_UID_NOT_FOUND');
    expect(sandbox.requests.map((r) => r.method)).toEqual(['GET', 'DELETE', 'GET']);
  });
});
