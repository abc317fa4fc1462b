/**
 * What can go wrong when calling the CometChat REST API, as a small closed set of kinds.
 * The Slack layer turns each kind into one sentence for the user; the log keeps the detail.
 *
 * None of these errors keeps a reference to the HTTP client's request or options: those hold
 * the `apikey` header, and an error object tends to end up in a log line.
 */
export type CometChatErrorKind =
  | 'unauthorized' // 401, 403: the key is missing, wrong, or lacks the full-access scope
  | 'not_found' // 404: unknown role, call session or uid
  | 'rate_limited' // 429 that did not clear within the time budget
  | 'bad_request' // 400: the service rejected what we sent
  | 'unavailable' // 5xx, connection refused or reset
  | 'timeout' // no answer within the per-attempt timeout or the total budget
  | 'invalid_response' // a 2xx body that is not JSON or does not match the documented shape
  | 'misaddressed'; // the address is wrong: no such host, nothing listening, no such route

export interface CometChatErrorInit {
  kind: CometChatErrorKind;
  ref: string;
  operation: string;
  status?: number | undefined;
  serviceCode?: string | undefined;
  serviceMessage?: string | undefined;
  details?: Record<string, unknown> | undefined;
  retryAfterSeconds?: number | undefined;
  /** A short description of the underlying cause (e.g. `ECONNRESET`, a zod issue summary). */
  detail?: string | undefined;
  /** The configured app the request was for, when several are configured. */
  app?: FailedApp | undefined;
  /** Which of the app's two addresses the request went to: the REST API's or the calls'. */
  address?: CometChatAddress | undefined;
  /**
   * Whether the service may have carried the request out: an attempt went unanswered after it
   * may have been sent (a timeout, a broken connection), or a 2xx answer could not be read.
   */
  mayHaveReached?: boolean | undefined;
}

/** Which of several configured apps a failure belongs to, and how its settings are named. */
export interface FailedApp {
  name: string;
  /** What its settings begin with (`COMETCHAT_PROD_`: its key is COMETCHAT_PROD_API_KEY). */
  settingPrefix: string;
}

export type CometChatAddress = 'api' | 'call';

export class CometChatError extends Error {
  override readonly name = 'CometChatError';
  readonly kind: CometChatErrorKind;
  /** The reference id shown to the user and bound to every log line of the request. */
  readonly ref: string;
  readonly operation: string;
  readonly status: number | undefined;
  readonly serviceCode: string | undefined;
  readonly serviceMessage: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly detail: string | undefined;
  readonly app: FailedApp | undefined;
  readonly address: CometChatAddress | undefined;
  readonly mayHaveReached: boolean;

  constructor(init: CometChatErrorInit) {
    super(describe(init));
    this.kind = init.kind;
    this.ref = init.ref;
    this.operation = init.operation;
    this.status = init.status;
    this.serviceCode = init.serviceCode;
    this.serviceMessage = init.serviceMessage;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.detail = init.detail;
    this.app = init.app;
    this.address = init.address;
    this.mayHaveReached = init.mayHaveReached ?? false;
  }

  /** The same failure, said to belong to `app`. */
  forApp(app: FailedApp): CometChatError {
    return new CometChatError({ ...this, app });
  }
}

function describe(init: CometChatErrorInit): string {
  const parts = [`${init.operation}: ${init.kind}`];
  if (init.status !== undefined) parts.push(`HTTP ${init.status}`);
  if (init.serviceCode) parts.push(init.serviceCode);
  if (init.serviceMessage) parts.push(init.serviceMessage);
  if (init.detail) parts.push(init.detail);
  return `${parts.join(' - ')} (ref ${init.ref})`;
}

export function isCometChatError(error: unknown): error is CometChatError {
  return error instanceof CometChatError;
}

/**
 * Whether a failure says the address is wrong rather than the service down: a host name that
 * does not resolve, nothing listening there, or a 404 for the route itself (no CometChat error
 * of a missing role, call or user, but none, or the service's "no such resource").
 */
export function isMisaddressed(status: number | undefined, code: string | undefined): boolean {
  if (status === undefined) return code === 'ENOTFOUND' || code === 'ECONNREFUSED';
  return status === 404 && (code === undefined || code === 'ERR_NOT_FOUND');
}

/** Maps an HTTP status of a failed response to its kind. */
export function kindForStatus(status: number): CometChatErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'bad_request';
}
