import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';

let standIn: SlackStandIn;

// Posts the way Bolt's respond() does: JSON, and only the status matters to it.
async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  standIn = await startSlackStandIn();
});
afterEach(() => standIn.reset());
afterAll(() => standIn.close());

describe('response_url', () => {
  it('records posts and answers 200 ok', async () => {
    const url = standIn.responseUrl();
    expect(url).toMatch(new RegExp(`^${standIn.url}/response/`));
    expect(await post(url, { text: 'hello', response_type: 'ephemeral' })).toEqual({
      status: 200,
      text: 'ok',
    });
    const reply = await standIn.nextResponse();
    expect(reply.body).toEqual({ text: 'hello', response_type: 'ephemeral' });
    expect(url.endsWith(reply.id)).toBe(true);
  });

  it('takes five posts, then answers 404', async () => {
    const url = standIn.responseUrl();
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i += 1) statuses.push((await post(url, { text: `#${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(standIn.responses).toHaveLength(5);
    expect(standIn.refusedResponses).toMatchObject([{ status: 404, reason: 'used_url' }]);
  });

  it('answers 404 for a url it never issued and 400 for a body without text', async () => {
    expect((await post(`${standIn.url}/response/forged`, { text: 'x' })).status).toBe(404);
    expect((await post(standIn.responseUrl(), { replace_original: true })).status).toBe(400);
    expect(standIn.responses).toHaveLength(0);
  });

  it('fails posts on demand, then works again', async () => {
    standIn.failResponseUrls(500, 2);
    const url = standIn.responseUrl();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await post(url, { text: 'x' })).status);
    expect(statuses).toEqual([500, 500, 200]);
  });

  it('waits for the next post after a mark', async () => {
    const url = standIn.responseUrl();
    await post(url, { text: 'first' });
    const mark = standIn.responses.length;
    setTimeout(() => void post(url, { text: 'second' }), 20);
    expect((await standIn.nextResponse(mark)).body).toEqual({ text: 'second' });
    await expect(standIn.nextResponse(5, 30)).rejects.toThrow(
      'a response_url post #5 (accepted so far: 2, refused: 0) did not arrive within 30 ms',
    );
  });

  it('delays answers by the configured latency', async () => {
    standIn.setLatency(150);
    const started = Date.now();
    await post(standIn.responseUrl(), { text: 'slow' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    standIn.setLatency(0);
  });
});
