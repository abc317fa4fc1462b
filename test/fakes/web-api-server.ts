import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A minimal Web API endpoint on loopback for unit tests of the app's Web API clients: it records
// each request and answers from a script, so a test can give a 503, a 429 or a hang. The
// integration tests use the full Slack stand-in (offline/slack-standin) instead.

export interface ScriptedAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (the client's timeout is what ends the call). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  headers: IncomingMessage['headers'];
  /** The form or JSON body as the client sent it. */
  body: string;
}

export interface WebApiServer {
  /** Ends with `/`, as WebClient's `slackApiUrl` wants. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Answers each request with the next scripted answer for its method (or `fallback` when none is
 * left): `{ ok: true }` with a 200 unless the script says otherwise.
 */
export async function startWebApiServer(
  script: Record<string, ScriptedAnswer[]> = {},
  fallback: (method: string) => ScriptedAnswer = () => ({ body: { ok: true } }),
): Promise<WebApiServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
      requests.push({ method, headers: request.headers, body });
      const answer = script[method]?.shift() ?? fallback(method);
      if (answer.hang) return;
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      response
        .writeHead(answer.status ?? 200, {
          'content-type': 'application/json; charset=utf-8',
          ...answer.headers,
        })
        .end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
