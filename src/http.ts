import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

// One HTTP exchange over node:http(s), for the app's outgoing paths: CometChat's REST API, Slack's
// response_url, and the Slack Web API client's requests (observe/slack-fetch.ts). Not fetch: its
// WHATWG Request, Headers, Response and streams cost about three times the CPU of the same
// exchange over node:http, and with ky on top about four (BENCHMARKS.md, "Cheaper per
// command"). Node's global agents keep connections alive between exchanges.

export interface Exchange {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** The whole exchange, the answer's body included, ends within this. */
  timeoutMs: number;
  /** Read the answer's body as text; otherwise it is drained and dropped. */
  readBody: boolean;
  /** Ends the exchange early, failing with the signal's reason. */
  signal?: AbortSignal | undefined;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text ('' when it was not read). */
  text: string;
}

/** A status in 2xx. */
export function succeeded(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The exchange did not end within its time. Named like fetch's, for the logs that read it. */
export class ExchangeTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

export function exchange(request: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(request.url);
    const send =
      target.protocol === 'https:'
        ? httpsRequest
        : target.protocol === 'http:'
          ? httpRequest
          : null;
    if (!send) {
      reject(new TypeError(`not an http(s) address: ${target.protocol}`));
      return;
    }
    const headers: Record<string, string | number> = { ...request.headers };
    // Encoded once: its length is the header, and the socket writes these bytes as they are.
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    if (body !== undefined) headers['content-length'] = body.length;
    const { signal } = request;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      return true;
    };
    const fail = (error: Error) => {
      if (settle()) reject(error);
    };
    const outgoing = send(target, { method: request.method, headers }, (response) => {
      const done = (text: string) => {
        if (settle())
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text });
      };
      if (!request.readBody) {
        response.on('error', () => {});
        response.resume();
        done('');
        return;
      }
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => done(text));
      response.on('error', fail);
      // A connection closed before the body ended is a failure, not a short body.
      response.on('aborted', () =>
        fail(Object.assign(new Error('answer cut short'), { code: 'ECONNRESET' })),
      );
    });
    const stop = (error: Error) => {
      fail(error);
      outgoing.destroy(error);
    };
    const timer = setTimeout(() => stop(new ExchangeTimeout(request.timeoutMs)), request.timeoutMs);
    function abort() {
      stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    }
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
    outgoing.on('error', fail);
    outgoing.end(body);
  });
}
