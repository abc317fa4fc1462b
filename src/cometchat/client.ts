import { randomBytes } from 'node:crypto';
import ky, { HTTPError, type KyInstance, type Options, TimeoutError } from 'ky';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { type Metrics, statusClassOf } from '../observe/metrics.ts';
import { CometChatError, type CometChatErrorKind, kindForStatus } from './errors.ts';
import { fitsHeader } from './header-value.ts';
import {
  type Call,
  type CallPage,
  type CallQuery,
  type PermissionUpdate,
  type Role,
  type RolePage,
  toCall,
  toCallPage,
  toPermissionUpdate,
} from './model.ts';
import {
  CallListResponseSchema,
  CallResponseSchema,
  ErrorBodySchema,
  type PermissionMap,
  PermissionUpdateResponseSchema,
  RoleListResponseSchema,
} from './schemas.ts';

export interface CometChatClientOptions {
  /** Role API address without `/v3`. */
  apiUrl: string;
  /** Call API address without `/v3`. */
  callApiUrl: string;
  apiKey: string;
  /** Per attempt. */
  timeoutMs: number;
  /** All attempts and back-off waits together. */
  budgetMs: number;
  logger: Logger;
  /** Retries after the first attempt (default 3). */
  retryLimit?: number;
  fetch?: typeof fetch;
  newRef?: () => string;
  /** The clock the time budget and server-given waits are judged by (default `Date.now`). */
  now?: () => number;
  /** A number in [0, 1) for the back-off jitter (default `Math.random`). */
  random?: () => number;
  /** Told of every request's duration and status, each retry and each 429 (metrics). */
  observe?: Pick<Metrics, 'cometchatRequest' | 'cometchatRetry' | 'cometchatRateLimited'>;
}

export interface RequestOptions {
  /** Reference id shared with the user-facing reply and the logs; one is made if absent. */
  ref?: string | undefined;
  logger?: Logger | undefined;
}

export interface CometChatClient {
  listRoles(
    query?: { page?: number; perPage?: number },
    options?: RequestOptions,
  ): Promise<RolePage>;
  /** Every role, page by page (`perPage` default 100: one page holds the service's 25 at most). */
  listAllRoles(options?: RequestOptions & { perPage?: number | undefined }): Promise<Role[]>;
  setRolePermissions(
    role: string,
    permissions: PermissionMap,
    options?: RequestOptions,
  ): Promise<PermissionUpdate>;
  getCall(
    sessionId: string,
    options?: RequestOptions & { onBehalfOf?: string | undefined },
  ): Promise<Call>;
  /** One page of the calls that match, newest first. */
  listCalls(
    query: CallQuery,
    options?: RequestOptions & { onBehalfOf?: string | undefined },
  ): Promise<CallPage>;
}

/** Statuses worth another attempt: the request may well succeed a moment later. */
const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
/** Statuses whose `Retry-After` we honour (when it fits in the budget). */
const RETRY_AFTER_STATUSES = [429, 503];
/** Time an attempt needs at the least to be worth starting. */
const MIN_ATTEMPT_MS = 50;
const MAX_ERROR_BODY = 64 * 1024;

export function newReference(): string {
  // Short enough to read out on a call, long enough not to collide in a day of logs.
  return randomBytes(5).toString('hex');
}

const backoff = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 2_000);

