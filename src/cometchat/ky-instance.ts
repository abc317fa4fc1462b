import ky, {
  type AfterResponseHook,
  type BeforeRequestHook,
  type BeforeRetryHook,
  HTTPError,
  type InitHook,
  isHTTPError,
  type KyInstance,
} from 'ky';
import { cappedAnswer } from './answer-cap.ts';
import type { CometChatAddress } from './errors.ts';
import { causeOf, leftInDoubt, statusOf } from './ky-failure.ts';
import type { CometChatObserver } from './observer.ts';
import { type RequestRecord, recordOf } from './request-record.ts';
import { serverWaitMs } from './server-wait.ts';

/** Statuses worth another attempt: the request may well succeed a moment later. */
export const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
/** Statuses whose wait (`Retry-After` and the like) is honoured, when it fits in the budget. */
const SERVER_WAIT_STATUSES = [429, 503];
/** Time an attempt needs at the least to be worth starting. */
const MIN_ATTEMPT_MS = 50;

/** The back-off before retry number `retryCount`, before its jitter: 250 ms doubling, 2 s at most. */
export function backoff(retryCount: number): number {
  return Math.min(250 * 2 ** (retryCount - 1), 2_000);
}

export interface HostOptions {
  /** The host's address without `/v3`. */
  url: string;
  /** Which of the app's two hosts this is, named by a failure. */
  address: CometChatAddress;
  apiKey: string;
  /** Per attempt. */
  timeoutMs: number;
  /** All attempts and waits of one request together. */
  budgetMs: number;
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
  /** The clock the budget and a server's waits are judged by. */
  now: () => number;
  /** A number in [0, 1) for the back-off's jitter. */
  random: () => number;
  observe?: CometChatObserver | undefined;
}

/**
 * The ky instance for one CometChat host: every rule the app sets for a request to it, once.
 * Each request comes with its RequestRecord in ky's `context` (send.ts), which the hooks read
 * and note.
 *
 * The time rules, and where ky keeps them:
 * - an attempt gets `timeoutMs`, or what is left of the budget when that is less: ky's `timeout`
 *   under its `totalTimeout`;
 * - the budget is real time from the start of the request: ky's `totalTimeout`. Given a wait
 *   that would use up what is left of it, ky sleeps out the remainder and throws a TimeoutError;
 * - but whether a wait and one more attempt still fit is judged first, before any wait, on the
 *   client's clock: by `shouldRetry`, and by the forced retries of `afterResponse`. A wait that
 *   does not fit is not waited, the failure surfaces at once.
 * ky times the body's reading apart from the attempt (within `timeout` again, and within what is
 * left of `totalTimeout`), and does not retry a failure while reading it: the answer has arrived.
 */
export function createHostKy(host: HostOptions): KyInstance {
  return ky.create({
    baseUrl: `${host.url}/v3/`,
    headers: { apikey: host.apiKey, accept: 'application/json' },
    timeout: host.timeoutMs,
    totalTimeout: host.budgetMs,
    retry: {
      limit: host.retryLimit,
      // Every method but POST, the writes too: a PUT sets the values it is given and a DELETE
      // deactivates the users or removes the role it names, so a repeat leaves the same state.
      // A POST creates a role: a repeat would create it twice, or be refused.
      methods: ['get', 'put', 'delete'],
      statusCodes: RETRY_STATUSES,
      // The waits a 429 or 503 asks for are read by `afterResponse` (server-wait.ts says why).
      afterStatusCodes: [],
      // A dropped or refused connection is retried by ky already; an attempt that timed out too.
      retryOnTimeout: true,
      delay: backoff,
    },
    hooks: {
      init: [withinBudget(host)],
      beforeRequest: [firstAttempt(host)],
      afterResponse: [serverWaitOrCap(host)],
      beforeRetry: [retrying(host)],
    },
    // An empty body is not JSON: ky would hand a schema `undefined` instead.
    parseJson: (text) => JSON.parse(text),
    ...(host.fetch && { fetch: host.fetch }),
  });
}

/**
 * ky's `shouldRetry` and `jitter` are given no `context`, so they are made for each request
 * here, around its record: a retry is refused when its wait and one more attempt would not fit
 * in the budget left on the client's clock (ky draws the jitter after asking, so the back-off is
 * judged at its longest), and the wait is half to all of the back-off, so that replicas do not
 * retry in step. A wait a 429 or 503 asked for that does not fit (no forced retry was made for
 * it) is refused here too, and its answer surfaces at once.
 */
function withinBudget(host: HostOptions): InitHook {
  return (options) => {
    const record = recordOf(options.context);
    options.retry = {
      ...(typeof options.retry === 'object' ? options.retry : {}),
      shouldRetry: ({ error, retryCount }) => {
        const asked = isHTTPError(error) ? serverWait(host, error.response) : undefined;
        return fits(host, record, asked ?? backoff(retryCount)) ? undefined : false;
      },
      jitter: (delay) => waitFor(record, delay * (0.5 + host.random() / 2)),
    };
  };
}

function firstAttempt(host: HostOptions): BeforeRequestHook {
  return ({ request, options }) => {
    const record = recordOf(options.context);
    record.address = host.address;
    record.changes = request.method !== 'GET';
    attemptStarts(host, record);
  };
}

/**
 * A 429 or 503 asking for a wait that fits is retried after exactly that wait: ky's forced
 * retry, which takes no jitter or back-off. Any other answer is left to ky's own rules, read
 * through the cap on an answer's size (one hook for both: ky clones the answer for each).
 */
function serverWaitOrCap(host: HostOptions): AfterResponseHook {
  return ({ request, options, response, retryCount }) => {
    const record = recordOf(options.context);
    record.status = response.status;
    const asked = serverWait(host, response);
    // At the limit ky would throw the forced retry itself, without the answer and its body.
    if (asked === undefined || retryCount >= options.retry.limit || !fits(host, record, asked)) {
      return cappedAnswer(response);
    }
    waitFor(record, asked);
    const cause = new HTTPError(response, request, options);
    return ky.retry({ delay: asked, code: `HTTP ${response.status}`, cause });
  };
}

/** Told after the wait, as the retry starts: the metrics and the log hear of it. */
function retrying(host: HostOptions): BeforeRetryHook {
  return ({ options, error, retryCount }) => {
    const record = recordOf(options.context);
    record.unanswered ||= leftInDoubt(error, record.changes);
    attemptStarts(host, record);
    host.observe?.cometchatRetry(record.operation);
    if (statusOf(error) === 429) host.observe?.cometchatRateLimited(record.operation);
    record.log.warn(
      { retryCount, cause: causeOf(error), waitedMs: Math.round(record.waitedMs) },
      'retrying CometChat request',
    );
  };
}

/** An attempt starting with less than `timeoutMs` left is cut short by the budget. */
function attemptStarts(host: HostOptions, record: RequestRecord): void {
  record.byBudget = host.budgetMs - record.elapsedMs() < host.timeoutMs;
}

/** While ky waits to retry, a timeout can only be the budget's. */
function waitFor(record: RequestRecord, ms: number): number {
  record.waitedMs = ms;
  record.byBudget = true;
  return ms;
}

/** Whether a wait of `ms` and one more attempt still fit in the budget, on the client's clock. */
function fits(host: HostOptions, record: RequestRecord, ms: number): boolean {
  return ms + MIN_ATTEMPT_MS < record.deadline - host.now();
}

function serverWait(host: HostOptions, response: Response): number | undefined {
  return SERVER_WAIT_STATUSES.includes(response.status)
    ? serverWaitMs(response.headers, host.now)
    : undefined;
}
