import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { causeOf, postJson } from '../../src/slack/deliver.ts';

// The response_url post (fetch, as Bolt's respond): what it sends, what it resolves with, and how it fails.

let server: Server | undefined;
afterEach(async () => {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

async function serve(
  answer: (request: IncomingMessage, body: string) => { status: number } | 'never',
): Promise<string> {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const outcome = answer(request, body);
      if (outcome === 'never') return;
      response.writeHead(outcome.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/commands/T1/123/abc`;
}

describe('postJson', () => {
  it('POSTs the JSON with its type and length, and resolves with the status', async () => {
    const seen: {
      method?: string | undefined;
      type?: string | undefined;
      length?: string | undefined;
      body: string;
    }[] = [];
    const url = await serve((request, body) => {
      seen.push({
        method: request.method,
        type: request.headers['content-type'],
        length: request.headers['content-length'],
        body,
      });
      return { status: 200 };
    });
    const json = JSON.stringify({ text: 'Bonjour, ça va' });
    await expect(postJson(url, json, 1_000)).resolves.toBe(200);
    expect(seen).toEqual([
      {
        method: 'POST',
        type: 'application/json',
        length: String(Buffer.byteLength(json)),
        body: json,
      },
    ]);
  });

  it('resolves with a refusal status rather than throwing', async () => {
    const url = await serve(() => ({ status: 404 }));
    await expect(postJson(url, '{}', 1_000)).resolves.toBe(404);
  });

  it('rejects with a TimeoutError when no answer comes within the time given', async () => {
    const url = await serve(() => 'never');
    await expect(postJson(url, '{}', 50)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('rejects an address that is not http(s), and a server that is not there', async () => {
    await expect(postJson('ftp://example.test/x', '{}', 1_000)).rejects.toBeInstanceOf(TypeError);
    const url = await serve(() => ({ status: 200 }));
    const gone = server as Server;
    server = undefined;
    await new Promise((resolve) => gone.close(resolve));
    const refused = await postJson(url, '{}', 1_000).catch((e: unknown) => e);
    expect(causeOf(refused)).toBe('ECONNREFUSED');
  });
});