export function createCometChatClient(options: CometChatClientOptions): CometChatClient {
  const newRef = options.newRef ?? newReference;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const common: Options = {
    timeout: options.timeoutMs,
    headers: { apikey: options.apiKey, accept: 'application/json' },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  // A service may echo what it was sent (`the apikey ... is not valid`): its words are shown to
  // people and logged, so the key's value is taken out of them first.
  const withoutKey = (text: string) =>
    options.apiKey.length > 0 ? text.split(options.apiKey).join('[redacted]') : text;
  // One instance per host (the live service has two).
  const roleApi = ky.create({ ...common, prefixUrl: `${options.apiUrl}/v3` });
  const callApi = ky.create({ ...common, prefixUrl: `${options.callApiUrl}/v3` });

  async function send<S extends z.ZodType>(
    api: KyInstance,
    operation: string,
    path: string,
    init: Options,
    schema: S,
    request: RequestOptions,
  ): Promise<z.infer<S>> {
    const ref = request.ref ?? newRef();
    // A request logger from the Slack layer already carries the ref; bind it only once.
    const parent = request.logger ?? options.logger;
    const log = parent.child(parent.bindings().ref === ref ? { operation } : { ref, operation });
    const deadline = now() + options.budgetMs;
    const started = performance.now();
    // The wait before the next attempt, chosen once (jitter included) when deciding to retry,
    // so that the budget is judged by the wait ky then really makes.
    let wait = 0;
    const fail = (
      init: Omit<ConstructorParameters<typeof CometChatError>[0], 'ref' | 'operation'>,
    ) => new CometChatError({ ...init, ref, operation });

    let response: Response;
    try {
      response = await api(path, {
        ...init,
        signal: AbortSignal.timeout(options.budgetMs),
        retry: {
          limit: options.retryLimit ?? 3,
          methods: ['get', 'put'],
          statusCodes: RETRY_STATUSES,
          // Retry-After is read by waitBefore, not by ky: one computation, on the client's clock.
          afterStatusCodes: [],
          delay: () => wait,
          retryOnTimeout: true,
          shouldRetry: ({ error, retryCount }) => {
            wait = waitBefore(error, retryCount, random, now);
            // undefined: ky goes on to its own checks (method, status, timeout).
            return wait + MIN_ATTEMPT_MS < deadline - now() ? undefined : false;
          },
        },
        hooks: {
          beforeRetry: [
            ({ error, retryCount }) => {
              options.observe?.cometchatRetry(operation);
              if (statusOf(error) === 429) options.observe?.cometchatRateLimited(operation);
              log.warn(
                { retryCount, cause: causeOf(error), waitedMs: Math.round(wait) },
                'retrying CometChat request',
              );
            },
          ],
        },
      });
    } catch (error) {
      const failure = await translate(error, fail, withoutKey, now);
      options.observe?.cometchatRequest(
        operation,
        statusClassOf(failure.status, failure.kind),
        elapsed(started) / 1000,
      );
      if (failure.status === 429) options.observe?.cometchatRateLimited(operation);
      log.warn(
        {
          kind: failure.kind,
          status: failure.status,
          code: failure.serviceCode,
          cause: failure.detail,
          ms: elapsed(started),
        },
        'CometChat request failed',
      );
      throw failure;
    }

    options.observe?.cometchatRequest(
      operation,
      statusClassOf(response.status),
      elapsed(started) / 1000,
    );
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw logged(
        log,
        fail({ kind: 'invalid_response', status: response.status, detail: 'body is not JSON' }),
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      throw logged(log, fail({ kind: 'invalid_response', status: response.status, detail }));
    }
    log.debug({ status: response.status, ms: elapsed(started) }, 'CometChat request done');
    return parsed.data;
  }

  const client: CometChatClient = {
    async listRoles(query = {}, request = {}) {
      const searchParams: Record<string, number> = {};
      if (query.page !== undefined) searchParams.page = query.page;
      if (query.perPage !== undefined) searchParams.perPage = query.perPage;
      const body = await send(
        roleApi,
        'listRoles',
        'roles',
        { method: 'get', searchParams },
        RoleListResponseSchema,
        request,
      );
      return { roles: body.data, pagination: body.meta.pagination };
    },

    async listAllRoles({ perPage = 100, ...request } = {}) {
      const shared = { ...request, ref: request.ref ?? newRef() };
      // `client`, not `this`: a caller may well pass the method around on its own.
      const first = await client.listRoles({ page: 1, perPage }, shared);
      const rest = await Promise.all(
        Array.from({ length: Math.max(0, first.pagination.total_pages - 1) }, (_, i) =>
          client.listRoles({ page: i + 2, perPage: first.pagination.per_page }, shared),
        ),
      );
      return [first, ...rest].flatMap((page) => page.roles);
    },

    async setRolePermissions(role, permissions, request = {}) {
      const path = `roles/${segment(role, 'role', 'setRolePermissions', request, newRef)}/permissions`;
      const body = await send(
        roleApi,
        'setRolePermissions',
        path,
        { method: 'put', json: { permissions } },
        PermissionUpdateResponseSchema,
        request,
      );
      return toPermissionUpdate(body.data);
    },

    async getCall(sessionId, request = {}) {
      const path = `calls/${segment(sessionId, 'session id', 'getCall', request, newRef)}`;
      const headers = onBehalfHeaders(request, 'getCall', newRef);
      const body = await send(
        callApi,
        'getCall',
        path,
        { method: 'get', headers },
        CallResponseSchema,
        request,
      );
      const record = Array.isArray(body.data) ? body.data[0] : body.data;
      if (!record) {
        throw new CometChatError({
          kind: 'not_found',
          ref: request.ref ?? newRef(),
          operation: 'getCall',
          status: 200,
          detail: 'the service answered with no call record',
        });
      }
      return toCall(record);
    },

    async listCalls(query, request = {}) {
      const headers = onBehalfHeaders(request, 'listCalls', newRef);
      const body = await send(
        callApi,
        'listCalls',
        'calls',
        { method: 'get', headers, searchParams: callSearchParams(query) },
        CallListResponseSchema,
        request,
      );
      return toCallPage(body, query);
    },
  };
  return client;
}

/**
 * The `onBehalfOf` header, when asked for. fetch throws a TypeError for a header it cannot send,
 * which would read as a network failure (and be retried): it is refused before any request.
 */
function onBehalfHeaders(
  request: RequestOptions & { onBehalfOf?: string | undefined },
  operation: string,
  newRef: () => string,
): Record<string, string> {
  if (!request.onBehalfOf) return {};
  if (!fitsHeader(request.onBehalfOf)) {
    throw new CometChatError({
      kind: 'bad_request',
      ref: request.ref ?? newRef(),
      operation,
      detail: 'the uid cannot be sent in a header (Latin-1 characters only)',
    });
  }
  return { onBehalfOf: request.onBehalfOf };
}

/** The list's filters as query parameters: only those asked for, booleans as `true`/`false`. */
export function callSearchParams(query: CallQuery): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const key of ['uid', 'status', 'type', 'mode', 'receiverType'] as const) {
    const value = query[key];
    if (value !== undefined) params[key] = value;
  }
  for (const key of ['hasRecording', 'hasTranscription'] as const) {
    const value = query[key];
    if (value !== undefined) params[key] = String(value);
  }
  if (query.startedAt !== undefined) params.startedAt = query.startedAt;
  if (query.endedAt !== undefined) params.endedAt = query.endedAt;
  params.page = query.page;
  params.perPage = query.perPage;
  return params;
}

