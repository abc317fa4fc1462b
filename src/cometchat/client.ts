import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  type Answer,
  type Exchange,
  ExchangeTimeout,
  exchange as httpExchange,
  succeeded,
} from '../http.ts';
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
  /** One HTTP exchange (default: node:http, src/http.ts). */
  exchange?: (request: Exchange) => Promise<Answer>;
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
  // Ten hex digits (40 random bits) of a v4 UUID, which Node draws from a cached pool: every
  // request gets one, and randomBytes asked the system each time.
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(9, 11);
}

const backoff = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 2_000);

export function createCometChatClient(options: CometChatClientOptions): CometChatClient {
  const newRef = options.newRef ?? newReference;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const transport = options.exchange ?? httpExchange;
  const headers = { apikey: options.apiKey, accept: 'application/json' };
  // A service may echo what it was sent (`the apikey ... is not valid`): its words are shown to
  // people and logged, so the key's value is taken out of them first.
  const withoutKey = (text: string) =>
    options.apiKey.length > 0 ? text.split(options.apiKey).join('[redacted]') : text;
  // The live service has two hosts.
  const roleApi = `${options.apiUrl}/v3/`;
  const callApi = `${options.callApiUrl}/v3/`;

  async function send<S extends z.ZodType>(
    api: string,
    operation: string,
    path: string,
    init: Outgoing,
    schema: S,
    request: RequestOptions,
  ): Promise<z.infer<S>> {
    const ref = request.ref ?? newRef();
    // A request logger from the Slack layer already carries the ref; bind it only once.
    const parent = request.logger ?? options.logger;
    // Made when first needed (a retry, a failure, debug level): most requests log nothing, and a
    // child logger serialises its bindings as it is made.
    let child: Logger | undefined;
    const log = () =>
      (child ??= parent.child(parent.bindings().ref === ref ? { operation } : { ref, operation }));
    const deadline = now() + options.budgetMs;
    const started = performance.now();
    const fail = (
      init: Omit<ConstructorParameters<typeof CometChatError>[0], 'ref' | 'operation'>,
    ) => new CometChatError({ ...init, ref, operation });

    let response: Answer;
    try {
      response = await attempts({
        exchange: {
          method: init.method,
          url: api + path + queryOf(init.query),
          headers:
            init.json === undefined
              ? { ...headers, ...init.headers }
              : { ...headers, ...init.headers, 'content-type': 'application/json' },
          body: init.json === undefined ? undefined : JSON.stringify(init.json),
          readBody: true,
        },
        send: transport,
        timeoutMs: options.timeoutMs,
        budgetMs: options.budgetMs,
        retryLimit: options.retryLimit ?? 3,
        // Judged on the client's clock: a wait and one more attempt must fit in what is left.
        worthRetrying: (wait) => wait + MIN_ATTEMPT_MS < deadline - now(),
        waitBefore: (failure, retryCount) => waitBefore(failure, retryCount, random, now),
        beforeRetry: (failure, retryCount, wait) => {
          options.observe?.cometchatRetry(operation);
          if (statusOf(failure) === 429) options.observe?.cometchatRateLimited(operation);
          log().warn(
            { retryCount, cause: causeOf(failure), waitedMs: Math.round(wait) },
            'retrying CometChat request',
          );
        },
      });
    } catch (error) {
      const failure = translate(error, fail, withoutKey, now);
      options.observe?.cometchatRequest(
        operation,
        statusClassOf(failure.status, failure.kind),
        elapsed(started) / 1000,
      );
      if (failure.status === 429) options.observe?.cometchatRateLimited(operation);
      log().warn(
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
    let json: unknown;
    try {
      json = JSON.parse(response.text);
    } catch {
      throw logged(
        log(),
        fail({ kind: 'invalid_response', status: response.status, detail: 'body is not JSON' }),
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      throw logged(log(), fail({ kind: 'invalid_response', status: response.status, detail }));
    }
    if (parent.isLevelEnabled('debug')) {
      log().debug({ status: response.status, ms: elapsed(started) }, 'CometChat request done');
    }
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
        { method: 'GET', query: searchParams },
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
        { method: 'PUT', json: { permissions } },
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
        { method: 'GET', headers },
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
        { method: 'GET', headers, query: callSearchParams(query) },
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

/** What `send` asks of the service. */
interface Outgoing {
  method: 'GET' | 'PUT';
  headers?: Record<string, string>;
  query?: Record<string, string | number>;
  /** Sent as JSON, with its content type. */
  json?: unknown;
}

function queryOf(query: Record<string, string | number> | undefined): string {
  if (query === undefined) return '';
  const text = new URLSearchParams(
    Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();
  return text === '' ? '' : `?${text}`;
}

/** An answer outside 2xx. */
class StatusFailure extends Error {
  constructor(readonly answer: Answer) {
    super(`HTTP ${answer.status}`);
  }
}

/** The request's whole time budget ran out (real time, whatever the client's clock says). */
class BudgetExhausted extends Error {
  constructor() {
    super('time budget exhausted');
  }
}

interface AttemptPlan {
  exchange: Omit<Exchange, 'timeoutMs'>;
  send: (request: Exchange) => Promise<Answer>;
  /** Per attempt. */
  timeoutMs: number;
  /** Every attempt and wait together, in real time. */
  budgetMs: number;
  retryLimit: number;
  /** The wait before retry number `retryCount`. */
  waitBefore(failure: Error, retryCount: number): number;
  /** Whether a wait of `wait` and one more attempt still fit in the budget. */
  worthRetrying(wait: number): boolean;
  /** Told after the wait, as the retry starts. */
  beforeRetry(failure: Error, retryCount: number, wait: number): void;
}

/**
 * Attempts until the service answers in 2xx, retrying what may succeed a moment later (the
 * statuses in RETRY_STATUSES, a dropped or refused connection, an attempt that timed out) up to
 * `retryLimit` times, while a wait and another attempt fit in the budget. Throws what ended the
 * last attempt: a StatusFailure with the answer, the exchange's error, or BudgetExhausted.
 */
async function attempts(plan: AttemptPlan): Promise<Answer> {
  const began = performance.now();
  const left = () => plan.budgetMs - (performance.now() - began);
  for (let retryCount = 0; ; ) {
    const limit = Math.min(plan.timeoutMs, left());
    let failure: Error;
    try {
      const answer = await plan.send({ ...plan.exchange, timeoutMs: limit });
      if (succeeded(answer.status)) return answer;
      failure = new StatusFailure(answer);
    } catch (error) {
      // An attempt cut short by what was left of the budget: the budget is what ran out.
      if (error instanceof ExchangeTimeout && limit < plan.timeoutMs) throw new BudgetExhausted();
      failure = error instanceof Error ? error : new Error(String(error));
    }
    retryCount += 1;
    const retriable =
      !(failure instanceof StatusFailure) || RETRY_STATUSES.includes(failure.answer.status);
    if (retryCount > plan.retryLimit || !retriable) throw failure;
    const wait = plan.waitBefore(failure, retryCount);
    if (!plan.worthRetrying(wait)) throw failure;
    await sleep(Math.min(wait, Math.max(0, left())));
    if (left() <= 0) throw new BudgetExhausted();
    plan.beforeRetry(failure, retryCount, wait);
  }
}

/**
 * The wait before retry number `retryCount`: what the service asked for on a 429 or 503, else
 * the back-off with jitter (half to all of it, so that replicas do not retry in step).
 */
function waitBefore(
  failure: Error,
  retryCount: number,
  random: () => number,
  now: () => number,
): number {
  if (failure instanceof StatusFailure && RETRY_AFTER_STATUSES.includes(failure.answer.status)) {
    const asked = serverWaitMs(failure.answer, now);
    if (asked !== undefined) return asked;
  }
  return backoff(retryCount) * (0.5 + random() / 2);
}

/**
 * Headers read, first present wins, for the wait a 429 or 503 asks for: CometChat sends
 * `X-Rate-Limit-Reset` beside `Retry-After`, and a 429 with only the former must not be waited
 * for past the budget either.
 */
const WAIT_HEADERS = [
  'retry-after',
  'ratelimit-reset',
  'x-ratelimit-retry-after',
  'x-ratelimit-reset',
  'x-rate-limit-reset',
];
/** A wait this large (in ms) is a Unix timestamp. */
const TIMESTAMP_FROM_MS = Date.parse('2024-01-01');

function serverWaitMs(answer: Answer, now: () => number): number | undefined {
  let header: string | undefined;
  for (const name of WAIT_HEADERS) {
    const value = answer.headers[name];
    header = Array.isArray(value) ? value[0] : value;
    if (header !== undefined) break;
  }
  if (!header) return undefined;
  let ms = Number(header) * 1000;
  if (Number.isNaN(ms)) ms = Date.parse(header) - now();
  else if (ms >= TIMESTAMP_FROM_MS) ms -= now();
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
}

function retryAfterSeconds(answer: Answer, now: () => number): number | undefined {
  const ms = serverWaitMs(answer, now);
  return ms === undefined ? undefined : ms / 1000;
}

function translate(
  error: unknown,
  fail: (
    init: Omit<ConstructorParameters<typeof CometChatError>[0], 'ref' | 'operation'>,
  ) => CometChatError,
  withoutKey: (text: string) => string,
  now: () => number,
): CometChatError {
  if (error instanceof CometChatError) return error;
  if (error instanceof StatusFailure) {
    const { status } = error.answer;
    const body = readErrorBody(error.answer.text, withoutKey);
    return fail({
      kind: kindForStatus(status),
      status,
      serviceCode: body?.code,
      serviceMessage: body?.message,
      details: body?.details,
      retryAfterSeconds: retryAfterSeconds(error.answer, now),
      detail: body ? undefined : 'no error body',
    });
  }
  const timedOut = error instanceof ExchangeTimeout || error instanceof BudgetExhausted;
  const kind: CometChatErrorKind = timedOut ? 'timeout' : 'unavailable';
  return fail({ kind, detail: causeOf(error) });
}

function readErrorBody(text: string, withoutKey: (text: string) => string) {
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(withoutKey(text.slice(0, MAX_ERROR_BODY))));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** A short, secret-free description of a low-level failure (never the request or options). */
function causeOf(error: unknown): string {
  if (error instanceof StatusFailure) return `HTTP ${error.answer.status}`;
  if (error instanceof ExchangeTimeout) return 'attempt timed out';
  if (error instanceof BudgetExhausted) return 'time budget exhausted';
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    if (typeof code === 'string') return code;
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
  return error instanceof StatusFailure ? error.answer.status : undefined;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
