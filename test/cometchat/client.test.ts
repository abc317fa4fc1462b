import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  SANDBOX_SESSION_IDS,
  type Sandbox,
  startSandbox,
} from '../../offline/cometchat-standin/server.ts';
import {
  type CometChatClient,
  type CometChatClientOptions,
  createCometChatClient,
} from '../../src/cometchat/client.ts';
import type { Logger } from '../../src/log.ts';
import { runInRequest } from '../../src/request-context.ts';
import type { LogCapture } from '../log-capture.ts';
import {
  API_KEY,
  captureLogger,
  errorTexts,
  failure,
  only,
  T0,
  WRONG_KEY,
} from './client-harness.ts';

// The client against the sandbox over real HTTP on loopback (ky over the global fetch); the last
// tests give it a fetch of their own instead. Budgets are small (300 ms per attempt, 1.5 s in
// all) so that the retry and timeout cases stay quick. No test measures how long anything took:
// the client judges its budget by the clock it is given (`now`) and draws its jitter from
// `random`, so the tests set both and read the decisions (how many attempts, which waits, logged
// as `waitedMs`) rather than the machine's speed. ky's waits themselves are real time, kept
// short by these budgets.

const TIMEOUT_MS = 300;
const BUDGET_MS = 1_500;

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
// Whatever a test did, no line the client logged may hold a key.
afterEach(() => {
  for (const line of logs.lines) {
    expect(line).not.toContain(API_KEY);
    expect(line).not.toContain(WRONG_KEY);
  }
});

/** `work` as a request under `ref` whose logger is `log` (the client's own logger unless given). */
function asRequest<T>(ref: string, work: () => Promise<T>, log: Logger = logger): Promise<T> {
  return runInRequest({ ref, log, receivedAt: T0 }, work);
}

function client(overrides: Partial<CometChatClientOptions> = {}): CometChatClient {
  return createCometChatClient({
    apiUrl: sandbox.apiUrl,
    callApiUrl: sandbox.callUrl,
    apiKey: API_KEY,
    timeoutMs: TIMEOUT_MS,
    budgetMs: BUDGET_MS,
    logger,
    now: () => T0,
    // The smallest jitter: each back-off wait is half the back-off (125, 250, 500 ms...).
    random: () => 0,
    ...overrides,
  });
}

/**
 * A clock on which every attempt that reached the sandbox took `ms`: the budget runs out after a
 * known number of attempts, however fast or slow the machine is.
 */
function attemptClock(ms: number): () => number {
  return () => T0 + ms * sandbox.requests.length;
}

/** The retries the client logged: which one, and how long it waited before it. */
function retries(): { retryCount: unknown; waitedMs: unknown; cause: unknown }[] {
  return logs
    .records()
    .filter((r) => r.message === 'retrying CometChat request')
    .map(({ cometchat_ops: { retryCount, waitedMs, cause } }) => ({ retryCount, waitedMs, cause }));
}

function messages(): string[] {
  return logs.records().map((record) => record.message);
}

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const SEED_ROLE_IDS = [
  'default',
  'admin',
  'moderator',
  'support-agent',
  'premium',
  'guest',
  'beta_tester',
  'banned',
  'vip',
  'regional-lead-emea',
];

describe('listRoles', () => {
  it('gets the first page with the service defaults, the key in the apikey header only', async () => {
    const page = await client().listRoles();
    expect(page.roles.map((r) => r.role)).toEqual(SEED_ROLE_IDS);
    expect(page.pagination).toEqual({
      total: 10,
      count: 10,
      per_page: 100,
      current_page: 1,
      total_pages: 1,
    });
    const request = only(sandbox.requests);
    expect(request).toMatchObject({ method: 'GET', host: 'api', path: '/v3/roles', query: {} });
    expect(request.headers.apikey).toBe(API_KEY);
    expect(request.headers.accept).toBe('application/json');
    expect(JSON.stringify(request.query)).not.toContain(API_KEY);
    const moderator = page.roles.find((r) => r.role === 'moderator');
    expect(moderator?.name).toBe('Modérateur 🛡️');
  });

  it('asks for the page and page size it is given', async () => {
    const page = await client().listRoles({ perPage: 3, page: 2 });
    expect(page.roles.map((r) => r.role)).toEqual(['support-agent', 'premium', 'guest']);
    expect(page.pagination).toMatchObject({
      total: 10,
      count: 3,
      per_page: 3,
      current_page: 2,
      total_pages: 4,
    });
    expect(only(sandbox.requests).query).toEqual({ page: '2', perPage: '3' });
  });

  it('returns the short last page and an empty page past the end', async () => {
    const api = client();
    const last = await api.listRoles({ perPage: 3, page: 4 });
    expect(last.roles.map((r) => r.role)).toEqual(['regional-lead-emea']);
    expect(last.pagination.count).toBe(1);
    const past = await api.listRoles({ perPage: 3, page: 9 });
    expect(past.roles).toEqual([]);
    expect(past.pagination).toMatchObject({ count: 0, current_page: 9, total_pages: 4 });
  });

  it('logs the request at debug level with its reference and operation', async () => {
    await asRequest('ref-roles-1', () => client().listRoles({}));
    const done = logs.records().find((r) => r.message === 'CometChat request done');
    expect(done).toMatchObject({
      log: { level: 'debug' },
      cometchat_ops: { ref: 'ref-roles-1', operation: 'listRoles', status: 200 },
    });
    expect(typeof done?.cometchat_ops.ms).toBe('number');
  });

  it('logs through the running request’s logger', async () => {
    const child = logger.child({ team: 'T123', user: 'U456' });
    await asRequest('ref-child', () => client().listRoles({}), child);
    expect(logs.records()).toContainEqual(
      expect.objectContaining({
        organization: { id: 'T123' },
        user: { id: 'U456' },
        cometchat_ops: expect.objectContaining({ ref: 'ref-child' }),
      }),
    );
  });
});