/** With the `u` flag a surrogate pair is one code point, so only unpaired halves match. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * An id as one path segment: percent-encoded so that `/`, `?`, `#`, spaces and unicode stay
 * inside it. `.` and `..` would still be read as dot segments by URL parsing (even encoded),
 * so they are refused before any request is made.
 */
function segment(
  id: string,
  what: string,
  operation: string,
  request: RequestOptions,
  newRef: () => string,
): string {
  const refuse = (why: string) =>
    new CometChatError({
      kind: 'bad_request',
      ref: request.ref ?? newRef(),
      operation,
      detail: `the ${what} ${why}`,
    });
  if (id === '' || id === '.' || id === '..') throw refuse('is empty or a dot segment');
  // encodeURIComponent throws a URIError on a lone UTF-16 surrogate (possible from a JSON
  // `\ud800` escape); no id of the service can hold one.
  if (LONE_SURROGATE.test(id)) throw refuse('is not well-formed text');
  return encodeURIComponent(id);
}

/**
 * The wait before retry number `retryCount`: what the service asked for on a 429 or 503, else
 * the back-off with jitter (half to all of it, so that replicas do not retry in step).
 */
function waitBefore(
  error: Error,
  retryCount: number,
  random: () => number,
  now: () => number,
): number {
  if (error instanceof HTTPError && RETRY_AFTER_STATUSES.includes(error.response.status)) {
    const asked = serverWaitMs(error.response, now);
    if (asked !== undefined) return asked;
  }
  return backoff(retryCount) * (0.5 + random() / 2);
}

