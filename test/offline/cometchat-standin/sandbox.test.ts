import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  loadSeed,
  SANDBOX_SESSION_IDS,
  type Sandbox,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

const API_KEY = 'test-key-5f1e';
const JSON_HEADERS = { apikey: API_KEY, 'content-type': 'application/json' };

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

// Sandboxes a single test starts for itself (other options); closed after that test.
const extra: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.close()));
});

function getRoles(query = '', headers: Record<string, string> = { apikey: API_KEY }) {
  return fetch(`${sandbox.apiUrl}/v3/roles${query}`, { headers });
}

function putPermissions(roleSegment: string, body: unknown, headers = JSON_HEADERS) {
  return fetch(`${sandbox.apiUrl}/v3/roles/${roleSegment}/permissions`, {
    method: 'PUT',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function getCall(sessionId: string, headers: Record<string, string> = { apikey: API_KEY }) {
  return fetch(`${sandbox.callUrl}/v3/calls/${encodeURIComponent(sessionId)}`, { headers });
}

/** Sends a path exactly as written: fetch would resolve `..` and `%2E%2E` before sending. */
function rawRequest(
  base: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers: JSON_HEADERS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function errorOf(response: Response) {
  const body = (await response.json()) as { error: Record<string, unknown> };
  return body.error;
}

// Views of the sandbox's JSON for the assertions below. They are not checked here: the
// sandbox is what is under test, and a view that does not fit makes an assertion fail.
interface RoleJson {
  role: string;
  name: string;
  description: string;
  metadata?: Record<string, unknown>;
  settings?: Record<string, string>;
  updatedAt?: number;
}
interface RolePageJson {
  data: RoleJson[];
  meta: { pagination: Record<string, number> };
}
interface UpdateJson {
  data: Record<string, unknown> & { permissions: Record<string, unknown> };
}
interface ParticipantJson {
  uid: string;
  name?: string;
  avatar?: string;
  state?: string;
  isJoined?: boolean;
  deviceId?: string;
  joinedAt?: number;
  leftAt?: number;
  totalDuration?: unknown;
  totalDurationInMinutes?: unknown;
}
interface CallJson extends Record<string, unknown> {
  sessionId: string;
  receiver: string;
  participants: ParticipantJson[];
  recordings?: { startTime: number; endTime: number }[];
  data?: { entities?: { receiver: { entity: unknown } } };
  startedAt?: number;
  endedAt?: number;
}

async function readJson<T>(response: Response): Promise<T> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as T;
}

/** The call record, however `data` wraps it; `shape` says which wrapping was served. */
async function callOf(response: Response): Promise<CallJson & { shape: 'array' | 'object' }> {
  const { data } = await readJson<{ data: CallJson | CallJson[] }>(response);
  if (!Array.isArray(data)) return { ...data, shape: 'object' };
  expect(data).toHaveLength(1);
  const [record] = data;
  if (record === undefined) throw new Error('empty data array');
  return { ...record, shape: 'array' };
}

describe('authentication', () => {
  it('answers 401 AUTH_ERR_EMPTY_APIKEY on both hosts when the key is missing or empty', async () => {
    for (const response of [
      await getRoles('', {}),
      await getRoles('', { apikey: '' }),
      await fetch(`${sandbox.callUrl}/v3/calls/${SANDBOX_SESSION_IDS.audioEnded}`),
    ]) {
      expect(response.status).toBe(401);
      const error = await errorOf(response);
      expect(error.code).toBe('AUTH_ERR_EMPTY_APIKEY');
      expect(Object.keys(error).sort()).toEqual(['code', 'devMessage', 'message', 'source']);
    }
  });

  it('answers 401 AUTH_ERR_APIKEY_NOT_FOUND for a wrong key and never echoes a key', async () => {
    const response = await putPermissions(
      'guest',
      { permissions: { sendMessage: 'deny' } },
      {
        ...JSON_HEADERS,
        apikey: 'wrong-key-93ab',
      },
    );
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe('AUTH_ERR_APIKEY_NOT_FOUND');
    expect(text).not.toContain('wrong-key-93ab');
    expect(text).not.toContain(API_KEY);
    // Nothing was written.
    expect(sandbox.state.permissions.get('guest')?.sendMessage).toBe('allow');
  });

  it('records rejected requests too, headers included', async () => {
    await getRoles('', { apikey: 'nope' });
    expect(sandbox.requests).toHaveLength(1);
    expect(sandbox.requests[0]).toMatchObject({
      method: 'GET',
      host: 'api',
      path: '/v3/roles',
      headers: { apikey: 'nope' },
    });
  });
});

describe('GET /v3/roles', () => {
  it('defaults to page 1 of 100 and carries rate-limit headers', async () => {
    const response = await getRoles();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-rate-limit')).toBe('20000');
    expect(Number(response.headers.get('x-rate-limit-remaining'))).toBeLessThan(20000);
    const body = (await response.json()) as { data: { role: string }[]; meta: unknown };
    expect(body.data.map((r) => r.role)).toEqual(sandbox.state.roles.map((r) => r.role));
    expect(body.meta).toEqual({
      pagination: { total: 10, count: 10, per_page: 100, current_page: 1, total_pages: 1 },
    });
  });

  it('seeds realistic roles: default, metadata, settings, updatedAt, markup and unicode', async () => {
    const roles = (await readJson<RolePageJson>(await getRoles())).data;
    expect(roles.length).toBeGreaterThanOrEqual(8);
    expect(roles.find((r) => r.role === 'default')?.name).toBe('Default');
    expect(roles.some((r) => r.metadata !== undefined)).toBe(true);
    expect(roles.some((r) => r.metadata === undefined)).toBe(true);
    expect(roles.some((r) => r.settings?.sendMessagesTo === 'friendsOnly')).toBe(true);
    expect(roles.some((r) => r.updatedAt !== undefined)).toBe(true);
    expect(roles.some((r) => r.updatedAt === undefined)).toBe(true);
    const text = JSON.stringify(roles);
    for (const tricky of ['<!channel>', '*VIP*', '<https://evil.example|click here>', ' & ']) {
      expect(text).toContain(tricky);
    }
    expect(roles.find((r) => r.role === 'moderator')?.name).toBe('Modérateur 🛡️');
    for (const role of roles) {
      expect(role.role).toMatch(/^[a-z0-9_-]{1,100}$/);
      expect(role.name.length).toBeLessThanOrEqual(100);
      expect(role.description.length).toBeLessThanOrEqual(255);
    }
  });

  it('pages through the roles, and a page past the end is empty with correct pagination', async () => {
    const pages = await Promise.all(
      [1, 2, 3, 4].map(async (page) =>
        readJson<RolePageJson>(await getRoles(`?perPage=4&page=${page}`)),
      ),
    );
    expect(pages.map((p) => p.data.length)).toEqual([4, 4, 2, 0]);
    expect(pages.flatMap((p) => p.data.map((r) => r.role))).toEqual(
      sandbox.state.roles.map((r) => r.role),
    );
    expect(pages[3]?.meta.pagination).toEqual({
      total: 10,
      count: 0,
      per_page: 4,
      current_page: 4,
      total_pages: 3,
    });
  });

  it.each([
    ['?page=0', 'page'],
    ['?perPage=-1', 'perPage'],
    ['?page=abc', 'page'],
    ['?perPage=1.5', 'perPage'],
    ['?page=', 'page'],
    ['?perPage=99999999999999999999', 'perPage'],
  ])('rejects %s with 400 ERR_BAD_REQUEST naming the field', async (query, field) => {
    const response = await getRoles(query);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(Object.keys(error.details as object)).toEqual([field]);
  });
});

describe('PUT /v3/roles/{role}/permissions', () => {
  it('merges the written keys into the effective map and answers with the whole map', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await putPermissions('guest', {
      permissions: {
        sendMessage: 'deny',
        'sendMessage.allowedMessageTypes': ['text'],
        'listUsers.allowedRoles': ['default', 'premium'],
        'sendMessage.allowedMimeTypes': null,
        shareScreen: 'allow',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-rate-limit')).toBe('20000');
    const { data } = await readJson<UpdateJson>(response);
    expect(Object.keys(data).sort()).toEqual(['permissions', 'sendMessage', 'shareScreen']);
    expect(data.sendMessage).toEqual({
      success: true,
      message: 'Permission sendMessage is mapped to the role guest.',
    });
    expect(data.permissions).toMatchObject({
      sendMessage: 'deny', // written now
      'sendMessage.allowedMessageTypes': ['text'],
      'listUsers.allowedRoles': ['default', 'premium'],
      'sendMessage.allowedMimeTypes': null,
      shareScreen: 'allow', // unknown keys are kept
      'listUsers.mode': 'friends', // from the seed
      listGroups: 'allow', // catalogue default
      'createGroup.allowedGroupTypes': null,
    });
    expect(sandbox.state.permissions.get('guest')).toEqual(data.permissions);
    const guest = sandbox.state.roles.find((r) => r.role === 'guest');
    expect(guest?.updatedAt).toBeGreaterThanOrEqual(before);
  });

  it('keeps earlier writes: a second update merges on top of the first', async () => {
    await putPermissions('premium', { permissions: { editMessage: 'deny' } });
    const { data } = await readJson<UpdateJson>(
      await putPermissions('premium', { permissions: { 'initiateCall.mode': 'friends' } }),
    );
    expect(data.permissions.editMessage).toBe('deny');
    expect(data.permissions['initiateCall.mode']).toBe('friends');
    // No action key was written, so no { success, message } entry.
    expect(Object.keys(data)).toEqual(['permissions']);
  });

  it('starts a role a test added from the catalogue defaults', async () => {
    sandbox.state.roles.push({ role: 'intern', name: 'Intern', description: '', createdAt: 1 });
    const { data } = await readJson<UpdateJson>(
      await putPermissions('intern', { permissions: { joinGroup: 'deny' } }),
    );
    expect(data.permissions.joinGroup).toBe('deny');
    expect(data.permissions.sendMessage).toBe('allow');
    expect(data.permissions['listUsers.mode']).toBe('all');
  });

  it('reports every invalid known key at once and writes nothing', async () => {
    const before = structuredClone(sandbox.state.permissions.get('guest'));
    const response = await putPermissions('guest', {
      permissions: {
        sendMessage: 'maybe',
        'sendMessage.mode': 'everyone',
        'listMessages.allowedReceiverTypes': ['user', 'channel'],
        'initiateCall.allowedReceiverRoles': ['premium', 'nobody'],
        'sendMessage.allowedMimeTypes': 'image/png',
        futureFeature: { nested: true },
        'bad key': 'allow',
        listGroups: 'allow', // valid, but the request as a whole is refused
      },
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(Object.keys(error.details as object).sort()).toEqual(
      [
        'permissions.bad key',
        'permissions.futureFeature',
        'permissions.initiateCall.allowedReceiverRoles',
        'permissions.listMessages.allowedReceiverTypes',
        'permissions.sendMessage',
        'permissions.sendMessage.allowedMimeTypes',
        'permissions.sendMessage.mode',
      ].sort(),
    );
    const details = error.details as Record<string, string[]>;
    expect(details['permissions.initiateCall.allowedReceiverRoles']?.[0]).toContain('"nobody"');
    expect(details['permissions.listMessages.allowedReceiverTypes']?.[0]).toContain('"channel"');
    expect(sandbox.state.permissions.get('guest')).toEqual(before);
  });

  it.each([
    ['no body', undefined, 'permissions'],
    ['a body that is not JSON', '{"permissions": {', 'body'],
    ['no permissions member', { sendMessage: 'deny' }, 'permissions'],
    ['permissions as an array', { permissions: ['sendMessage'] }, 'permissions'],
    ['permissions as null', { permissions: null }, 'permissions'],
    ['an empty permissions object', { permissions: {} }, 'permissions'],
  ])('answers 400 ERR_BAD_REQUEST with details for %s', async (_name, body, field) => {
    const response = await fetch(`${sandbox.apiUrl}/v3/roles/guest/permissions`, {
      method: 'PUT',
      headers: JSON_HEADERS,
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(Object.keys(error.details as object)).toEqual([field]);
  });

  it('refuses a body that is not sent as JSON', async () => {
    const response = await putPermissions(
      'guest',
      { permissions: { sendMessage: 'deny' } },
      { apikey: API_KEY, 'content-type': 'text/plain' },
    );
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details).toHaveProperty('body');
  });

  it('answers 404 ERR_ROLE_NOT_FOUND for an unknown role', async () => {
    const response = await putPermissions('ghost', { permissions: { sendMessage: 'deny' } });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('ERR_ROLE_NOT_FOUND');
  });
});

describe('path segments', () => {
  it.each([
    'a%2F..%2Fb',
    '..',
    '%2E%2E',
    '.',
    'guest%2Fpermissions%3F',
    'guest%5C..%5Cadmin',
    'guest%00',
    'guest%2525', // double-encoded: decoded once it is "guest%25", not a role
    '%E0%A4%A', // broken percent-encoding
    '',
    'GUEST', // ids are stored lower-case; the sandbox does not guess
  ])('treats the segment "%s" as no role, and records the raw path', async (segment) => {
    const path = `/v3/roles/${segment}/permissions`;
    const body = JSON.stringify({ permissions: { sendMessage: 'deny' } });
    const response = await rawRequest(sandbox.apiUrl, 'PUT', path, body);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text).error.code).toBe('ERR_ROLE_NOT_FOUND');
    expect(sandbox.requests.at(-1)?.path).toBe(path);
  });

  it('keeps a literal `..` path from walking to another route', async () => {
    const response = await rawRequest(sandbox.apiUrl, 'GET', '/v3/roles/guest/../../roles');
    expect(response.status).toBe(404);
  });

  it('decodes a segment exactly once', async () => {
    const response = await putPermissions('gu%65st', { permissions: { sendMessage: 'deny' } });
    expect(response.status).toBe(200);
    expect(sandbox.requests.at(-1)?.path).toBe('/v3/roles/gu%65st/permissions');
  });

  it('finds a free-form session id only when the client encodes it as one segment', async () => {
    const id = SANDBOX_SESSION_IDS.customId;
    expect((await getCall(id)).status).toBe(200);
    expect(sandbox.requests.at(-1)?.path).toBe(`/v3/calls/${encodeURIComponent(id)}`);

    // Unescaped, `#` ends the path and `?` starts a query: the service sees another id.
    const careless = await fetch(`${sandbox.callUrl}/v3/calls/${id}`, {
      headers: { apikey: API_KEY },
    });
    expect(careless.status).toBe(404);
    expect((await errorOf(careless)).code).toBe('ERR_CALL_SESSION_NOT_FOUND');
    // Encoded twice, `%` arrives as `%25`: still another id.
    const twice = await fetch(
      `${sandbox.callUrl}/v3/calls/${encodeURIComponent(encodeURIComponent(id))}`,
      { headers: { apikey: API_KEY } },
    );
    expect(twice.status).toBe(404);
  });

  it('does not let an escaped slash reach another call', async () => {
    const segment = encodeURIComponent(`x/../${SANDBOX_SESSION_IDS.audioEnded}`);
    const response = await fetch(`${sandbox.callUrl}/v3/calls/${segment}`, {
      headers: { apikey: API_KEY },
    });
    expect(response.status).toBe(404);
  });
});

describe('routing', () => {
  it('answers 404 for unknown paths and for each host serving the other host’s paths', async () => {
    const headers = { apikey: API_KEY };
    for (const url of [
      // Groups are served since issue 47; conversations still are not.
      `${sandbox.apiUrl}/v3/conversations`,
      `${sandbox.callUrl}/v3/groups`,
      `${sandbox.apiUrl}/v2/roles`,
      `${sandbox.apiUrl}/v3/roles/`,
      `${sandbox.apiUrl}/v3/calls/${SANDBOX_SESSION_IDS.audioEnded}`,
      `${sandbox.callUrl}/v3/roles`,
      `${sandbox.callUrl}/v3/users`,
    ]) {
      const response = await fetch(url, { headers });
      expect(response.status, url).toBe(404);
      expect((await errorOf(response)).code).toBe('ERR_NOT_FOUND');
    }
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const patch = await fetch(`${sandbox.apiUrl}/v3/roles`, {
      method: 'PATCH',
      headers: JSON_HEADERS,
      body: '{}',
    });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, POST');
    const post = await fetch(`${sandbox.apiUrl}/v3/roles/guest/permissions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{}',
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, PUT');
    const del = await fetch(`${sandbox.callUrl}/v3/calls/x`, {
      method: 'DELETE',
      headers: { apikey: API_KEY },
    });
    expect(del.status).toBe(405);
  });
});

describe('GET /v3/calls/{sessionId}', () => {
  it('serves every seeded call in the shape its seed entry names, without the shape field', async () => {
    for (const [name, id] of Object.entries(SANDBOX_SESSION_IDS)) {
      const response = await getCall(id);
      expect(response.status, name).toBe(200);
      const call = await callOf(response);
      expect(call.shape, name).toBe(sandbox.state.calls.get(id)?.shape);
      expect(call.sessionId).toBe(id);
      // `shape` in the seed decides the wrapping; it is never part of the served record.
      const served = await readJson<{ data: unknown }>(await getCall(id));
      expect(JSON.stringify(served)).not.toContain('"shape"');
    }
    const shapes = [...sandbox.state.calls.values()].map((c) => c.shape);
    expect(shapes).toContain('array');
    expect(shapes).toContain('object');
  });

  it('serves the ended audio call as a one-element array with entities', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.audioEnded));
    expect(call.shape).toBe('array');
    expect(call).toMatchObject({ type: 'audio', status: 'ended', receiverType: 'user' });
    expect(call.endedAt).toBeGreaterThan(call.startedAt ?? Number.POSITIVE_INFINITY);
    expect(call.participants.map((p) => p.state)).toEqual(['ended', 'ended']);
    expect(call.data?.entities?.receiver.entity).toEqual(
      expect.objectContaining({
        uid: call.receiver,
        name: expect.any(String),
        avatar: expect.stringMatching(/^https:/),
      }),
    );
  });

  it('serves the unanswered call as an object; the receiver never joined', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.unanswered));
    expect(call.shape).toBe('object');
    const receiver = call.participants.find((p) => p.uid === call.receiver);
    expect(receiver).toMatchObject({ state: 'unanswered', isJoined: false });
    expect(receiver).not.toHaveProperty('joinedAt');
  });

  it('serves the rejected video call', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.videoRejected));
    expect(call).toMatchObject({ type: 'video', status: 'rejected' });
    expect(call.participants.some((p) => p.state === 'rejected')).toBe(true);
  });

  it('serves the ongoing group meeting with participants in every state and both duration fields', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.groupOngoing));
    expect(call).toMatchObject({
      receiverType: 'group',
      mode: 'meet',
      type: 'video',
      status: 'ongoing',
    });
    const people = call.participants;
    expect(people).toHaveLength(12);
    expect(new Set(people.map((p) => p.state))).toEqual(
      new Set(['ongoing', 'ended', 'unanswered', 'rejected', undefined]),
    );
    expect(people.some((p) => p.name === undefined)).toBe(true);
    expect(people.some((p) => p.avatar === undefined)).toBe(true);
    expect(people.some((p) => typeof p.totalDuration === 'number')).toBe(true);
    expect(people.some((p) => typeof p.totalDurationInMinutes === 'number')).toBe(true);
    for (const p of people) {
      if (p.isJoined) expect(p.deviceId).toMatch(/^[0-9a-f-]{36}@[^/]+\/.+$/);
      else expect(p).not.toHaveProperty('joinedAt');
      if (p.state === 'ended')
        expect(p.leftAt).toBeGreaterThan(p.joinedAt ?? Number.POSITIVE_INFINITY);
      if (p.state === 'ongoing') expect(p).not.toHaveProperty('leftAt');
    }
  });

  it('serves recordings with their documented field names', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.withRecordings));
    expect(call.hasRecording).toBe(true);
    expect(call.recordings).toHaveLength(2);
    for (const recording of call.recordings ?? []) {
      expect(recording).toEqual({
        rid: expect.any(String),
        recording_url: expect.stringMatching(/^https:\/\//),
        startTime: expect.any(Number),
        endTime: expect.any(Number),
        duration: expect.any(Number),
      });
      expect(recording.endTime).toBeGreaterThan(recording.startTime);
    }
  });

  it('serves a 300-participant presenter call, generated the same way every time', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.presenter300));
    expect(call).toMatchObject({ mode: 'presenter', totalParticipants: 300 });
    expect(call.participants).toHaveLength(300);
    expect(new Set(call.participants.map((p) => p.uid)).size).toBe(300);
    expect(loadSeed().calls.get(SANDBOX_SESSION_IDS.presenter300)).toEqual(
      loadSeed().calls.get(SANDBOX_SESSION_IDS.presenter300),
    );
  });

  it('serves a call without data.entities whose names carry Slack mention syntax', async () => {
    const call = await callOf(await getCall(SANDBOX_SESSION_IDS.noEntities));
    expect(call.data?.entities).toBeUndefined();
    const names = call.participants.map((p) => p.name).join(' ');
    expect(names).toContain('<@U123>');
    expect(names).toContain('<!here>');
  });

  it('records onBehalfOf without changing the answer', async () => {
    const response = await getCall(SANDBOX_SESSION_IDS.audioEnded, {
      apikey: API_KEY,
      onBehalfOf: 'cometchat-uid-2',
    });
    expect(response.status).toBe(200);
    expect(sandbox.requests.at(-1)).toMatchObject({
      host: 'call',
      headers: { onbehalfof: 'cometchat-uid-2' },
    });
  });

  it('answers 404 ERR_CALL_SESSION_NOT_FOUND for an unknown session', async () => {
    const response = await getCall('v1.us.sandbox-app.0000000000000000');
    expect(response.status).toBe(404);
    const error = await errorOf(response);
    expect(error).toMatchObject({
      code: 'ERR_CALL_SESSION_NOT_FOUND',
      message: 'The call does not exist.',
    });
  });
});

describe('faults', () => {
  it('status: answers with the status, headers and a realistic body, once by default', async () => {
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    const limited = await getRoles();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await errorOf(limited)).code).toBe('ERR_TOO_MANY_REQUESTS');
    expect((await getRoles()).status).toBe(200);
  });

  it('status: sends a given JSON body, a literal body, or nothing at all', async () => {
    sandbox.inject({
      kind: 'status',
      status: 400,
      body: { error: { code: 'ERR_PLAN_RESTRICTION' } },
    });
    sandbox.inject({ kind: 'status', status: 502, rawBody: '<html>Bad gateway</html>' });
    sandbox.inject({ kind: 'status', status: 502, body: null });
    const given = await getRoles();
    expect(given.status).toBe(400);
    expect(await given.json()).toEqual({ error: { code: 'ERR_PLAN_RESTRICTION' } });
    const html = await getRoles();
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toBe('<html>Bad gateway</html>');
    const empty = await getRoles();
    expect(empty.status).toBe(502);
    expect(await empty.text()).toBe('');
  });

  it('status: a 503 without a body gets a CometChat-shaped error', async () => {
    sandbox.inject({ kind: 'status', status: 503 });
    const response = await getRoles();
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toMatchObject({
      code: 'ERR_SERVICE_UNAVAILABLE',
      source: expect.any(String),
    });
  });

  it('matches on method and path, in order, for `times` requests', async () => {
    sandbox.inject({ kind: 'status', status: 500, method: 'PUT', times: 2 });
    sandbox.inject({ kind: 'status', status: 503, pathIncludes: '/calls/' });
    sandbox.inject({ kind: 'status', status: 502, pathIncludes: '/roles' });
    // The GET skips the PUT-only fault and takes the /roles one.
    expect((await getRoles()).status).toBe(502);
    expect((await getCall(SANDBOX_SESSION_IDS.audioEnded)).status).toBe(503);
    const put = () => putPermissions('guest', { permissions: { sendMessage: 'deny' } });
    expect((await put()).status).toBe(500);
    expect((await put()).status).toBe(500);
    expect((await put()).status).toBe(200);
    expect((await getRoles()).status).toBe(200);
  });

  it('applies an Infinity fault until the faults are cleared', async () => {
    sandbox.inject({ kind: 'status', status: 500, times: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 5; i += 1) expect((await getRoles()).status).toBe(500);
    sandbox.clearFaults();
    expect((await getRoles()).status).toBe(200);
  });

  it('applies before the key is checked, as a proxy in front of the service would', async () => {
    sandbox.inject({ kind: 'status', status: 502, body: null });
    expect((await getRoles('', {})).status).toBe(502);
  });

  it('malformed: answers 200 (or the given status) with a body that is not JSON', async () => {
    sandbox.inject({ kind: 'malformed' });
    sandbox.inject({ kind: 'malformed', status: 500, rawBody: 'upstream timeout' });
    const truncated = await getCall(SANDBOX_SESSION_IDS.audioEnded);
    expect(truncated.status).toBe(200);
    expect(truncated.headers.get('content-type')).toMatch(/^application\/json/);
    await expect(truncated.json()).rejects.toThrow(SyntaxError);
    const raw = await getRoles();
    expect(raw.status).toBe(500);
    expect(await raw.text()).toBe('upstream timeout');
  });

  it('schema: answers 200 with JSON of the wrong shape', async () => {
    sandbox.inject({ kind: 'schema' });
    sandbox.inject({ kind: 'schema', body: { data: [{ sessionId: 42 }] } });
    const oops = await getCall(SANDBOX_SESSION_IDS.audioEnded);
    expect(oops.status).toBe(200);
    expect(await oops.json()).toEqual({ data: 'oops' });
    expect(await (await getRoles()).json()).toEqual({ data: [{ sessionId: 42 }] });
  });

  it('reset: drops the connection without an answer', async () => {
    sandbox.inject({ kind: 'reset', pathIncludes: '/roles' });
    await expect(getRoles()).rejects.toThrow();
    expect(sandbox.requests).toHaveLength(1);
    expect((await getRoles()).status).toBe(200);
  });

  it('delay: waits, then answers normally', async () => {
    sandbox.inject({ kind: 'delay', delayMs: 150 });
    const started = performance.now();
    const response = await getRoles();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(200);
    expect((await readJson<RolePageJson>(response)).data).toHaveLength(10);
  });

  it('delay: a client that gives up gets nothing, and the sandbox carries on', async () => {
    sandbox.inject({ kind: 'delay', delayMs: 10_000 });
    const started = performance.now();
    await expect(
      fetch(`${sandbox.apiUrl}/v3/roles`, {
        headers: { apikey: API_KEY },
        signal: AbortSignal.timeout(50),
      }),
    ).rejects.toThrow();
    expect((await getRoles()).status).toBe(200);
    // Answered long before the delayed request would have been: the delay holds only its own.
    expect(performance.now() - started).toBeLessThan(9_000);
  });

  it('refuses a fault spec that could only be a mistake', () => {
    expect(() => sandbox.inject({ kind: 'status' })).toThrow(TypeError);
    expect(() => sandbox.inject({ kind: 'delay' })).toThrow(TypeError);
    expect(() => sandbox.inject({ kind: 'reset', times: 0 })).toThrow(TypeError);
    expect(() => sandbox.inject({ kind: 'status', status: 1000 })).toThrow(TypeError);
  });
});

describe('latency, reset and close', () => {
  it('adds the configured latency to every response, and setLatency changes it', async () => {
    const slow = await startSandbox({ apiKey: API_KEY, latencyMs: 120 });
    extra.push(slow);
    let started = performance.now();
    const response = await fetch(`${slow.apiUrl}/v3/roles`, { headers: { apikey: API_KEY } });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    started = performance.now();
    const unauthorised = await fetch(`${slow.callUrl}/v3/calls/x`);
    expect(unauthorised.status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    // Lower bounds above (a busy machine only adds time); the change back to no latency is an
    // ordering: the answer comes before a timer of the old latency fires.
    slow.setLatency(0);
    const answered = fetch(`${slow.apiUrl}/v3/roles`, { headers: { apikey: API_KEY } }).then(
      () => 'answer',
    );
    const timer = new Promise((resolve) => setTimeout(() => resolve('timer'), 1_000));
    expect(await Promise.race([answered, timer])).toBe('answer');
  });

  it('reset restores the seed, clears faults and the request log, in place', async () => {
    const { state, requests } = sandbox;
    await putPermissions('banned', { permissions: { sendMessage: 'allow' } });
    state.calls.delete(SANDBOX_SESSION_IDS.audioEnded);
    sandbox.inject({ kind: 'status', status: 500, times: Number.POSITIVE_INFINITY });
    sandbox.reset();
    expect(requests).toHaveLength(0);
    expect(state.permissions.get('banned')?.sendMessage).toBe('deny');
    expect(state.calls.has(SANDBOX_SESSION_IDS.audioEnded)).toBe(true);
    expect((await getRoles()).status).toBe(200);
    expect(sandbox.requests).toBe(requests);
  });

  it('close stops both listeners, even with a request waiting, and can be called twice', async () => {
    const own = await startSandbox({ apiKey: API_KEY });
    own.inject({ kind: 'delay', delayMs: 10_000 });
    const pending = fetch(`${own.apiUrl}/v3/roles`, { headers: { apikey: API_KEY } }).then(
      () => 'answered',
      () => 'dropped',
    );
    await expect.poll(() => own.requests.length).toBe(1);
    const started = performance.now();
    await Promise.all([own.close(), own.close()]);
    // Closed without waiting out the 10-second delay of the request it holds.
    expect(performance.now() - started).toBeLessThan(9_000);
    expect(await pending).toBe('dropped');
    await expect(fetch(`${own.apiUrl}/v3/roles`)).rejects.toThrow();
    await expect(fetch(`${own.callUrl}/v3/calls/x`)).rejects.toThrow();
  });

  it('keeps sandboxes apart: state written in one is not seen by another', async () => {
    const other = await startSandbox({ apiKey: 'other', appId: 'other-app' });
    extra.push(other);
    sandbox.state.roles.splice(0, sandbox.state.roles.length);
    expect(other.state.roles.length).toBe(10);
    expect(other.apiUrl).not.toBe(sandbox.apiUrl);
    expect(other.callUrl).not.toBe(other.apiUrl);
  });
});
