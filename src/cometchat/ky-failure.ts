import {
  isForceRetryError,
  isHTTPError,
  isTimeoutError,
  SchemaValidationError,
  type StandardSchemaV1Issue,
} from 'ky';
import { systemCodeOf } from '../error-cause.ts';
import { AnswerTooLarge } from './answer-cap.ts';
import {
  CometChatError,
  type CometChatErrorInit,
  isMisaddressed,
  kindForStatus,
} from './errors.ts';
import type { RequestRecord } from './request-record.ts';
import { ErrorBodySchema } from './schemas.ts';
import { serverWaitMs } from './server-wait.ts';

// How what ky throws becomes the app's CometChatError. Done once where the request ends
// (send.ts) rather than in ky's `beforeError` hook: ky does not hand that hook what fails while
// the body is read or checked against its schema (too large, not JSON, not of the shape).

const MAX_ERROR_BODY = 64 * 1024;

/**
 * A failure as the app's error: an answer outside 2xx (ky's HTTPError, its body already read), a
 * timeout (which of ky's two, the record knows), a body that is not JSON or not of the documented
 * shape, or a connection that failed.
 */
export function toCometChatError(
  error: unknown,
  record: RequestRecord,
  withoutSecrets: (text: string) => string,
  now: () => number,
): CometChatError {
  const tooLarge = answerTooLarge(error);
  const unreadable =
    error instanceof SyntaxError ||
    error instanceof SchemaValidationError ||
    tooLarge !== undefined;
  const fail = (init: Omit<CometChatErrorInit, 'ref' | 'operation'>) =>
    new CometChatError({
      ...init,
      ref: record.ref,
      operation: record.operation,
      mayHaveReached: record.unanswered || unreadable || leftInDoubt(error, record.changes),
      address: record.address,
    });
  if (isHTTPError(error)) return fail(answered(error.response, error.data, withoutSecrets, now));
  if (isTimeoutError(error)) {
    return fail({
      kind: 'timeout',
      detail: record.byBudget ? 'time budget exhausted' : 'attempt timed out',
    });
  }
  if (tooLarge) {
    return fail({ kind: 'invalid_response', status: tooLarge.status, detail: tooLarge.message });
  }
  if (error instanceof SyntaxError) {
    return fail({ kind: 'invalid_response', status: record.status, detail: 'body is not JSON' });
  }
  if (error instanceof SchemaValidationError) {
    const detail = error.issues.slice(0, 3).map(describeIssue).join('; ');
    return fail({ kind: 'invalid_response', status: record.status, detail });
  }
  const code = systemCodeOf(error);
  return fail({
    kind: isMisaddressed(undefined, code) ? 'misaddressed' : 'unavailable',
    detail: withoutSecrets(causeOf(error)),
  });
}

/** An answer outside 2xx: its status, the service's words and the wait it asked for. */
function answered(
  { status, headers }: Response,
  data: unknown,
  withoutSecrets: (text: string) => string,
  now: () => number,
): Omit<CometChatErrorInit, 'ref' | 'operation'> {
  const body = serviceError(data, withoutSecrets);
  const waitMs = serverWaitMs(headers, now);
  return {
    kind: isMisaddressed(status, body?.code) ? 'misaddressed' : kindForStatus(status),
    status,
    serviceCode: body?.code,
    serviceMessage: body?.message,
    details: body?.details,
    retryAfterSeconds: waitMs === undefined ? undefined : waitMs / 1000,
    detail: body ? undefined : 'no error body',
  };
}

/**
 * The service's error body, its words without any secret. ky has read it: parsed when the answer
 * said JSON, else text (a proxy's page, or JSON sent under another type).
 */
function serviceError(data: unknown, withoutSecrets: (text: string) => string) {
  if (data === undefined) return undefined;
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  try {
    const parsed = ErrorBodySchema.safeParse(
      JSON.parse(withoutSecrets(text.slice(0, MAX_ERROR_BODY))),
    );
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** `data.permissions: expected record...`: where in the body, and what zod said of it. */
function describeIssue(issue: StandardSchemaV1Issue): string {
  const path = (issue.path ?? [])
    .map((step) => String(typeof step === 'object' ? step.key : step))
    .join('.');
  return `${path || '(root)'}: ${issue.message}`;
}

/** The cap's error, however the body's reading wrapped it (fetch gives a stream's error as is). */
function answerTooLarge(error: unknown): AnswerTooLarge | undefined {
  for (let link = error; link instanceof Error; link = link.cause) {
    if (link instanceof AnswerTooLarge) return link;
  }
  return undefined;
}

/**
 * Whether an attempt's failure leaves open that the service carried it out: no answer after it
 * may have been sent, or for a change a gateway's 502 or 504 (the service behind it may have
 * finished after the gateway gave up).
 */
export function leftInDoubt(error: unknown, changes: boolean): boolean {
  const status = statusOf(error);
  return leftUnanswered(error) || (changes && (status === 502 || status === 504));
}

/** A short, secret-free description of why an attempt failed (never the request or options). */
export function causeOf(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${status}`;
  if (isTimeoutError(error)) return 'attempt timed out';
  return systemCodeOf(error, CAUSE_DEPTH) ?? withoutPaths(innermost(error));
}

/** A URL in a failure's words: its origin, and its path up to a space or a closing mark. */
const URL_WITH_PATH = /\b(https?:\/\/[^/\s]+)\/[^\s)"'>]*/gi;

/**
 * An error's words with only the origin of any URL in them (ky's and some fetches' name the
 * request's URL): a path names users, and one revoking a session holds its auth token, a
 * credential. Traces keep the origin alone for the same reason (observe/tracing.ts).
 */
export function withoutPaths(text: string): string {
  return text.replace(URL_WITH_PATH, '$1/[path]');
}

/** The status of the answer that failed, if one came (a forced retry carries it as its cause). */
export function statusOf(error: unknown): number | undefined {
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
function leftUnanswered(error: unknown): boolean {
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
