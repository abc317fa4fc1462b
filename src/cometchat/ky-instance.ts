import ky, { type KyInstance } from 'ky';

/** Statuses worth another attempt: the request may well succeed a moment later. */
export const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];

/** The back-off before retry number `retryCount`, before its jitter: 250 ms doubling, 2 s at most. */
export function backoff(retryCount: number): number {
  return Math.min(250 * 2 ** (retryCount - 1), 2_000);
}

export interface HostOptions {
  /** The host's address without `/v3`. */
  url: string;
  apiKey: string;
  /** Per attempt. */
  timeoutMs: number;
  /** All attempts and waits of one request together. */
  budgetMs: number;
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
}

/**
 * The ky instance for one CometChat host: what is the same for every request to it. What
 * belongs to one request (its budget on the client's clock, its jitter, its logs) comes with
 * the request, from trip.ts.
 *
 * The time rules, and where ky keeps them:
 * - an attempt gets `timeoutMs`, or what is left of the budget when that is less: ky's `timeout`
 *   under its `totalTimeout`;
 * - the budget is real time from the start of the request: ky's `totalTimeout`. Given a wait
 *   that would use up what is left of it, ky sleeps out the remainder and throws a TimeoutError
 *   (as the client did before ky);
 * - but whether a wait and one more attempt still fit is judged first, before any wait, on the
 *   client's clock, by the trip (its `shouldRetry`, and the forced retries of its
 *   `afterResponse`): a wait that does not fit is not waited, the failure surfaces at once.
 * Unlike the client before ky, ky times the body's reading apart from the attempt (within
 * `timeout` again, and within what is left of `totalTimeout`), and does not retry a failure
 * while reading it: the answer has arrived by then.
 */
export function createHostKy(host: HostOptions): KyInstance {
  return ky.create({
    baseUrl: `${host.url}/v3/`,
    headers: { apikey: host.apiKey, accept: 'application/json' },
    timeout: host.timeoutMs,
    totalTimeout: host.budgetMs,
    retry: {
      limit: host.retryLimit,
      // Every operation, the writes too: a PUT sets the values it is given and the DELETE
      // deactivates the users it names, so a repeat leaves the same state.
      methods: ['get', 'put', 'delete'],
      statusCodes: RETRY_STATUSES,
      // The waits a 429 or 503 asks for are the trip's to read (server-wait.ts says why).
      afterStatusCodes: [],
      // A dropped or refused connection is retried by ky already; an attempt that timed out too.
      retryOnTimeout: true,
      delay: backoff,
    },
    // An empty body is not JSON: ky would hand a schema `undefined` instead.
    parseJson: (text) => JSON.parse(text),
    ...(host.fetch && { fetch: host.fetch }),
  });
}