describe('listAllRoles', () => {
  it('fetches every page and keeps the list order', async () => {
    const roles = await asRequest('ref-all', () => client().listAllRoles({ perPage: 3 }));
    expect(roles.map((r) => r.role)).toEqual(SEED_ROLE_IDS);
    const pages = sandbox.requests.map((r) => r.query.page).sort();
    expect(pages).toEqual(['1', '2', '3', '4']);
    expect(sandbox.requests.every((r) => r.query.perPage === '3')).toBe(true);
    // One user action, one reference: every page logs under it.
    const done = logs.records().filter((r) => r.message === 'CometChat request done');
    expect(done).toHaveLength(4);
    expect(new Set(done.map((r) => r.cometchat_ops.ref))).toEqual(new Set(['ref-all']));
  });

  it('makes one reference for all pages when none is given', async () => {
    await client().listAllRoles({ perPage: 4 });
    const refs = logs
      .records()
      .filter((r) => r.message === 'CometChat request done')
      .map((r) => r.cometchat_ops.ref);
    expect(refs).toHaveLength(3);
    expect(new Set(refs).size).toBe(1);
  });

  it('asks for 100 a page by default, so the service roles come in one request', async () => {
    const roles = await client().listAllRoles();
    expect(roles).toHaveLength(10);
    expect(only(sandbox.requests).query).toEqual({ page: '1', perPage: '100' });
  });

  it('works when the method is called on its own, detached from the client', async () => {
    const { listAllRoles } = client();
    const roles = await listAllRoles({ perPage: 5 });
    expect(roles.map((r) => r.role)).toEqual(SEED_ROLE_IDS);
    expect(sandbox.requests).toHaveLength(2);
  });

  it('fails as a whole when a page fails', async () => {
    sandbox.inject({ kind: 'status', status: 404, times: Number.POSITIVE_INFINITY });
    const error = await failure(client().listAllRoles({ perPage: 3 }));
    expect(error.kind).toBe('not_found');
    expect(error.operation).toBe('listRoles');
  });
});

describe('setRolePermissions', () => {
  const update = {
    sendMessage: 'deny',
    'sendMessage.mode': 'friends',
    'sendMessage.allowedMessageTypes': ['text', 'image'],
  };

  it('PUTs the permissions as JSON and returns the full effective map and key results', async () => {
    const result = await client().setRolePermissions('moderator', update);
    const request = only(sandbox.requests);
    expect(request).toMatchObject({
      method: 'PUT',
      host: 'api',
      path: '/v3/roles/moderator/permissions',
      body: { permissions: update },
    });
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(request.headers.apikey).toBe(API_KEY);
    expect(result.permissions).toMatchObject(update);
    // The full map: keys not sent are there too, including one the catalogue does not know.
    expect(result.permissions).toMatchObject({ deleteMessage: 'allow', flagMessage: 'allow' });
    expect(result.results.sendMessage).toEqual({
      success: true,
      message: expect.stringContaining('moderator'),
    });
    expect(sandbox.state.permissions.get('moderator')).toMatchObject(update);
  });

  it('sends null (no restriction) as it is', async () => {
    const result = await client().setRolePermissions('support-agent', {
      'listUsers.allowedRoles': null,
    });
    expect(only(sandbox.requests).body).toEqual({
      permissions: { 'listUsers.allowedRoles': null },
    });
    expect(result.permissions['listUsers.allowedRoles']).toBeNull();
    expect(result.results).toEqual({});
  });

  it('reports an unknown role as not_found with the service code', async () => {
    const error = await failure(client().setRolePermissions('no-such-role', update));
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      serviceCode: 'ERR_ROLE_NOT_FOUND',
      operation: 'setRolePermissions',
    });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('reports a rejected value as bad_request with the field details, without retrying', async () => {
    const error = await failure(
      asRequest('ref-put', () =>
        client().setRolePermissions('moderator', { sendMessage: 'maybe' }),
      ),
    );
    expect(error).toMatchObject({
      kind: 'bad_request',
      status: 400,
      serviceCode: 'ERR_BAD_REQUEST',
      ref: 'ref-put',
    });
    expect(Object.keys(error.details ?? {})).toContain('permissions.sendMessage');
    expect(error.message).toContain('ref-put');
    expect(sandbox.requests).toHaveLength(1);
    expect(sandbox.state.permissions.get('moderator')?.sendMessage).toBe('allow');
  });
});

