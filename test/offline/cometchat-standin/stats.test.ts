import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../offline/cometchat-standin/server.ts';

const API_KEY = 'test-key-stats';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

function getStats(query: string, init: RequestInit = { headers: { apikey: API_KEY } }) {
  return fetch(`${sandbox.apiUrl}/v3/stats${query}`, init);
}

interface StatsJson {
  data: {
    metrics: Record<string, number>;
    time_range: { fromDate: number; toDate: number };
  };
}

async function statsOf(query: string): Promise<StatsJson['data']> {
  const response = await getStats(query);
  expect(response.status).toBe(200);
  return ((await response.json()) as StatsJson).data;
}

async function detailsOf(response: Response): Promise<Record<string, string[]>> {
  expect(response.status).toBe(400);
  const { error } = (await response.json()) as {
    error: { code: string; details: Record<string, string[]> };
  };
  expect(error.code).toBe('ERR_BAD_REQUEST');
  return error.details;
}

describe('GET /v3/stats', () => {
  it('totals the calls that started in the range', async () => {
    // audioEnded (1:1 audio), unanswered (video, one joined), videoRejected (video).
    expect(await statsOf('?fromDate=1700000000&toDate=1700009999')).toEqual({
      metrics: {
        audio_minutes: 25.07,
        video_minutes: 0.86,
        recorded_minutes: 0,
        active_users: 5,
        concurrent_users: 2,
      },
      time_range: { fromDate: 1700000000, toDate: 1700009999 },
    });
  });

  it('counts recorded minutes from the recordings', async () => {
    const { metrics } = await statsOf('?fromDate=1700014400&toDate=1700014460');
    expect(metrics).toEqual({
      audio_minutes: 0,
      video_minutes: 60.05,
      recorded_minutes: 25.03,
      active_users: 2,
      concurrent_users: 2,
    });
  });

  it('peaks concurrent users across overlapping participants', async () => {
    // The ongoing group meeting: at most six in it at once (uid-5 left before uid-4 joined).
    const { metrics } = await statsOf('?fromDate=1700010800&toDate=1700010860');
    expect(metrics.active_users).toBe(12);
    expect(metrics.concurrent_users).toBe(6);
  });

  it('accepts milliseconds and echoes the range as sent', async () => {
    const seconds = await statsOf('?fromDate=1700000000&toDate=1700009999');
    const ms = await statsOf('?fromDate=1700000000000&toDate=1700009999000');
    expect(ms.metrics).toEqual(seconds.metrics);
    expect(ms.time_range).toEqual({ fromDate: 1700000000000, toDate: 1700009999000 });
  });

  it('answers zeros for a range without calls', async () => {
    expect((await statsOf('?fromDate=1600000000&toDate=1600086400')).metrics).toEqual({
      audio_minutes: 0,
      video_minutes: 0,
      recorded_minutes: 0,
      active_users: 0,
      concurrent_users: 0,
    });
  });

  it('counts the recent calls in the last week', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { metrics } = await statsOf(`?fromDate=${now - 7 * 86_400}&toDate=${now}`);
    expect(metrics.active_users).toBeGreaterThan(0);
    expect((metrics.audio_minutes ?? 0) + (metrics.video_minutes ?? 0)).toBeGreaterThan(0);
  });

  it('needs both dates', async () => {
    expect(Object.keys(await detailsOf(await getStats('')))).toEqual(['fromDate', 'toDate']);
    expect(Object.keys(await detailsOf(await getStats('?fromDate=1700000000')))).toEqual([
      'toDate',
    ]);
    expect(Object.keys(await detailsOf(await getStats('?fromDate=&toDate=1700000000')))).toEqual([
      'fromDate',
    ]);
  });

  it('refuses dates that are not Unix time, and a range that ends before it starts', async () => {
    const bad = await detailsOf(await getStats('?fromDate=yesterday&toDate=-5'));
    expect(bad.fromDate?.[0]).toMatch(/Unix time/);
    expect(bad.toDate?.[0]).toMatch(/Unix time/);
    const backwards = await detailsOf(await getStats('?fromDate=1700009999&toDate=1700000000'));
    expect(backwards.toDate?.[0]).toMatch(/before the fromDate/);
  });

  it('needs the key, is served on the API host only, and takes faults like any route', async () => {
    expect((await getStats('?fromDate=1&toDate=2', {})).status).toBe(401);
    const onCallHost = await fetch(`${sandbox.callUrl}/v3/stats?fromDate=1&toDate=2`, {
      headers: { apikey: API_KEY },
    });
    expect(onCallHost.status).toBe(404);
    expect(
      (await getStats('?fromDate=1&toDate=2', { method: 'POST', headers: { apikey: API_KEY } }))
        .status,
    ).toBe(405);
    sandbox.inject({ kind: 'status', status: 503, pathIncludes: '/v3/stats' });
    expect((await getStats('?fromDate=1&toDate=2')).status).toBe(503);
    expect((await getStats('?fromDate=1&toDate=2')).status).toBe(200);
  });
});
