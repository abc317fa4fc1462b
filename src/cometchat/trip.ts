import ky, {
  type AfterResponseState,
  type BeforeRetryState,
  HTTPError,
  isForceRetryError,
  isHTTPError,
  isTimeoutError,
  type Options,
  type ShouldRetryState,
} from 'ky';
import type { Logger } from 'pino';
import { systemCodeOf } from '../error-cause.ts';
import { cappedAnswer } from './answer-cap.ts';
import type { CometChatError } from './errors.ts';
import { backoff } from './ky-instance.ts';
import { type CometChatObserver, statusClassOf } from './observer.ts';
import { serverWaitMs } from './server-wait.ts';

/** Time an attempt needs at the least to be worth starting. */
const MIN_ATTEMPT_MS = 50;
/** Statuses whose wait (`Retry-After` and the like) is honoured, when it fits in the budget. */
const SERVER_WAIT_STATUSES = [429, 503];

/** What every trip of one client shares. */
export interface TripSettings {
  timeoutMs: number;
  budgetMs: number;
  retryLimit: number;
  /** The clock the budget's waits are judged by. */
  now: () => number;
  /** A number in [0, 1) for the back-off's jitter. */
  random: () => number;
  observe?: CometChatObserver | undefined;
}

/**
 * One request's way through ky: whom it is for (reference, operation, logger), where it stands
 * in its budget, and what it tells the metrics and the log. Its part of ky's options
 * (`kyOptions`) holds what ky cannot know from the host's instance: the client's clock, the
 * random source and this request's start.
 */
export class Trip {
  /** The end of the budget on the client's clock. */
  private readonly deadline: number;
  /** The start in real time, as ky's `totalTimeout` counts it (ky starts a moment later). */
  private readonly started = performance.now();
  /**
   * In an attempt timed by its own `timeout`, in one that what is left of the budget cuts
   * short, or waiting to retry: which of ky's timeouts a TimeoutError comes from.
   */
  private stage: 'attempt' | 'attempt cut short' | 'waiting' = 'attempt';
  /** The wait ky was given before the coming retry. */
  private wait = 0;
  /** The status of the latest answer. */
  status: number | undefined;
  /** Whether an attempt before the last went unanswered after it may have been sent. */
  private unanswered = false;
  private child: Logger | undefined;

  constructor(
    readonly ref: string,
    readonly operation: string,
    private readonly parent: Logger,
    private readonly settings: TripSettings,
    /**
     * The request changes something (a PUT, the DELETE that deactivates): a gateway's failure
     * does not say it did not.
     */
    private readonly changes = false,
  ) {
    this.deadline = settings.now() + settings.budgetMs;
  }

  kyOptions(): Options {
    return {
      retry: {
        shouldRetry: (state) => this.shouldRetry(state),
        jitter: (delay) => this.jitter(delay),
      },
      hooks: {
        beforeRequest: [() => this.attemptStarts()],
        afterResponse: [(state) => this.afterResponse(state)],
        beforeRetry: [(state) => this.beforeRetry(state)],
      },
    };
  }

  /**
   * Whether the service may have carried the request out, given what ended its last attempt: an
   * earlier attempt or this one went unanswered after it may have been sent, or this one is an
   * answer in 2xx that could not be read (`answeredUnreadably`).
   */
  mayHaveReached(lastError: unknown, answeredUnreadably: boolean): boolean {
    return this.unanswered || answeredUnreadably || this.leftInDoubt(lastError);
  }

  /**
   * Whether an attempt's failure leaves open that the service carried it out: no answer after
   * it may have been sent, or for a change a gateway's 502 or 504 (the service behind it may
   * have finished after the gateway gave up).
   */
  private leftInDoubt(error: unknown): boolean {
    const status = statusOf(error);
    return leftUnanswered(error) || (this.changes && (status === 502 || status === 504));
  }

  /** Whether ky's `totalTimeout`, not an attempt's own `timeout`, ended the request. */
  endedByBudget(): boolean {
    return this.stage !== 'attempt';
  }

  succeeded(): void {
    this.settings.observe?.cometchatRequest(
      this.operation,
      statusClassOf(this.status),
      this.elapsed() / 1000,
    );
    if (this.parent.isLevelEnabled('debug')) {
      this.log().debug({ status: this.status, ms: this.elapsed() }, 'CometChat request done');
    }
  }

  failed(failure: CometChatError): void {
    const { kind, status } = failure;
    this.settings.observe?.cometchatRequest(
      this.operation,
      statusClassOf(status, kind),
      this.elapsed() / 1000,
    );
    if (status === 429) this.settings.observe?.cometchatRateLimited(this.operation);
    this.log().warn(
      { kind, status, code: failure.serviceCode, cause: failure.detail, ms: this.elapsed() },
      kind === 'invalid_response' ? 'CometChat response rejected' : 'CometChat request failed',
    );
  }