/**
 * Headers read, first present wins, for the wait a 429 or 503 asks for (the ones ky knows):
 * CometChat sends `X-Rate-Limit-Reset` beside `Retry-After`, and a 429 with only the former
 * must not be waited for past the budget either.
 */
const WAIT_HEADERS = [
  'retry-after',
  'ratelimit-reset',
  'x-ratelimit-retry-after',
  'x-ratelimit-reset',
  'x-rate-limit-reset',
];
/** A wait this large (in ms) is a Unix timestamp (ky's reading, kept). */
const TIMESTAMP_FROM_MS = Date.parse('2024-01-01');

function serverWaitMs(response: Response, now: () => number): number | undefined {
  let header: string | null = null;
  for (const name of WAIT_HEADERS) {
    header = response.headers.get(name);
    if (header !== null) break;
  }
  if (!header) return undefined;
  let ms = Number(header) * 1000;
  if (Number.isNaN(ms)) ms = Date.parse(header) - now();
  else if (ms >= TIMESTAMP_FROM_MS) ms -= now();
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
}

function retryAfterSeconds(response: Response, now: () => number): number | undefined {
  const ms = serverWaitMs(response, now);
  return ms === undefined ? undefined : ms / 1000;
}

async function translate(
  error: unknown,
  fail: (
    init: Omit<ConstructorParameters<typeof CometChatError>[0], 'ref' | 'operation'>,
  ) => CometChatError,
  withoutKey: (text: string) => string,
  now: () => number,
): Promise<CometChatError> {
  if (error instanceof CometChatError) return error;
  if (error instanceof HTTPError) {
    const status = error.response.status;
    const body = await readErrorBody(error.response, withoutKey);
    return fail({
      kind: kindForStatus(status),
      status,
      serviceCode: body?.code,
      serviceMessage: body?.message,
      details: body?.details,
      retryAfterSeconds: retryAfterSeconds(error.response, now),
      detail: body ? undefined : 'no error body',
    });
  }
  const kind: CometChatErrorKind = isTimeout(error) ? 'timeout' : 'unavailable';
  return fail({ kind, detail: causeOf(error) });
}

async function readErrorBody(response: Response, withoutKey: (text: string) => string) {
  try {
    const text = withoutKey((await response.text()).slice(0, MAX_ERROR_BODY));
    const parsed = ErrorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof TimeoutError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
  );
}

/** A short, secret-free description of a low-level failure (never the request or options). */
function causeOf(error: unknown): string {
  if (error instanceof HTTPError) return `HTTP ${error.response.status}`;
  if (error instanceof TimeoutError) return 'attempt timed out';
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    if (cause && typeof cause.code === 'string') return cause.code;
    if (error.name === 'TimeoutError' || error.name === 'AbortError')
      return 'time budget exhausted';
    if (cause && typeof cause.message === 'string') return cause.message;
    return error.message;
  }
  return 'unknown error';
}

function logged(log: Logger, error: CometChatError): CometChatError {
  log.warn(
    { kind: error.kind, status: error.status, cause: error.detail },
    'CometChat response rejected',
  );
  return error;
}

/** The HTTP status of a failed attempt, when there was an answer. */
function statusOf(error: unknown): number | undefined {
  return error instanceof HTTPError ? error.response.status : undefined;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
