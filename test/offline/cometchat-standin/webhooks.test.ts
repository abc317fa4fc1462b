import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  SANDBOX_SESSION_IDS,
  type Sandbox,
  type ScheduledDelivery,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

const API_KEY = 'test-key-webhooks';
const ids = SANDBOX_SESSION_IDS;

/** What reached the receiver. */
interface Arrival {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A tiny app server: records what arrives and answers what the test says. */
interface Receiver {
  url: string;
  arrivals: Arrival[];
  answer: { status: number; body: string };
  /** Resolves once `count` deliveries have arrived. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const receiver: Partial<Receiver> & { answer: Receiver['answer'] } = {
    answer: { status: 200, body: 'ok' },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        text: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(receiver.answer.status, { 'content-type': 'text/plain' });
      res.end(receiver.answer.body);
      for (const w of waiting.filter((w) => arrivals.length >= w.count)) w.resolve();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/cometchat/webhooks/sandbox`,
    arrivals,
    waitFor: (count: number) =>
      arrivals.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/** The one delivery that arrived, parsed. */
function only(receiver: Receiver): Arrival & { json: Record<string, unknown> } {
  expect(receiver.arrivals).toHaveLength(1);
  const [arrival] = receiver.arrivals;
  if (arrival === undefined) throw new Error('nothing arrived');
  return { ...arrival, json: JSON.parse(arrival.text) as Record<string, unknown> };
}

let sandbox: Sandbox;
let receiver: Receiver;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
  receiver = await startReceiver();
});
beforeEach(() => {
  sandbox.reset();
  receiver.arrivals.length = 0;
  receiver.answer = { status: 200, body: 'ok' };
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const extra: Sandbox[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(extra.splice(0).map((s) => s.close()));
});

describe('sending', () => {
  it('POSTs the documented envelope as JSON, without authentication unless set', async () => {
    sandbox.webhooks.configure({ url: receiver.url });
    const data = sandbox.webhooks.callEndedData(ids.audioEnded);
    const answer = await sandbox.webhooks.send('call_ended', data);

    expect(answer).toEqual({ status: 200, body: 'ok' });
    const arrival = only(receiver);
    expect(arrival.method).toBe('POST');
    expect(arrival.path).toBe('/cometchat/webhooks/sandbox');
    expect(arrival.headers['content-type']).toBe('application/json');
    expect(arrival.headers.authorization).toBeUndefined();
    // A call-session trigger's `type` sits beside `trigger`, as in CometChat's examples.
    expect(arrival.json).toEqual({
      trigger: 'call_ended',
      type: 'call',
      data,
      appId: 'sandbox-app',
      region: 'us',
      webhook: 'sandbox-webhook',
    });
    expect(Object.keys(arrival.json)).toEqual([
      'trigger',
      'type',
      'data',
      'appId',
      'region',
      'webhook',
    ]);
  });

  it('sends Basic authentication when a username and password are set', async () => {
    sandbox.webhooks.configure({
      url: receiver.url,
      username: 'cometchat',
      password: 'pä:ss w0rd',
    });
    await sandbox.webhooks.send('call_ended', sandbox.webhooks.callEndedData(ids.audioEnded));

    const header = only(receiver).headers.authorization;
    expect(header).toBe(`Basic ${Buffer.from('cometchat:pä:ss w0rd').toString('base64')}`);
    const decoded = Buffer.from(String(header).slice('Basic '.length), 'base64').toString('utf8');
    expect(decoded).toBe('cometchat:pä:ss w0rd');
  });

  it("names the app's id, region and the webhook id given", async () => {
    const second = await startSandbox({ apiKey: API_KEY, seed: 'second' });
    extra.push(second);
    second.webhooks.configure({ url: receiver.url, id: 'ops-alerts' });
    await second.webhooks.send('meeting_started', { sessionId: 's', created_at: 1 });
    expect(only(receiver).json).toMatchObject({
      trigger: 'meeting_started',
      appId: 'sandbox-app-2',
      region: 'us',
      webhook: 'ops-alerts',
    });
  });

  it('sends only the triggers the setting lists', async () => {
    sandbox.webhooks.configure({ url: receiver.url, triggers: ['recording_generated'] });
    const skipped = await sandbox.webhooks.send(
      'call_ended',
      sandbox.webhooks.callEndedData(ids.audioEnded),
    );
    expect(skipped).toBeUndefined();
    expect(receiver.arrivals).toHaveLength(0);

    const recording = sandbox.webhooks.recordingGeneratedData(ids.withRecordings);
    expect(await sandbox.webhooks.send('recording_generated', recording)).toEqual({
      status: 200,
      body: 'ok',
    });
    expect(only(receiver).json.trigger).toBe('recording_generated');
  });

  it('sends nothing while no webhook is set', async () => {
    expect(sandbox.webhooks.config).toBeUndefined();
    expect(await sandbox.webhooks.send('call_ended', { sessionId: 'x' })).toBeUndefined();
    expect(receiver.arrivals).toHaveLength(0);
  });

  it("passes the receiver's answer back whatever its status", async () => {
    sandbox.webhooks.configure({ url: receiver.url });
    receiver.answer = { status: 401, body: 'wrong password' };
    expect(await sandbox.webhooks.send('call_ended', { sessionId: 'x' })).toEqual({
      status: 401,
      body: 'wrong password',
    });
    receiver.answer = { status: 500, body: '' };
    expect(await sandbox.webhooks.send('call_ended', { sessionId: 'x' })).toEqual({
      status: 500,
      body: '',
    });
  });

  it('throws only when the receiver cannot be reached', async () => {
    const gone = await startReceiver();
    await gone.close();
    sandbox.webhooks.configure({ url: gone.url });
    await expect(sandbox.webhooks.send('call_ended', { sessionId: 'x' })).rejects.toThrow(
      /could not deliver call_ended to http:\/\/127\.0\.0\.1:\d+/,
    );
  });

  it('refuses a setting that cannot work', () => {
    const { webhooks } = sandbox;
    expect(() => webhooks.configure({ url: 'not a url' })).toThrow(/not a URL/);
    expect(() => webhooks.configure({ url: 'ftp://example.com/' })).toThrow(/http or https/);
    expect(() => webhooks.configure({ url: 'http://u:p@127.0.0.1/' })).toThrow(/inside the URL/);
    expect(() => webhooks.configure({ url: receiver.url, username: 'u' })).toThrow(/both/);
    expect(() => webhooks.configure({ url: receiver.url, username: 'a:b', password: 'p' })).toThrow(
      /":"/,
    );
    expect(webhooks.config).toBeUndefined();
  });

  it('reset() clears the setting', async () => {
    sandbox.webhooks.configure({ url: receiver.url, username: 'u', password: 'p' });
    expect(sandbox.webhooks.config).toMatchObject({ url: receiver.url, username: 'u' });
    sandbox.reset();
    expect(sandbox.webhooks.config).toBeUndefined();
    expect(await sandbox.webhooks.send('call_ended', { sessionId: 'x' })).toBeUndefined();
    expect(receiver.arrivals).toHaveLength(0);
  });
});

describe('payloads', () => {
  it('call_ended: display names of those who joined, Unix seconds, no uid', () => {
    expect(sandbox.webhooks.callEndedData(ids.audioEnded)).toEqual({
      sessionId: ids.audioEnded,
      created_at: 1700000006,
      destroyed_at: 1700000756,
      all_occupants: [
        { name: 'Andrew Joseph', joined_at: 1700000002, left_at: 1700000756, audio_call: 'true' },
        { name: 'George Alan', joined_at: 1700000006, left_at: 1700000756, audio_call: 'true' },
      ],
    });
    // Never answered: created when initiated; the receiver is no occupant.
    expect(sandbox.webhooks.callEndedData(ids.unanswered)).toEqual({
      sessionId: ids.unanswered,
      created_at: 1700003600,
      destroyed_at: 1700003645,
      all_occupants: [
        { name: 'Nancy Grace', joined_at: 1700003601, left_at: 1700003645, audio_call: 'false' },
      ],
    });
  });

  it('call_ended: refuses a call that has not ended or does not exist', () => {
    expect(() => sandbox.webhooks.callEndedData(ids.groupOngoing)).toThrow(/has not ended/);
    expect(() => sandbox.webhooks.callEndedData('nope')).toThrow(/no call/);
  });

  it('recording_generated: every field a string', () => {
    const data = sandbox.webhooks.recordingGeneratedData(ids.withRecordings);
    expect(data).toEqual({
      sessionId: ids.withRecordings,
      recording_url: `https://recordings-us.cometchat.io/sandbox-app/${ids.withRecordings}/rec-5f2b8c1e.mp4`,
      recordingDate: new Date(1700014460 * 1000).toISOString(),
      startTime: '1700014460',
      duration: '15.2',
    });
    const second = sandbox.webhooks.recordingGeneratedData(ids.withRecordings, 'rec-9a07d3c4');
    expect(second.recording_url).toMatch(/rec-9a07d3c4\.mp4$/);
    expect(second.duration).toBe('9.83');
    expect(() => sandbox.webhooks.recordingGeneratedData(ids.audioEnded)).toThrow(/no recording/);
  });

  it('transcription_generated: from a call that has one, every field a string', () => {
    const [sessionId, call] =
      [...sandbox.state.calls].find(([, c]) => {
        const list = c.record.transcriptions;
        return Array.isArray(list) && list.length > 0;
      }) ?? [];
    if (sessionId === undefined || call === undefined) throw new Error('no transcribed call');
    const [stored] = call.record.transcriptions as Record<string, unknown>[];
    const data = sandbox.webhooks.transcriptionGeneratedData(sessionId);
    expect(data).toEqual({
      sessionId,
      tid: stored?.tid,
      transcriptDate: stored?.transcriptDate,
      transcript_url: stored?.transcriptUrl,
      startTime: String(stored?.startTime),
      endTime: String(stored?.endTime),
    });
    for (const value of Object.values(data)) expect(typeof value).toBe('string');
    expect(() => sandbox.webhooks.transcriptionGeneratedData(ids.audioEnded)).toThrow(
      /no transcription/,
    );
  });
});

describe('endCall', () => {
  it('ends a call in the state and sends its ringing outcome: the call message', async () => {
    sandbox.webhooks.configure({ url: receiver.url, username: 'u', password: 'p' });
    const answer = await sandbox.webhooks.endCall(ids.customId, {
      status: 'unanswered',
      endedAt: 1700025245,
    });
    expect(answer).toEqual({ status: 200, body: 'ok' });

    const record = sandbox.state.calls.get(ids.customId)?.record;
    expect(record).toMatchObject({ status: 'unanswered', endedAt: 1700025245 });
    expect(record?.participants).toEqual([
      expect.objectContaining({ uid: 'cometchat-uid-5', leftAt: 1700025245 }),
      expect.objectContaining({ uid: 'cometchat-uid-3', state: 'unanswered' }),
    ]);

    const arrival = only(receiver);
    expect(arrival.json).toMatchObject({ trigger: 'call_unanswered', appId: 'sandbox-app' });
    expect(arrival.json).not.toHaveProperty('type');
    expect(arrival.json.data).toMatchObject({
      call: { category: 'call', data: { action: 'unanswered' }, sentAt: 1700025245 },
    });
    expect(arrival.json.data).not.toHaveProperty('sessionId');

    // The call lookup serves the ended call.
    const response = await fetch(
      `${sandbox.callUrl}/v3/calls/${encodeURIComponent(ids.customId)}`,
      {
        headers: { apikey: API_KEY },
      },
    );
    const { data } = (await response.json()) as { data: { status: string; endedAt: number } };
    expect(data).toMatchObject({ status: 'unanswered', endedAt: 1700025245 });
  });

  it('lets whoever is still in an ongoing call leave, and counts their minutes', async () => {
    await sandbox.webhooks.endCall(ids.groupOngoing, { endedAt: 1700013000 });
    const record = sandbox.state.calls.get(ids.groupOngoing)?.record;
    expect(record?.status).toBe('ended');
    const participants = (record?.participants ?? []) as Record<string, unknown>[];
    const andrew = participants.find((p) => p.uid === 'cometchat-uid-1');
    expect(andrew).toMatchObject({ leftAt: 1700013000, state: 'ended' });
    expect(andrew?.totalDurationInMinutes).toBe(
      Math.round(((1700013000 - 1700010830) / 60) * 100) / 100,
    );
    // Nothing configured: the state changed, nothing was sent.
    expect(receiver.arrivals).toHaveLength(0);
    expect(sandbox.webhooks.callEndedData(ids.groupOngoing).all_occupants).toHaveLength(7);
  });

  it('refuses an unknown call and a status a call cannot end in', async () => {
    await expect(sandbox.webhooks.endCall('nope')).rejects.toThrow(/no call/);
    await expect(
      // @ts-expect-error: an ongoing call has not ended
      sandbox.webhooks.endCall(ids.customId, { status: 'ongoing' }),
    ).rejects.toThrow(/cannot end as "ongoing"/);
    expect(sandbox.state.calls.get(ids.customId)?.record.status).toBe('initiated');
  });

  it('is undone by reset()', async () => {
    await sandbox.webhooks.endCall(ids.customId);
    sandbox.reset();
    expect(sandbox.state.calls.get(ids.customId)?.record.status).toBe('initiated');
  });
});

describe('schedule', () => {
  it('sends a call_ended of the given calls in turn, and stops', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    sandbox.webhooks.configure({ url: receiver.url });
    const deliveries: ScheduledDelivery[] = [];
    const stop = sandbox.webhooks.schedule({
      everySeconds: 30,
      sessionIds: [ids.audioEnded, ids.unanswered],
      onDelivery: (d) => deliveries.push(d),
    });
    for (const count of [1, 2, 3]) {
      vi.advanceTimersByTime(30_000);
      await receiver.waitFor(count);
      await vi.waitFor(() => expect(deliveries).toHaveLength(count));
    }
    stop();
    vi.advanceTimersByTime(120_000);

    const sent = receiver.arrivals.map((a) => JSON.parse(a.text) as { trigger: string });
    // Each call ends the way its flow does: an answered one with call_ended, the other not.
    expect(sent.map((s) => s.trigger)).toEqual(['call_ended', 'call_unanswered', 'call_ended']);
    expect(deliveries.map((d) => d.sessionId)).toEqual([
      ids.audioEnded,
      ids.unanswered,
      ids.audioEnded,
    ]);
    expect(deliveries[0]).toMatchObject({
      trigger: 'call_ended',
      sessionId: ids.audioEnded,
      answer: { status: 200 },
      data: { destroyed_at: 1700000756 },
    });
  });

  it("cycles through the seed's ended calls by default and ends with reset()", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    sandbox.webhooks.configure({ url: receiver.url });
    const deliveries: ScheduledDelivery[] = [];
    sandbox.webhooks.schedule({ everySeconds: 1, onDelivery: (d) => deliveries.push(d) });
    vi.advanceTimersByTime(1_000);
    await vi.waitFor(() => expect(deliveries).toHaveLength(1));
    expect(deliveries[0]?.sessionId).toBe(ids.audioEnded);
    sandbox.reset();
    vi.advanceTimersByTime(10_000);
    expect(deliveries).toHaveLength(1);
    expect(receiver.arrivals).toHaveLength(1);
  });

  it('reports a receiver it cannot reach instead of throwing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const gone = await startReceiver();
    await gone.close();
    sandbox.webhooks.configure({ url: gone.url });
    const deliveries: ScheduledDelivery[] = [];
    sandbox.webhooks.schedule({ everySeconds: 5, onDelivery: (d) => deliveries.push(d) });
    vi.advanceTimersByTime(5_000);
    await vi.waitFor(() => expect(deliveries).toHaveLength(1));
    expect(deliveries[0]?.error?.message).toMatch(/could not deliver/);
    expect(deliveries[0]?.answer).toBeUndefined();
  });

  it('refuses a period that is not a whole number of seconds', () => {
    expect(() => sandbox.webhooks.schedule({ everySeconds: 0 })).toThrow(/positive integer/);
    expect(() => sandbox.webhooks.schedule({ everySeconds: 1.5 })).toThrow(/positive integer/);
  });
});
