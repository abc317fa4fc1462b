import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  loadSeed,
  RECENT_CALLS_UID,
  type Sandbox,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

// GET /v3/calls on the sandbox: the documented filters, newest first, both pagination shapes the
// live service has used, and the calls made at start-up over the seven days before it.

const KEY = 'list-key-3f1a';
let sandbox: Sandbox;
let startedAt: number;

beforeAll(async () => {
  startedAt = Math.floor(Date.now() / 1000);
  sandbox = await startSandbox({ apiKey: KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

interface ListJson {
  data: {
    sessionId: string;
    status?: string;
    type?: string;
    mode?: string;
    receiverType?: string;
    initiatedAt?: number;
    startedAt?: number;
    endedAt?: number;
    hasRecording?: boolean;
    hasTranscription?: boolean;
    participants: { uid: string }[];
    initiator?: string;
    totalParticipants?: number;
  }[];
  meta: { pagination: Record<string, number> };
}

async function list(query: Record<string, string> = {}, key = KEY) {
  const response = await fetch(`${sandbox.callUrl}/v3/calls?${new URLSearchParams(query)}`, {
    headers: { apikey: key },
  });
  return { status: response.status, body: (await response.json()) as ListJson };
}

const when = (c: ListJson['data'][number]) => c.startedAt ?? c.initiatedAt ?? 0;

describe('GET /v3/calls', () => {
  it('lists every call newest first, a page of 100 by default, with the pagination', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    const times = body.data.map(when);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(body.meta.pagination).toEqual({
      total: sandbox.state.calls.size,
      count: body.data.length,
      per_page: 100,
      current_page: 1,
      total_pages: Math.ceil(sandbox.state.calls.size / 100),
    });
  });

  it('filters by each documented parameter', async () => {
    const all = (await list({ perPage: '1000' })).body.data;
    const cases: [Record<string, string>, (c: ListJson['data'][number]) => boolean][] = [
      [
        { uid: RECENT_CALLS_UID },
        (c) =>
          c.participants.some((p) => p.uid === RECENT_CALLS_UID) ||
          c.initiator === RECENT_CALLS_UID,
      ],
      [{ status: 'rejected' }, (c) => c.status === 'rejected'],
      [{ type: 'video' }, (c) => c.type === 'video'],
      [{ mode: 'presenter' }, (c) => c.mode === 'presenter'],
      [{ receiverType: 'group' }, (c) => c.receiverType === 'group'],
      [{ hasRecording: 'true' }, (c) => c.hasRecording === true],
      [{ hasTranscription: 'true' }, (c) => c.hasTranscription === true],
      [{ startedAt: String(startedAt - 86_400) }, (c) => when(c) >= startedAt - 86_400],
      [
        { endedAt: String(startedAt - 86_400) },
        (c) => c.endedAt !== undefined && c.endedAt <= startedAt - 86_400,
      ],
      [{ participantsCount: '2' }, (c) => (c.totalParticipants ?? c.participants.length) === 2],
    ];
    for (const [query, expected] of cases) {
      const { status, body } = await list({ ...query, perPage: '1000' });
      expect(status, JSON.stringify(query)).toBe(200);
      const ids = body.data.map((c) => c.sessionId);
      expect(ids.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(ids, JSON.stringify(query)).toEqual(all.filter(expected).map((c) => c.sessionId));
    }
    expect((await list({ uid: 'nobody' })).body).toMatchObject({
      data: [],
      meta: { pagination: { total: 0, count: 0 } },
    });
  });

  it('pages with page and perPage, and answers in the other shapes when told to', async () => {
    const second = (await list({ uid: RECENT_CALLS_UID, page: '2', perPage: '5' })).body;
    expect(second.data).toHaveLength(5);
    expect(second.meta.pagination).toMatchObject({ current_page: 2, per_page: 5, count: 5 });

    sandbox.state.callList.perPage = false;
    expect((await list({ perPage: '5' })).body.meta.pagination).not.toHaveProperty('per_page');

    sandbox.state.callList.paging = false;
    const everything = (await list({ page: '3', perPage: '5' })).body;
    expect(everything.data).toHaveLength(sandbox.state.calls.size);
    expect(everything.meta.pagination).toMatchObject({ current_page: 1, total_pages: 1 });
    sandbox.reset();
    expect(sandbox.state.callList).toEqual({ perPage: true, paging: true });
  });

  it('refuses a malformed parameter as the service does, and asks for the key', async () => {
    for (const query of [
      { startedAt: 'yesterday' },
      { hasRecording: 'yes' },
      { page: '0' },
      { perPage: '1001' },
      { participantsCount: '-1' },
    ]) {
      const { status, body } = await list(query);
      expect(status, JSON.stringify(query)).toBe(400);
      expect(JSON.stringify(body), JSON.stringify(query)).toContain('ERR_BAD_REQUEST');
    }
    expect((await list({}, 'wrong')).status).toBe(401);
    sandbox.inject({ kind: 'status', status: 503, pathIncludes: '/v3/calls' });
    expect((await list()).status).toBe(503);
  });
});

describe('the calls made at start-up', () => {
  it('span the seven days before start, across a dozen users, every status, type and mode', () => {
    const recent = [...loadSeed('default', startedAt).calls.values()]
      .map((c) => c.record as ListJson['data'][number])
      .filter((c) => c.sessionId.includes('recent'));
    expect(recent.length).toBeGreaterThanOrEqual(60);
    for (const call of recent) {
      expect(call.initiatedAt).toBeLessThan(startedAt);
      expect(call.initiatedAt).toBeGreaterThan(startedAt - 7 * 86_400);
    }
    const values = (key: 'status' | 'type' | 'mode' | 'receiverType') =>
      new Set(recent.map((c) => c[key]));
    expect(values('status')).toEqual(
      new Set(['ongoing', 'ended', 'unanswered', 'rejected', 'initiated', 'canceled']),
    );
    expect(values('type')).toEqual(new Set(['audio', 'video']));
    expect(values('mode')).toEqual(new Set(['call', 'meet', 'presenter']));
    expect(values('receiverType')).toEqual(new Set(['user', 'group']));
    const users = new Set(recent.flatMap((c) => c.participants.map((p) => p.uid)));
    expect(users.size).toBeGreaterThanOrEqual(12);
    expect(recent.filter((c) => c.hasRecording).length).toBeGreaterThan(3);
    expect(recent.filter((c) => c.hasTranscription).length).toBeGreaterThan(3);
    const busy = recent.filter(
      (c) => c.initiator === RECENT_CALLS_UID && (c.initiatedAt ?? 0) > startedAt - 2 * 86_400,
    );
    expect(busy.length).toBeGreaterThan(2);
  });

  it('are the same for the same start time, and found one by one too', async () => {
    const ids = (seed: number) =>
      [...loadSeed('default', seed).calls.values()].map((c) => JSON.stringify(c));
    expect(ids(1_800_000_000)).toEqual(ids(1_800_000_000));
    const [newest] = (await list()).body.data;
    const one = await fetch(
      `${sandbox.callUrl}/v3/calls/${encodeURIComponent(newest?.sessionId ?? '')}`,
      {
        headers: { apikey: KEY },
      },
    );
    expect(one.status).toBe(200);
  });
});