describe('getCall', () => {
  it('reads a call served as a one-element array (the reference shape)', async () => {
    const call = await client().getCall(SANDBOX_SESSION_IDS.audioEnded);
    expect(call).toMatchObject({
      sessionId: SANDBOX_SESSION_IDS.audioEnded,
      type: 'audio',
      initiator: { uid: 'cometchat-uid-1', name: 'Andrew Joseph' },
      totalParticipants: 2,
      hasRecording: false,
    });
    expect(call.participants.map((p) => p.state)).toEqual(['ended', 'ended']);
    const request = only(sandbox.requests);
    expect(request).toMatchObject({
      method: 'GET',
      host: 'call',
      path: `/v3/calls/${SANDBOX_SESSION_IDS.audioEnded}`,
    });
    expect(request.headers.apikey).toBe(API_KEY);
    expect(request.headers.onbehalfof).toBeUndefined();
  });

  it('reads a call served as a single object (the current shape)', async () => {
    const call = await client().getCall(SANDBOX_SESSION_IDS.unanswered);
    expect(call.sessionId).toBe(SANDBOX_SESSION_IDS.unanswered);
    expect(call.type).toBe('video');
    const receiver = call.participants.find((p) => p.state === 'unanswered');
    expect(receiver).toMatchObject({ isJoined: false, joinedAt: undefined });
  });

  it('gives the same call whichever way the service wraps the same record', async () => {
    const record = {
      sessionId: 'v1.us.x.1',
      type: 'video',
      participants: [{ uid: 'u1', totalDuration: 4.5, joinedAt: 1_700_000_000 }],
    };
    sandbox.inject({ kind: 'schema', body: { data: [record] } });
    sandbox.inject({ kind: 'schema', body: { data: record } });
    const api = client();
    const fromArray = await api.getCall('v1.us.x.1');
    const fromObject = await api.getCall('v1.us.x.1');
    expect(fromObject).toEqual(fromArray);
    expect(fromArray.participants[0]).toMatchObject({ uid: 'u1', minutes: 4.5, isJoined: true });
  });

  it('reads every seeded call', async () => {
    const api = client();
    for (const sessionId of Object.values(SANDBOX_SESSION_IDS)) {
      const call = await api.getCall(sessionId);
      expect(call.sessionId).toBe(sessionId);
      expect(call.participants.length).toBeGreaterThan(0);
    }
    expect(sandbox.requests).toHaveLength(Object.keys(SANDBOX_SESSION_IDS).length);
  });

  it('keeps group receivers, recordings and 300 participants', async () => {
    const api = client();
    const group = await api.getCall(SANDBOX_SESSION_IDS.groupOngoing);
    expect(group.receiver?.uid).toBe('product-launch');
    expect(group.participants).toHaveLength(12);
    const recorded = await api.getCall(SANDBOX_SESSION_IDS.withRecordings);
    expect(recorded.hasRecording).toBe(true);
    expect(recorded.recordings).toHaveLength(2);
    expect(recorded.recordings[0]?.rid).toEqual(expect.any(String));
    const presenter = await api.getCall(SANDBOX_SESSION_IDS.presenter300);
    expect(presenter.participants).toHaveLength(300);
  });

  it('sends onBehalfOf as a header when given', async () => {
    await client().getCall(SANDBOX_SESSION_IDS.audioEnded, { onBehalfOf: 'cometchat-uid-1' });
    expect(only(sandbox.requests).headers.onbehalfof).toBe('cometchat-uid-1');
  });

  it('finds an SDK-chosen id by encoding it once as one path segment', async () => {
    const id = SANDBOX_SESSION_IDS.customId;
    const call = await client().getCall(id);
    expect(call.sessionId).toBe(id);
    const request = only(sandbox.requests);
    expect(request.path).toBe(`/v3/calls/${encodeURIComponent(id)}`);
    expect(request.query).toEqual({});
  });

  it('reports an unknown session as not_found', async () => {
    const error = await failure(client().getCall('v1.us.sandbox-app.0000'));
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      serviceCode: 'ERR_CALL_SESSION_NOT_FOUND',
      serviceMessage: 'The call does not exist.',
      operation: 'getCall',
    });
  });

  it('reports an empty data array as not_found', async () => {
    sandbox.inject({ kind: 'schema', body: { data: [] } });
    const error = await failure(client().getCall('v1.us.x.2'));
    expect(error).toMatchObject({ kind: 'not_found', status: 200 });
  });
});

describe('listCalls', () => {
  it('sends only the filters asked for, booleans as true/false, with page and perPage', async () => {
    const page = await client().listCalls(
      {
        uid: 'cometchat-uid-2',
        status: 'ended',
        hasRecording: true,
        hasTranscription: false,
        startedAt: 1_700_000_000,
        page: 1,
        perPage: 5,
      },
      { onBehalfOf: 'ops-1' },
    );
    const [request] = sandbox.requests;
    expect(request?.path).toBe('/v3/calls');
    expect(request?.query).toEqual({
      uid: 'cometchat-uid-2',
      status: 'ended',
      hasRecording: 'true',
      hasTranscription: 'false',
      startedAt: '1700000000',
      page: '1',
      perPage: '5',
    });
    expect(request?.headers.onbehalfof).toBe('ops-1');
    expect(page.calls.length).toBeLessThanOrEqual(5);
    for (const call of page.calls) expect(call.status).toBe('ended');
  });

  it('reads the pagination with or without per_page, and pages a list that ignored perPage', async () => {
    const query = { uid: 'cometchat-uid-2', page: 2, perPage: 5 };
    const paged = await client().listCalls(query);
    sandbox.state.callList.perPage = false;
    expect(await client().listCalls(query)).toEqual(paged);
    sandbox.state.callList.paging = false;
    const ignored = await client().listCalls(query);
    expect(ignored.calls.map((c) => c.sessionId)).toEqual(paged.calls.map((c) => c.sessionId));
    expect(ignored).toMatchObject({ page: 2, total: paged.total, totalPages: paged.totalPages });
  });

  it('refuses an onBehalfOf it could not send, before any request', async () => {
    await expect(
      client().listCalls({ page: 1, perPage: 5 }, { onBehalfOf: 'ŭid' }),
    ).rejects.toMatchObject({ kind: 'bad_request', operation: 'listCalls' });
    expect(sandbox.requests).toEqual([]);
  });
});

