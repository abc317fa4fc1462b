import { createServer, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ExchangeTimeout, exchange } from '../src/http.ts';

// The one HTTP exchange under the CometChat client and the response_url reply: its failures
// must be failures, never a short or empty answer read as a whole one.

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serve(answer: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v3/roles`;
}

const get = (url: string, timeoutMs = 1_000) =>
  exchange({
    method: 'GET',
    url,
    headers: { accept: 'application/json' },
    timeoutMs,
    readBody: true,
  });

describe('exchange', () => {
  it("ends early with the signal's reason when it aborts, as the Web API client's timeout does", async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const pending = exchange({
      method: 'POST',
      url,
      headers: {},
      body: 'token=x',
      timeoutMs: 5_000,
      readBody: true,
      signal: controller.signal,
    });
    const reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    setTimeout(() => controller.abort(reason), 30);
    await expect(pending).rejects.toBe(reason);
  });

  it('does not start at all with a signal already aborted', async () => {
    const url = await serve((response) => response.end('{}'));
    const reason = new Error('gone');
    await expect(
      exchange({
        method: 'GET',
        url,
        headers: {},
        timeoutMs: 1_000,
        readBody: true,
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
  });

  it('reads the status, the headers and the whole body as text', async () => {
    const url = await serve((response) => {
      response.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' });
      response.write('{"error":');
      setTimeout(() => response.end('{"code":"ERR_TOO_MANY_REQUESTS"}}'), 20);
    });
    const answer = await get(url);
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('2');
    expect(JSON.parse(answer.text)).toEqual({ error: { code: 'ERR_TOO_MANY_REQUESTS' } });
  });

  it('fails when the connection closes before the body ends', async () => {
    const url = await serve((response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('{"data":[');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await expect(get(url)).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('fails with an ExchangeTimeout when the body does not end in time', async () => {
    const url = await serve((response) => {
      response.writeHead(200);
      response.write('{"data":[');
    });
    const failure = await get(url, 50).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExchangeTimeout);
    expect(failure).toMatchObject({ name: 'TimeoutError' });
  });
});