  /**
   * A 429 or 503 asking for a wait that fits is retried after exactly that wait: ky's forced
   * retry, which takes no jitter or back-off. Any other answer is left to ky's own rules, read
   * through the cap on an answer's size (one hook for both: ky clones the answer for each).
   */
  private afterResponse({ request, options, response, retryCount }: AfterResponseState) {
    this.status = response.status;
    const asked = this.serverWait(response);
    // At the limit ky would throw the forced retry itself, without the answer and its body.
    if (asked === undefined || retryCount >= this.settings.retryLimit || !this.fits(asked)) {
      return cappedAnswer(response);
    }
    this.waitFor(asked);
    const cause = new HTTPError(response, request, options);
    return ky.retry({ delay: asked, code: `HTTP ${response.status}`, cause });
  }

  /**
   * Asked before ky retries by its own rules (the statuses, timeouts, network failures): not
   * when the wait would leave no time for an attempt. ky draws the jitter after asking, so the
   * back-off is judged at its longest. A wait asked for that does not fit (no forced retry was
   * made for it) is refused here too, and its answer surfaces at once.
   */
  private shouldRetry({ error, retryCount }: ShouldRetryState): false | undefined {
    const asked = isHTTPError(error) ? this.serverWait(error.response) : undefined;
    return this.fits(asked ?? backoff(retryCount)) ? undefined : false;
  }

  /** Half to all of the back-off, so that replicas do not retry in step. */
  private jitter(delay: number): number {
    return this.waitFor(delay * (0.5 + this.settings.random() / 2));
  }

  /** Told after the wait, as the retry starts. */
  private beforeRetry({ error, retryCount }: BeforeRetryState): void {
    this.unanswered ||= this.leftInDoubt(error);
    this.attemptStarts();
    this.settings.observe?.cometchatRetry(this.operation);
    if (statusOf(error) === 429) this.settings.observe?.cometchatRateLimited(this.operation);
    this.log().warn(
      { retryCount, cause: causeOf(error), waitedMs: Math.round(this.wait) },
      'retrying CometChat request',
    );
  }

  private attemptStarts(): void {
    const left = this.settings.budgetMs - this.elapsed();
    this.stage = left < this.settings.timeoutMs ? 'attempt cut short' : 'attempt';
  }

  private waitFor(ms: number): number {
    this.wait = ms;
    this.stage = 'waiting';
    return ms;
  }

  /** Whether a wait of `ms` and one more attempt still fit in the budget, on the client's clock. */
  private fits(ms: number): boolean {
    return ms + MIN_ATTEMPT_MS < this.deadline - this.settings.now();
  }

  private serverWait(response: Response): number | undefined {
    return SERVER_WAIT_STATUSES.includes(response.status)
      ? serverWaitMs(response.headers, this.settings.now)
      : undefined;
  }

  /**
   * Made when first needed (a retry, a failure, debug level): most requests log nothing, and a
   * child logger serialises its bindings as it is made. A request logger from the Slack layer
   * already carries the ref; it is bound only once. A request under another reference (a role
   * list shared by concurrent requests) keeps the logger's and names its own as `upstreamRef`,
   * as the error handler does: a line holds one `ref`.
   */
  private log(): Logger {
    const { parent, ref, operation } = this;
    const carried = parent.bindings().ref;
    this.child ??= parent.child(
      carried === undefined
        ? { ref, operation }
        : carried === ref
          ? { operation }
          : { upstreamRef: ref, operation },
    );
    return this.child;
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }
}

/** A short, secret-free description of why an attempt failed (never the request or options). */
export function causeOf(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${status}`;
  if (isTimeoutError(error)) return 'attempt timed out';
  return systemCodeOf(error, CAUSE_DEPTH) ?? innermost(error);
}

/** The status of the answer that failed, if one came (a forced retry carries it as its cause). */
function statusOf(error: unknown): number | undefined {
  if (isForceRetryError(error)) return statusOf(error.cause);
  return isHTTPError(error) ? error.response.status : undefined;
}

/** Connection failures that happen before a byte of the request is sent. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether an attempt ended with no answer after the request may have reached the service: a
 * timeout, or a connection that failed other than before sending (refused, no such host).
 */
export function leftUnanswered(error: unknown): boolean {
  if (statusOf(error) !== undefined) return false;
  if (isTimeoutError(error)) return true;
  const code = systemCodeOf(error, CAUSE_DEPTH);
  return code === undefined || !NEVER_SENT.has(code);
}

/** How deep to look into the causes ky and fetch wrap a failure in. */
const CAUSE_DEPTH = 4;

/** The message of the deepest cause: fetch's `fetch failed` says less than what it wraps. */
function innermost(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  let deepest = error;
  for (let depth = 0; depth < CAUSE_DEPTH && deepest.cause instanceof Error; depth += 1) {
    deepest = deepest.cause;
  }
  return deepest.message;
}