describe('hostile ids', () => {
  const hostile = [
    '../',
    '../../v3/roles',
    '..%2F..%2F',
    '%2e%2e',
    '...',
    'a/b',
    '/',
    'a?b=1',
    '?',
    'a#b',
    '#',
    'a b',
    ' ',
    'a\\b',
    'ünï-cödé ✓ 😀',
    '%',
    '&perPage=1',
  ];

  function segmentOf(path: string, before: string, after?: string): string {
    const parts = path.split('/');
    const expected = after === undefined ? 4 : 5;
    expect(parts).toHaveLength(expected);
    expect(parts.slice(0, 3)).toEqual(['', 'v3', before]);
    if (after !== undefined) expect(parts[4]).toBe(after);
    return parts[3] ?? '';
  }

  it.each(hostile)('keeps role id %j inside one encoded segment', async (id) => {
    const error = await failure(client().setRolePermissions(id, { sendMessage: 'deny' }));
    expect(error.kind).toBe('not_found');
    const request = only(sandbox.requests);
    const segment = segmentOf(request.path, 'roles', 'permissions');
    expect(segment).not.toMatch(/[/?#\s]/);
    expect(decodeURIComponent(segment)).toBe(id);
    expect(request.query).toEqual({});
  });

  it.each(hostile)('keeps session id %j inside one encoded segment', async (id) => {
    const error = await failure(client().getCall(id));
    expect(error.kind).toBe('not_found');
    const request = only(sandbox.requests);
    const segment = segmentOf(request.path, 'calls');
    expect(segment).not.toMatch(/[/?#\s]/);
    expect(decodeURIComponent(segment)).toBe(id);
    expect(request.host).toBe('call');
  });

  it('reaches a role whose id needs encoding, encoded exactly once', async () => {
    // Not an id the live service would make; it shows the round trip through one decoding.
    const id = 'équipe spéciale #1?x=1&y=50%25';
    sandbox.state.roles.push({ role: id, name: 'Odd', description: '', createdAt: 1 });
    const result = await client().setRolePermissions(id, { sendMessage: 'deny' });
    expect(result.results.sendMessage?.success).toBe(true);
    expect(sandbox.state.permissions.get(id)?.sendMessage).toBe('deny');
    expect(only(sandbox.requests).path).toBe(`/v3/roles/${encodeURIComponent(id)}/permissions`);
  });

  it.each(['.', '..', ''])('refuses %j before any request', async (id) => {
    const api = client();
    const put = await failure(api.setRolePermissions(id, { sendMessage: 'deny' }));
    expect(put).toMatchObject({ kind: 'bad_request', operation: 'setRolePermissions' });
    const get = await failure(api.getCall(id));
    expect(get).toMatchObject({ kind: 'bad_request', operation: 'getCall' });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('refuses an id with a lone surrogate as bad_request, not a URIError', async () => {
    const error = await failure(client().getCall('call-\uD800'));
    expect(error.kind).toBe('bad_request');
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('error kinds', () => {
  it('maps a wrong key to unauthorized (401), without retrying', async () => {
    const error = await failure(client({ apiKey: WRONG_KEY }).listRoles());
    expect(error).toMatchObject({
      kind: 'unauthorized',
      status: 401,
      serviceCode: 'AUTH_ERR_APIKEY_NOT_FOUND',
    });
    expect(only(sandbox.requests).headers.apikey).toBe(WRONG_KEY);
  });

  it('maps an empty key to unauthorized (401)', async () => {
    const error = await failure(client({ apiKey: '' }).getCall(SANDBOX_SESSION_IDS.audioEnded));
    expect(error).toMatchObject({ kind: 'unauthorized', serviceCode: 'AUTH_ERR_EMPTY_APIKEY' });
  });

  it('maps a key without full access to unauthorized (403)', async () => {
    sandbox.inject({ kind: 'status', status: 403 });
    const error = await failure(client().setRolePermissions('admin', { sendMessage: 'deny' }));
    expect(error).toMatchObject({
      kind: 'unauthorized',
      status: 403,
      serviceCode: 'AUTH_ERR_NO_ACCESS',
    });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('maps a rejected query to bad_request (400) with the details', async () => {
    const error = await failure(client().listRoles({ perPage: 0 }));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(error.details).toHaveProperty('perPage');
    expect(sandbox.requests).toHaveLength(1);
  });

  it('maps 404 to not_found, without retrying', async () => {
    sandbox.inject({ kind: 'status', status: 404, times: Number.POSITIVE_INFINITY });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('maps a persistent 429 to rate_limited after the retries', async () => {
    sandbox.inject({
      kind: 'status',
      status: 429,
      times: Number.POSITIVE_INFINITY,
      headers: { 'retry-after': '0' },
    });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({
      kind: 'rate_limited',
      status: 429,
      serviceCode: 'ERR_TOO_MANY_REQUESTS',
      retryAfterSeconds: 0,
    });
    expect(sandbox.requests).toHaveLength(4);
  });

  it('maps a persistent 503 to unavailable, retried as long as the budget allows', async () => {
    sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const error = await failure(client({ now: attemptClock(400) }).listRoles());
    expect(error).toMatchObject({
      kind: 'unavailable',
      status: 503,
      serviceCode: 'ERR_SERVICE_UNAVAILABLE',
    });
    // Each attempt takes 400 ms of the 1.5 s: a wait of 125 ms fits after the first (1.1 s
    // left), 250 ms after the second (0.7 s left); after the third (0.3 s left) the 500 ms wait
    // and an attempt do not, so the retry is given up rather than started late.
    expect(sandbox.requests).toHaveLength(3);
    expect(retries()).toEqual([
      { retryCount: 1, waitedMs: 125, cause: 'HTTP 503' },
      { retryCount: 2, waitedMs: 250, cause: 'HTTP 503' },
    ]);
  });

  it('spreads each back-off wait between half and all of it, by the random source', async () => {
    sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const draws = [0, 0.5];
    const api = client({ retryLimit: 2, random: () => draws.shift() ?? 0 });
    await failure(api.listRoles());
    // Back-offs of 250 and 500 ms: 250 × (0.5 + 0 / 2) and 500 × (0.5 + 0.5 / 2).
    expect(retries().map((r) => r.waitedMs)).toEqual([125, 375]);
    expect(draws).toEqual([]);
  });

  it.each([500, 502, 504])('maps a persistent %i to unavailable, after a retry', async (status) => {
    sandbox.inject({ kind: 'status', status, times: Number.POSITIVE_INFINITY });
    const error = await failure(client({ retryLimit: 1 }).listRoles());
    expect(error).toMatchObject({ kind: 'unavailable', status });
    expect(sandbox.requests).toHaveLength(2);
  });

  it('maps a proxy error page (HTML, not JSON) to unavailable', async () => {
    sandbox.inject({
      kind: 'status',
      status: 502,
      rawBody: '<html><body>Bad gateway</body></html>',
      times: Number.POSITIVE_INFINITY,
    });
    const error = await failure(client({ retryLimit: 0 }).listRoles());
    expect(error).toMatchObject({ kind: 'unavailable', status: 502, detail: 'no error body' });
    expect(error.serviceCode).toBeUndefined();
    expect(sandbox.requests).toHaveLength(1);
  });

  it('maps an empty 502 to unavailable', async () => {
    sandbox.inject({ kind: 'status', status: 502, body: null, times: Number.POSITIVE_INFINITY });
    const error = await failure(client({ retryLimit: 1 }).getCall(SANDBOX_SESSION_IDS.audioEnded));
    expect(error).toMatchObject({ kind: 'unavailable', status: 502, detail: 'no error body' });
    expect(sandbox.requests).toHaveLength(2);
  });

  it('maps a dropped connection to unavailable, after retrying', async () => {
    sandbox.inject({ kind: 'reset', times: Number.POSITIVE_INFINITY });
    const error = await failure(client({ retryLimit: 1 }).getCall(SANDBOX_SESSION_IDS.audioEnded));
    expect(error.kind).toBe('unavailable');
    expect(error.status).toBeUndefined();
    expect(error.detail).toMatch(/^[A-Z_]+$/); // a socket error code such as UND_ERR_SOCKET
    expect(sandbox.requests).toHaveLength(2);
  });

  it('maps a refused connection to a wrong address, after one retry', async () => {
    const port = await closedPort();
    const api = client({ apiUrl: `http://127.0.0.1:${port}`, retryLimit: 1 });
    const error = await failure(api.listRoles());
    expect(error).toMatchObject({ kind: 'misaddressed', detail: 'ECONNREFUSED', address: 'api' });
    expect(retries()).toEqual([{ retryCount: 1, waitedMs: 125, cause: 'ECONNREFUSED' }]);
  });

  it('maps a host name that does not resolve, and a 404 of the route itself, to a wrong address', async () => {
    // What fetch throws when the name does not resolve (undici wraps the lookup's error).
    const unresolved = Object.assign(new Error('getaddrinfo ENOTFOUND api-xx.cometchat.io'), {
      code: 'ENOTFOUND',
    });
    const noSuchHost: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: unresolved });
    };
    const dns = await failure(client({ fetch: noSuchHost, retryLimit: 0 }).getCall('v1.us.x'));
    expect(dns).toMatchObject({ kind: 'misaddressed', detail: 'ENOTFOUND', address: 'call' });
    // The REST address given with `/v3`: the service has no such route.
    const v3 = await failure(client({ apiUrl: `${sandbox.apiUrl}/v3` }).listRoles());
    expect(v3).toMatchObject({ kind: 'misaddressed', status: 404, serviceCode: 'ERR_NOT_FOUND' });
    // A missing role is CometChat's own answer, not a wrong address.
    const role = await failure(client().setRolePermissions('nosuchrole', {}));
    expect(role).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_ROLE_NOT_FOUND' });
  });

  it('maps attempts that never answer to timeout, retried while the budget allows', async () => {
    sandbox.inject({ kind: 'delay', delayMs: 5_000, times: Number.POSITIVE_INFINITY });
    // Each attempt gives up after 100 ms; on the client's clock each costs 700 ms of the 2 s,
    // so after the third no time is left for a fourth.
    const api = client({ timeoutMs: 100, budgetMs: 2_000, now: attemptClock(700) });
    const error = await failure(api.listRoles());
    expect(error).toMatchObject({ kind: 'timeout', detail: 'attempt timed out' });
    expect(sandbox.requests).toHaveLength(3);
    expect(retries()).toEqual([
      { retryCount: 1, waitedMs: 125, cause: 'attempt timed out' },
      { retryCount: 2, waitedMs: 250, cause: 'attempt timed out' },
    ]);
  });

  it('stops at the budget even when one attempt may take longer', async () => {
    sandbox.inject({ kind: 'delay', delayMs: 5_000, times: Number.POSITIVE_INFINITY });
    const api = client({ timeoutMs: 2_000, budgetMs: 400 });
    const error = await failure(api.getCall('v1.us.slow'));
    // The budget's own signal ended it (an attempt's timeout reads 'attempt timed out').
    expect(error).toMatchObject({ kind: 'timeout', detail: 'time budget exhausted' });
    expect(sandbox.requests).toHaveLength(1);
    expect(retries()).toEqual([]);
  });

  it('maps 408 to timeout', async () => {
    sandbox.inject({ kind: 'status', status: 408, body: null, times: Number.POSITIVE_INFINITY });
    const error = await failure(client({ retryLimit: 0 }).listRoles());
    expect(error).toMatchObject({ kind: 'timeout', status: 408 });
  });

  it('maps a body that is not JSON to invalid_response, without retrying', async () => {
    sandbox.inject({ kind: 'malformed', times: Number.POSITIVE_INFINITY });
    const error = await failure(client().getCall(SANDBOX_SESSION_IDS.audioEnded));
    expect(error).toMatchObject({
      kind: 'invalid_response',
      status: 200,
      detail: 'body is not JSON',
    });
    expect(sandbox.requests).toHaveLength(1);
    expect(messages()).toContain('CometChat response rejected');
  });

  it('maps an empty 200 body to invalid_response', async () => {
    sandbox.inject({ kind: 'malformed', rawBody: '' });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({ kind: 'invalid_response', detail: 'body is not JSON' });
  });

  it('maps JSON of the wrong shape to invalid_response, naming the field', async () => {
    sandbox.inject({ kind: 'schema' });
    const error = await failure(client().listRoles());
    expect(error.kind).toBe('invalid_response');
    expect(error.detail).toMatch(/^data: /);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('rejects a call record without its session id', async () => {
    sandbox.inject({ kind: 'schema', body: { data: [{ type: 'audio', participants: [] }] } });
    const error = await failure(client().getCall('v1.us.x.3'));
    expect(error.kind).toBe('invalid_response');
    // zod reports a failed union (array or object) at the union, not at the missing field.
    expect(error.detail).toMatch(/^data: /);
  });

  it('rejects a permission update answer without the permissions map', async () => {
    sandbox.inject({ kind: 'schema', body: { data: { sendMessage: { success: true } } } });
    const error = await failure(client().setRolePermissions('admin', { sendMessage: 'deny' }));
    expect(error.kind).toBe('invalid_response');
    expect(error.detail).toContain('data.permissions');
  });

  it('carries the running request’s reference, and makes one outside a request', async () => {
    sandbox.inject({ kind: 'status', status: 404 });
    const given = await asRequest('ref-given', () => failure(client().listRoles({})));
    expect(given.ref).toBe('ref-given');
    const made = await failure(client({ newRef: () => 'ref-made' }).getCall('v1.none'));
    expect(made.ref).toBe('ref-made');
    expect(made.message).toContain('(ref ref-made)');
    const failed = logs.records().filter((r) => r.message === 'CometChat request failed');
    expect(failed.map((r) => r.cometchat_ops.ref)).toEqual(['ref-given', 'ref-made']);
  });
});

describe('the running request', () => {
  /** `work` as a request whose logger carries its reference and team, as the app's first middleware makes it. */
  function inRequest<T>(ref: string, work: () => Promise<T>): Promise<T> {
    return runInRequest({ ref, log: logger.child({ ref, team: 'T777' }), receivedAt: T0 }, work);
  }

  function doneRequests() {
    return logs.records().filter((r) => r.message === 'CometChat request done');
  }

  it('names each request by the running request’s reference and logs through its logger', async () => {
    await inRequest('ref-running', () => client().listRoles());
    expect(doneRequests()).toEqual([
      expect.objectContaining({
        organization: { id: 'T777' },
        cometchat_ops: expect.objectContaining({ ref: 'ref-running', operation: 'listRoles' }),
      }),
    ]);
  });

  it('shares the running request’s reference across the pages of one list', async () => {
    await inRequest('ref-pages', () => client().listAllRoles({ perPage: 4 }));
    expect(doneRequests().map((r) => r.cometchat_ops.ref)).toEqual([
      'ref-pages',
      'ref-pages',
      'ref-pages',
    ]);
  });

  it('fails under the running request’s reference, a refusal before sending too', async () => {
    sandbox.inject({ kind: 'status', status: 404 });
    const api = client({ newRef: () => 'ref-made' });
    const failed = await inRequest('ref-fails', () => failure(api.getCall('v1.none')));
    expect(failed).toMatchObject({ kind: 'not_found', ref: 'ref-fails' });
    const refused = await inRequest('ref-refused', () => failure(api.getUser('..')));
    expect(refused).toMatchObject({
      kind: 'bad_request',
      ref: 'ref-refused',
      operation: 'getUser',
    });
  });

  it('names its reference as upstreamRef under a logger that carries another', async () => {
    const log = logger.child({ ref: 'ref-running', team: 'T777' });
    await asRequest('ref-given', () => client().listRoles({}), log);
    expect(doneRequests()[0]?.cometchat_ops).toMatchObject({
      ref: 'ref-running',
      upstreamRef: 'ref-given',
    });
  });
});

describe('retries and Retry-After', () => {
  it('retries a 503 and succeeds', async () => {
    sandbox.inject({ kind: 'status', status: 503 });
    const page = await client().listRoles();
    expect(page.roles).toHaveLength(10);
    expect(sandbox.requests).toHaveLength(2);
    const retry = logs.records().find((r) => r.message === 'retrying CometChat request');
    expect(retry?.cometchat_ops).toMatchObject({
      retryCount: 1,
      cause: 'HTTP 503',
      operation: 'listRoles',
    });
  });

  it('retries a PUT after a dropped connection and writes once', async () => {
    sandbox.inject({ kind: 'reset', method: 'PUT' });
    const result = await client().setRolePermissions('guest', { createGroup: 'allow' });
    expect(result.permissions.createGroup).toBe('allow');
    expect(sandbox.requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
  });

  it('retries an attempt that timed out and succeeds', async () => {
    sandbox.inject({ kind: 'delay', delayMs: 1_000 });
    const call = await client().getCall(SANDBOX_SESSION_IDS.videoRejected);
    expect(call.sessionId).toBe(SANDBOX_SESSION_IDS.videoRejected);
    expect(sandbox.requests).toHaveLength(2);
    const retry = logs.records().find((r) => r.message === 'retrying CometChat request');
    expect(retry?.cometchat_ops.cause).toBe('attempt timed out');
  });

  it('does not retry when the retry limit is 0', async () => {
    sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const error = await failure(client({ retryLimit: 0 }).listRoles());
    expect(error.kind).toBe('unavailable');
    expect(sandbox.requests).toHaveLength(1);
  });

  it('waits for a Retry-After that fits in the budget, then succeeds', async () => {
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0.5' } });
    const page = await client().listRoles();
    expect(page.roles).toHaveLength(10);
    expect(sandbox.requests).toHaveLength(2);
    // What the service asked for, not the back-off (125 ms here).
    expect(retries()).toEqual([{ retryCount: 1, waitedMs: 500, cause: 'HTTP 429' }]);
  });

  it('honours Retry-After on a 503 too', async () => {
    sandbox.inject({ kind: 'status', status: 503, headers: { 'retry-after': '0.4' } });
    await client().getCall(SANDBOX_SESSION_IDS.audioEnded);
    expect(retries()).toEqual([{ retryCount: 1, waitedMs: 400, cause: 'HTTP 503' }]);
  });

  it('waits until the time a reset header names, read on its own clock', async () => {
    const reset = String(T0 / 1000 + 1);
    sandbox.inject({ kind: 'status', status: 429, headers: { 'x-rate-limit-reset': reset } });
    await client().listRoles();
    expect(retries()).toEqual([{ retryCount: 1, waitedMs: 1_000, cause: 'HTTP 429' }]);
  });

  it('does not wait for a Retry-After longer than the budget: rate_limited at once', async () => {
    sandbox.inject({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '30' },
      times: Number.POSITIVE_INFINITY,
    });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterSeconds: 30 });
    expect(sandbox.requests).toHaveLength(1);
    expect(retries()).toEqual([]);
  });

  it('does not wait for a Retry-After longer than what is left of the budget', async () => {
    // Each attempt takes 400 ms of the 1.5 s. The first 429 asks for 0.4 s: 1.1 s are left, it
    // fits. The second asks for 1.2 s: 0.7 s are left, so it surfaces at once instead of
    // running into the budget.
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0.4' } });
    sandbox.inject({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '1.2' },
      times: Number.POSITIVE_INFINITY,
    });
    const error = await failure(client({ now: attemptClock(400) }).listRoles());
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 1.2 });
    expect(sandbox.requests).toHaveLength(2);
    expect(retries()).toEqual([{ retryCount: 1, waitedMs: 400, cause: 'HTTP 429' }]);
  });

  it('does not wait for a Retry-After given as a far HTTP date', async () => {
    const later = new Date(T0 + 120_000).toUTCString();
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': later } });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 120 });
    expect(sandbox.requests).toHaveLength(1);
    expect(retries()).toEqual([]);
  });

  it('does not wait for a far X-Rate-Limit-Reset sent without Retry-After', async () => {
    const reset = String(T0 / 1000 + 60);
    sandbox.inject({ kind: 'status', status: 429, headers: { 'x-rate-limit-reset': reset } });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 60 });
    expect(sandbox.requests).toHaveLength(1);
    expect(retries()).toEqual([]);
  });

  it('does not wait for a long Retry-After on a 503 either', async () => {
    sandbox.inject({ kind: 'status', status: 503, headers: { 'retry-after': '60' } });
    const error = await failure(client().listRoles());
    expect(error).toMatchObject({ kind: 'unavailable', status: 503, retryAfterSeconds: 60 });
    expect(sandbox.requests).toHaveLength(1);
    expect(retries()).toEqual([]);
  });
});

describe('the API key stays secret', () => {
  it('appears in no error text and no log line, whatever went wrong', async () => {
    const port = await closedPort();
    const api = client();
    const scenarios: Array<() => Promise<unknown>> = [
      () => client({ apiKey: WRONG_KEY }).listRoles(),
      () => {
        sandbox.inject({ kind: 'status', status: 403 });
        return api.setRolePermissions('admin', { sendMessage: 'deny' });
      },
      () => api.setRolePermissions('moderator', { sendMessage: 'maybe' }),
      () => api.getCall('unknown'),
      () => {
        sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '30' } });
        return api.listRoles();
      },
      () => {
        sandbox.inject({ kind: 'status', status: 502, rawBody: `<p>${API_KEY}?</p>` });
        return client({ retryLimit: 0 }).listRoles();
      },
      () => {
        sandbox.inject({ kind: 'reset', times: Number.POSITIVE_INFINITY });
        return client({ retryLimit: 1 }).listRoles();
      },
      () => client({ apiUrl: `http://127.0.0.1:${port}`, retryLimit: 0 }).listRoles(),
      () => {
        sandbox.inject({ kind: 'delay', delayMs: 2_000 });
        return client({ retryLimit: 0 }).listRoles();
      },
      () => {
        sandbox.inject({ kind: 'malformed' });
        return api.listRoles();
      },
      () => {
        sandbox.inject({ kind: 'schema' });
        return api.listRoles();
      },
      () => api.getCall('..'),
    ];
    const kinds = new Set<string>();
    for (const scenario of scenarios) {
      sandbox.clearFaults();
      const error = await failure(scenario());
      kinds.add(error.kind);
      for (const text of errorTexts(error)) expect(text).not.toContain(API_KEY);
    }
    expect(kinds).toEqual(
      new Set([
        'unauthorized',
        'bad_request',
        'not_found',
        'rate_limited',
        'unavailable',
        'misaddressed',
        'timeout',
        'invalid_response',
      ]),
    );
    // One line per scenario that reached the network (all but the refused dot segment).
    const failed = logs
      .records()
      .filter(
        (r) =>
          r.message === 'CometChat request failed' || r.message === 'CometChat response rejected',
      );
    expect(failed).toHaveLength(scenarios.length - 1);
    for (const line of logs.lines) expect(line).not.toContain(API_KEY);
    // Every request did carry the key, in the header.
    expect(sandbox.requests.every((r) => r.headers.apikey !== undefined)).toBe(true);
  });
});

describe('a fetch of its own', () => {
  const emptyPage = {
    data: [],
    meta: { pagination: { total: 0, count: 0, per_page: 5, current_page: 2, total_pages: 0 } },
  };

  /** A fetch that answers from `answers` in turn and keeps what it was sent. */
  function fakeFetch(answers: Array<() => Response>) {
    const sent: Request[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      sent.push(new Request(input, init));
      const answer = answers.shift();
      if (!answer) throw new Error('no answer left');
      return answer();
    };
    return { fetch, sent };
  }

  it('sends through it, with the key in the apikey header, and reaches no server', async () => {
    const { fetch, sent } = fakeFetch([() => Response.json(emptyPage)]);
    const page = await client({ fetch }).listRoles({ page: 2, perPage: 5 });
    expect(page).toEqual({ roles: [], pagination: emptyPage.meta.pagination });
    expect(sent.map((r) => [r.method, r.url])).toEqual([
      ['GET', `${sandbox.apiUrl}/v3/roles?page=2&perPage=5`],
    ]);
    expect(sent[0]?.headers.get('apikey')).toBe(API_KEY);
    expect(sent[0]?.headers.get('accept')).toBe('application/json');
    expect(sandbox.requests).toEqual([]);
  });

  it('retries its answers by the same rules: the back-off, then the wait a 429 asks for', async () => {
    const { fetch, sent } = fakeFetch([
      () => Response.json({ error: { code: 'ERR_SERVICE_UNAVAILABLE' } }, { status: 503 }),
      () => new Response(null, { status: 429, headers: { 'x-rate-limit-reset': '0.2' } }),
      () => Response.json(emptyPage),
    ]);
    await client({ fetch }).listRoles();
    expect(sent).toHaveLength(3);
    expect(retries()).toEqual([
      { retryCount: 1, waitedMs: 125, cause: 'HTTP 503' },
      { retryCount: 2, waitedMs: 200, cause: 'HTTP 429' },
    ]);
  });

  it('fails with the answer when no retry is left', async () => {
    const { fetch, sent } = fakeFetch([
      () =>
        Response.json({ error: { code: 'ERR_BAD', message: `bad ${API_KEY}` } }, { status: 500 }),
    ]);
    const error = await failure(client({ fetch, retryLimit: 0 }).listRoles());
    expect(error).toMatchObject({
      kind: 'unavailable',
      status: 500,
      serviceCode: 'ERR_BAD',
      serviceMessage: 'bad [redacted]',
    });
    expect(sent).toHaveLength(1);
  });

  it("takes every secret the app holds out of the service's words, not only its key", async () => {
    const botToken = 'xoxb-1111-2222-echoedBotToken';
    const password = 'webhook_pass*word&2';
    const { fetch } = fakeFetch([
      () =>
        Response.json(
          {
            error: {
              code: `ERR_${botToken}`,
              message: `token ${botToken}, password ${password}, key ${API_KEY}`,
              details: { password: [password] },
            },
          },
          { status: 400 },
        ),
    ]);
    const error = await failure(
      client({ fetch, retryLimit: 0, secrets: [botToken, password] }).listRoles(),
    );
    expect(error).toMatchObject({
      kind: 'bad_request',
      serviceCode: 'ERR_[redacted]',
      serviceMessage: 'token [redacted], password [redacted], key [redacted]',
      details: { password: ['[redacted]'] },
    });
    for (const text of errorTexts(error)) {
      expect(text).not.toContain(botToken);
      expect(text).not.toContain(password);
    }
  });

  /** A body of `megabytes` MB made as it is read, counting how much was read. */
  function endless(megabytes: number) {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let produced = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced >= megabytes * 1024 * 1024) return controller.close();
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return { body, produced: () => produced };
  }

  it('stops reading an answer past the cap, says so once, and does not retry it', async () => {
    const huge = endless(50);
    const { fetch, sent } = fakeFetch([
      () => new Response(huge.body, { headers: { 'content-type': 'application/json' } }),
    ]);
    const error = await failure(client({ fetch }).listRoles());
    expect(error).toMatchObject({
      kind: 'invalid_response',
      status: 200,
      detail: 'answer larger than 4 MB',
    });
    expect(sent).toHaveLength(1);
    // Read up to the cap and a little past it (what the stream had buffered), not 50 MB.
    expect(huge.produced()).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuses an answer whose length is past the cap before reading it', async () => {
    const huge = endless(50);
    const { fetch, sent } = fakeFetch([
      () =>
        new Response(huge.body, {
          headers: {
            'content-type': 'application/json',
            'content-length': String(50 * 1024 * 1024),
          },
        }),
    ]);
    const error = await failure(client({ fetch }).setRolePermissions('default', { a: 'b' }));
    expect(error).toMatchObject({ kind: 'invalid_response', detail: 'answer larger than 4 MB' });
    // An update answered with something unreadable may have been applied.
    expect(error.mayHaveReached).toBe(true);
    expect(sent).toHaveLength(1);
    expect(huge.produced()).toBeLessThan(1024 * 1024);
  });

  it('caps a compressed answer by what it inflates to, not by its length', async () => {
    // fetch inflates gzip as it reads: a server, since a Response made here is not inflated.
    const compressed = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(compressed.length),
      });
      response.end(compressed);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // Time enough to inflate 4 MB on a busy machine: the cap is under test, not the timeout.
      const api = client({ apiUrl: url, timeoutMs: 10_000, budgetMs: 20_000 });
      const error = await failure(api.listRoles());
      expect(error).toMatchObject({ kind: 'invalid_response', detail: 'answer larger than 4 MB' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
