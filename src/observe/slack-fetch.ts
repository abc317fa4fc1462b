import { STATUS_CODES } from 'node:http';
import { type Answer, type Exchange, exchange, succeeded } from '../http.ts';
import type { Metrics } from './metrics.ts';

// The app's Web API traffic, counted: every call that fails adds to the failures of its method
// and error code (an HTTP error, a network failure, or an answer of `ok: false`). The views calls
// (slack/views.ts) use observedExchange directly; the Web API client gets observedFetch, its
// fetch over node:http (src/http.ts): undici's fetch, with its WHATWG Request and streams, cost
// an editor opening about a tenth of its CPU. The body is read once and handed to the client as
// a Response.

const METHOD = /\/api\/([a-zA-Z]+(?:\.[a-zA-Z]+)+)$/;
const ERROR_CODE = /^[a-z_]{1,50}$/;
/** Slack writes `ok` first; an answer this short is read in full whatever its order. */
const SAYS_FAILED = /^\s*\{\s*"ok"\s*:\s*false/;
const SHORT = 2_048;
/**
 * The client ends every call with its own signal (its `timeout`); this bounds a call given
 * none.
 */
const LONGEST_MS = 60_000;
/** Statuses whose Response may carry no body. */
const NO_BODY = new Set([204, 205, 304]);

/** The Web API method a URL calls, or `other`. */
export function methodOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return METHOD.exec(path)?.[1] ?? 'other';
}

/**
 * One exchange with the Web API, counted: an HTTP error, a network failure, or an answer of
 * `ok: false` adds to the failures of its method and code. The views calls (slack/views.ts) go
 * through this directly; the Web API client, through observedFetch.
 */
export function observedExchange(
  metrics: Pick<Metrics, 'slackApiFailure'>,
  send: (request: Exchange) => Promise<Answer> = exchange,
): (request: Exchange) => Promise<Answer> {
  return async (request) => {
    const method = methodOf(request.url);
    let answer: Answer;
    try {
      answer = await send(request);
    } catch (error) {
      metrics.slackApiFailure(method, 'network');
      throw error;
    }
    const { status, text } = answer;
    if (!succeeded(status)) {
      metrics.slackApiFailure(method, `http_${status}`);
    } else if (String(answer.headers['content-type']).includes('json')) {
      if (text.length < SHORT || SAYS_FAILED.test(text)) {
        const code = failureCode(text);
        if (code !== undefined) metrics.slackApiFailure(method, code);
      }
    }
    return answer;
  };
}

export function observedFetch(
  metrics: Pick<Metrics, 'slackApiFailure'>,
  send: (request: Exchange) => Promise<Answer> = exchange,
): typeof fetch {
  const observed = observedExchange(metrics, send);
  return async (input, init = {}) => {
    // The client sends its forms as text to a URL given as text. Anything else (a file upload's
    // FormData; the app sends none) is left to fetch itself, and not counted.
    const body = init.body ?? undefined;
    if (typeof input !== 'string' || (body !== undefined && typeof body !== 'string')) {
      return fetch(input, init);
    }
    const answer = await observed({
      method: init.method === 'GET' ? 'GET' : 'POST',
      url: input,
      headers: plainHeaders(init.headers),
      body,
      timeoutMs: LONGEST_MS,
      readBody: true,
      signal: init.signal ?? undefined,
    });
    const { status, text } = answer;
    return new Response(NO_BODY.has(status) ? null : text, {
      status,
      statusText: STATUS_CODES[status] ?? '',
      headers: headerPairs(answer.headers),
    });
  };
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  if (headers === undefined) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

function headerPairs(headers: Answer['headers']): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) pairs.push([name, one]);
    else pairs.push([name, value]);
  }
  return pairs;
}

/** The error code of an `ok: false` answer (`other` when it is not a plain code), else undefined. */
function failureCode(text: string): string | undefined {
  let answer: { ok?: unknown; error?: unknown } | null;
  try {
    answer = JSON.parse(text) as { ok?: unknown; error?: unknown } | null;
  } catch {
    return undefined;
  }
  if (answer?.ok !== false) return undefined;
  const code = typeof answer.error === 'string' ? answer.error : '';
  return ERROR_CODE.test(code) ? code : 'other';
}
