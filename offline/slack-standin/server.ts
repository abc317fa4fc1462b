import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { bearerToken, parseApiArguments } from './api-request.ts';
import { answerControl, type ControlRoutes } from './control-routes.ts';
import { receiveUpload, type StandInFile } from './file-uploads.ts';
import {
  type FunctionExecution,
  functionExecutedEvent,
  isWorkflowToken,
  type StepRun,
  startExecution,
} from './functions.ts';
import { createIdSource } from './ids.ts';
import { type IssuedResponseUrl, judgeResponsePost } from './response-url.ts';
import {
  createSocketModeHub,
  type DisconnectReason,
  type EnvelopeAck,
  type EnvelopeType,
  type RecordedAck,
} from './socket-mode.ts';
import { waitFor } from './wait-for.ts';
import {
  type ApiAnswer,
  applyViewResponse,
  createWebApiState,
  issueTrigger,
  type StandInUser,
  type StoredView,
  WEB_API_METHODS,
  type WebApiContext,
} from './web-api.ts';
import { DEFAULT_APP_TOKEN, DEFAULT_BOT_TOKEN } from './workspace.ts';

export type { StandInFile } from './file-uploads.ts';
export type { FunctionExecution, StepRun } from './functions.ts';
export type { EnvelopeAck, EnvelopeType, RecordedAck } from './socket-mode.ts';
export type { StandInUser, StoredView } from './web-api.ts';

export interface SlackStandInOptions {
  /** Loopback by default: the stand-in is for tests and the offline demo only. */
  host?: string;
  /** 0 (the default) picks a free port; read it back from `port` / `url`. */
  port?: number;
  botToken?: string;
  appToken?: string;
  /** Delay before each Web API and response_url answer, to play a slow Slack. */
  latencyMs?: number;
  /**
   * The clock for records and for Slack's expiries (trigger_id after 3 s, response_url after
   * 30 min); tests pass one they can move forward instead of waiting.
   */
  now?: () => number;
  /**
   * Also serve /standin/ (control-routes.ts): what a driver in another process needs to drive an
   * app against this stand-in (remote.ts). Off unless asked for.
   */
  controlRoutes?: boolean;
}

export interface WebApiCall {
  method: string;
  /** Parsed arguments; JSON-text fields such as `blocks` and `view` decoded to objects. */
  args: Record<string, unknown>;
  token: string | undefined;
  at: number;
  /** What the stand-in answered, once it has (a method it handled; not a failure it injected). */
  answer?: Record<string, unknown>;
}

export interface ResponseUrlPost {
  id: string;
  body: Record<string, unknown>;
  at: number;
}

export interface RefusedResponseUrlPost {
  id: string;
  status: number;
  reason: string;
  body: unknown;
  at: number;
}

export interface InjectedFailure {
  /** Answered as `{ ok: false, error }` with HTTP 200, as Slack reports method errors. */
  error?: string;
  /** An HTTP status instead: 429 (rate limited), 500, 503... */
  status?: number;
  /** Seconds for the `Retry-After` header; implies status 429 when no status is given. */
  retryAfter?: number;
  /** How many calls fail before the method works again; 1 by default, `Infinity` for ever. */
  times?: number;
}

export interface SlackStandIn {
  /** `http://host:port`, no trailing slash. */
  readonly url: string;
  /** `${url}/api/`: give it to WebClient / Bolt as `slackApiUrl`. */
  readonly apiUrl: string;
  readonly port: number;
  readonly botToken: string;
  readonly appToken: string;
  readonly calls: readonly WebApiCall[];
  /** Posts the stand-in accepted on its response_urls. */
  readonly responses: readonly ResponseUrlPost[];
  /** Posts it refused (used up, expired, injected failure, malformed). */
  readonly refusedResponses: readonly RefusedResponseUrlPost[];
  /** Every acknowledgement a Socket Mode client sent. */
  readonly acks: readonly RecordedAck[];
  /** Views opened, pushed or updated, by id, as last sent to the app. */
  readonly views: ReadonlyMap<string, StoredView>;
  /** Each user's Home tab as last published, by user id. */
  readonly homes: ReadonlyMap<string, StoredView>;
  /** Link cards the app sent (`chat.unfurl`): by `${channel}/${ts}` or unfurl id, then by url. */
  readonly unfurls: ReadonlyMap<string, Record<string, unknown>>;
  /** Files uploaded (`files.uploadV2`), by file id: their bytes, and where they were shared. */
  readonly files: ReadonlyMap<string, StandInFile>;
  /** A fresh `${url}/response/<id>`, as Slack puts in a command or interaction. */
  responseUrl(): string;
  /** A fresh trigger_id that `views.open` / `views.push` accept once within 3 seconds. */
  triggerId(): string;
  /** Runs of the app's workflow steps, by execution id, with how each was completed. */
  readonly executions: ReadonlyMap<string, FunctionExecution>;
  /**
   * A new running execution of a workflow step and its `function_executed` event (to send to
   * the app); `requiredOutputs`: what `functions.completeSuccess` must be given.
   */
  functionExecution(step: StepRun): {
    execution: FunctionExecution;
    event: Record<string, unknown>;
  };
  fail(method: string, failure?: InjectedFailure): void;
  /** Ends the failures queued for `method`: it works again from the next call. */
  heal(method: string): void;
  failResponseUrls(status: number, times?: number): void;
  setUsers(users: readonly StandInUser[]): void;
  /** usergroup id -> member user ids, for `usergroups.users.list`. */
  setUserGroups(groups: Readonly<Record<string, readonly string[]>>): void;
  /** channel id -> member user ids, for `users.conversations` (an id starting with G is private). */
  setChannelMembers(channels: Readonly<Record<string, readonly string[]>>): void;
  setLatency(latencyMs: number): void;
  /**
   * Delays every answer of one Web API method by `latencyMs` instead of the overall latency, to
   * play one slow method (e.g. `usergroups.users.list`); 0 answers it at once, `undefined`
   * restores the overall latency. `reset()` forgets these.
   */
  setMethodLatency(method: string, latencyMs: number | undefined): void;
  waitFor<T>(pick: () => T | undefined, timeoutMs?: number): Promise<T>;
  /** The first accepted response_url post at index `afterIndex` or later (pass the length seen before acting). */
  nextResponse(afterIndex?: number, timeoutMs?: number): Promise<ResponseUrlPost>;
  /** The first call of `method` at index `afterIndex` or later in `calls`. */
  nextCall(method: string, afterIndex?: number, timeoutMs?: number): Promise<WebApiCall>;
  /**
   * Sends an envelope to the newest Socket Mode connection and resolves with its acknowledgement
   * (`payload` carries e.g. a view_submission `response_action`); rejects when none arrives within
   * Slack's 3 seconds (or `timeoutMs`). `events_api` envelopes go out as Slack sends them:
   * `accepts_response_payload: false` plus `retry_attempt` / `retry_reason`.
   */
  sendEnvelope(
    type: EnvelopeType,
    payload: object,
    options?: { timeoutMs?: number },
  ): Promise<EnvelopeAck>;
  socketConnected(timeoutMs?: number): Promise<void>;
  /**
   * Applies an app's answer to a view_submission (`response_action` update or push) to the
   * stand-in's views, as Slack would; returns the resulting view. The driver calls it for HTTP.
   */
  applyViewResponse(submittedViewId: string, response: unknown): StoredView | undefined;
  /** Asks connected clients to reconnect, as Slack does before recycling a connection. */
  requestReconnect(reason?: DisconnectReason): void;
  /** Closes every Socket Mode connection without a word, as a network failure does. */
  dropConnections(): void;
  socketConnectionCount(): number;
  /**
   * Forgets records, views, users, groups, channels, failures, per-method latencies and issued
   * urls; connections stay open.
   */
  reset(): void;
  /**
   * Closes every connection, WebSockets included. Stop a Socket Mode app first: a client that
   * loses its socket reconnects by itself, and against a closed stand-in that fails outside any
   * awaited promise.
   */
  close(): Promise<void>;
}

interface ActiveFailure {
  failure: InjectedFailure;
  remaining: number;
}

function readBody(request: IncomingMessage): Promise<string> {
  return readBytes(request).then((bytes) => bytes.toString('utf8'));
}

function readBytes(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // With its length, as Slack sends it (writeHead would otherwise make the answer chunked).
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Takes one use of the first queued failure, if any. */
function takeFailure(queue: ActiveFailure[] | undefined): InjectedFailure | undefined {
  const first = queue?.[0];
  if (queue === undefined || first === undefined) return undefined;
  first.remaining -= 1;
  if (first.remaining <= 0) queue.shift();
  return first.failure;
}

function answerFailure(response: ServerResponse, failure: InjectedFailure): void {
  const status = failure.status ?? (failure.retryAfter !== undefined ? 429 : 200);
  if (status === 429) {
    sendJson(
      response,
      429,
      { ok: false, error: failure.error ?? 'ratelimited' },
      { 'retry-after': String(failure.retryAfter ?? 1) },
    );
    return;
  }
  sendJson(response, status, { ok: false, error: failure.error ?? 'internal_error' });
}

function tokenProblem(
  kind: 'bot' | 'app',
  token: string | undefined,
  tokens: { bot: string; app: string; isWorkflow: (token: string) => boolean },
): string | undefined {
  if (token === undefined) return 'not_authed';
  if (token === tokens[kind]) return undefined;
  // A step's workflow token acts as the app's bot for the execution's work.
  if (kind === 'bot' && tokens.isWorkflow(token)) return undefined;
  if (token === tokens[kind === 'bot' ? 'app' : 'bot']) return 'not_allowed_token_type';
  return 'invalid_auth';
}

/** Starts a local stand-in of the Slack Web API, response_urls and Socket Mode on one port. */
export async function startSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const host = options.host ?? '127.0.0.1';
  const tokens = {
    bot: options.botToken ?? DEFAULT_BOT_TOKEN,
    app: options.appToken ?? DEFAULT_APP_TOKEN,
  };
  let latencyMs = options.latencyMs ?? 0;
  const methodLatencyMs = new Map<string, number>();
  const now = options.now ?? Date.now;
  let port = 0;
  const ids = createIdSource(now);
  const state = createWebApiState();
  const calls: WebApiCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const refusedResponses: RefusedResponseUrlPost[] = [];
  const failures = new Map<string, ActiveFailure[]>();
  const responseUrlFailures: ActiveFailure[] = [];
  const responseUrls = new Map<string, IssuedResponseUrl>();
  // An IPv6 literal needs brackets inside a URL.
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const baseUrl = (scheme: 'http' | 'ws'): string => `${scheme}://${hostInUrl}:${port}`;
  const hub = createSocketModeHub({ wsBaseUrl: () => baseUrl('ws'), ids, now });
  const context: WebApiContext = {
    state,
    ids,
    now,
    socketModeUrl: () => hub.issueUrl(),
    uploadUrl: (fileId) => `${baseUrl('http')}/upload/${fileId}`,
  };

  const handleUpload = async (
    id: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const bytes = await readBytes(request);
    const answer = await receiveUpload(id, request.headers['content-type'], bytes, state.files);
    sendText(response, answer.status, answer.text);
  };

  const handleApi = async (
    method: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const url = new URL(request.url ?? '/', baseUrl('http'));
    const parsed = parseApiArguments(
      request.headers['content-type'],
      await readBody(request),
      url.searchParams,
    );
    const token =
      bearerToken(request.headers.authorization) ?? (parsed.ok ? parsed.bodyToken : undefined);
    const call: WebApiCall = { method, args: parsed.ok ? parsed.args : {}, token, at: now() };
    calls.push(call);
    const delay = methodLatencyMs.get(method) ?? latencyMs;
    if (delay > 0) await sleep(delay);
    const entry = WEB_API_METHODS.get(method);
    if (entry === undefined) {
      sendJson(response, 200, { ok: false, error: 'unknown_method', req_method: method });
      return;
    }
    if (!parsed.ok) {
      sendJson(response, 200, { ok: false, error: parsed.error });
      return;
    }
    const authProblem = tokenProblem(entry.token, token, {
      ...tokens,
      isWorkflow: (t) => isWorkflowToken(state.executions, t),
    });
    if (authProblem !== undefined) {
      sendJson(response, 200, { ok: false, error: authProblem });
      return;
    }
    const injected = takeFailure(failures.get(method));
    if (injected !== undefined) {
      answerFailure(response, injected);
      return;
    }
    const answer: ApiAnswer = entry.handle(parsed.args, context);
    call.answer = answer;
    sendJson(response, 200, answer);
  };

  const handleResponseUrl = async (
    id: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const rawBody = await readBody(request);
    if (latencyMs > 0) await sleep(latencyMs);
    const at = now();
    const injected = takeFailure(responseUrlFailures);
    const verdict =
      injected !== undefined
        ? {
            accepted: false as const,
            status: injected.status ?? 500,
            reason: 'injected_failure',
            body: rawBody,
          }
        : judgeResponsePost(responseUrls.get(id), request.headers['content-type'], rawBody, at);
    if (verdict.accepted) {
      responses.push({ id, body: verdict.body, at });
      sendText(response, 200, 'ok');
      return;
    }
    refusedResponses.push({
      id,
      status: verdict.status,
      reason: verdict.reason,
      body: verdict.body,
      at,
    });
    sendText(response, verdict.status, verdict.reason);
  };

  const controlRoutes: ControlRoutes = {
    issue({ responseUrlIds, triggerIds }) {
      for (const id of responseUrlIds) responseUrls.set(id, { createdAt: now(), posts: 0 });
      for (const id of triggerIds) state.triggers.set(id, { issuedAt: now(), used: false });
    },
    records: (from) => ({
      callCount: calls.length,
      responseCount: responses.length,
      calls: calls.slice(from.calls),
      responses: responses.slice(from.responses),
    }),
    applyViewResponse: (viewId, answer) => applyViewResponse(state, ids, viewId, answer),
  };

  const handleControl = async (
    route: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const url = new URL(request.url ?? '/', baseUrl('http'));
    const text = await readBody(request);
    let body: unknown;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      sendJson(response, 400, { ok: false, error: 'invalid_json' });
      return;
    }
    const answer = answerControl(route, request.method, url.searchParams, body, controlRoutes);
    if (answer === undefined) sendText(response, 404, 'not_found');
    else sendJson(response, answer.status, answer.body);
  };

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
    const apiMethod = /^\/api\/([\w.]+)$/.exec(path)?.[1];
    const responseId = /^\/response\/([\w-]+)$/.exec(path)?.[1];
    const uploadId = /^\/upload\/(F[A-Z0-9]+)$/.exec(path)?.[1];
    const controlRoute = options.controlRoutes
      ? /^\/standin\/([\w-]+)$/.exec(path)?.[1]
      : undefined;
    const handled =
      apiMethod !== undefined
        ? handleApi(apiMethod, request, response)
        : responseId !== undefined && request.method === 'POST'
          ? handleResponseUrl(responseId, request, response)
          : uploadId !== undefined && request.method === 'POST'
            ? handleUpload(uploadId, request, response)
            : controlRoute !== undefined
              ? handleControl(controlRoute, request, response)
              : undefined;
    if (handled === undefined) {
      sendText(response, 404, 'not_found');
      return;
    }
    handled.catch((error: unknown) => {
      if (!response.headersSent) sendText(response, 500, String(error));
    });
  });
  server.on('upgrade', (request: IncomingMessage, socket, head: Buffer) => {
    if (!hub.handleUpgrade(request, socket, head)) socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  const describeCalls = (): string => `[${calls.map((call) => call.method).join(', ')}]`;

  const standIn: SlackStandIn = {
    url: baseUrl('http'),
    apiUrl: `${baseUrl('http')}/api/`,
    port,
    botToken: tokens.bot,
    appToken: tokens.app,
    calls,
    responses,
    refusedResponses,
    acks: hub.acks,
    views: state.views,
    homes: state.homes,
    unfurls: state.unfurls,
    files: state.files,
    responseUrl() {
      const id = ids.responseUrlId();
      responseUrls.set(id, { createdAt: now(), posts: 0 });
      return `${baseUrl('http')}/response/${id}`;
    },
    triggerId: () => issueTrigger(state, ids, now()),
    executions: state.executions,
    functionExecution(step) {
      const execution = startExecution(state.executions, state.executions.size + 1, step);
      return { execution, event: functionExecutedEvent(execution) };
    },
    applyViewResponse: (submittedViewId, response) =>
      applyViewResponse(state, ids, submittedViewId, response),
    fail(method, failure = {}) {
      const queue = failures.get(method) ?? [];
      queue.push({ failure, remaining: failure.times ?? 1 });
      failures.set(method, queue);
    },
    heal(method) {
      failures.delete(method);
    },
    failResponseUrls(status, times = 1) {
      responseUrlFailures.push({ failure: { status }, remaining: times });
    },
    setUsers(users) {
      state.users.clear();
      for (const user of users) state.users.set(user.id, user);
    },
    setUserGroups(groups) {
      state.userGroups.clear();
      for (const [id, members] of Object.entries(groups)) state.userGroups.set(id, members);
    },
    setChannelMembers(channels) {
      state.channelMembers.clear();
      for (const [id, members] of Object.entries(channels)) state.channelMembers.set(id, members);
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    setMethodLatency(method, ms) {
      if (ms === undefined) methodLatencyMs.delete(method);
      else methodLatencyMs.set(method, ms);
    },
    waitFor(pick, timeoutMs) {
      return waitFor(pick, timeoutMs);
    },
    nextResponse(afterIndex = 0, timeoutMs = 5000) {
      return waitFor(
        () => responses[afterIndex],
        timeoutMs,
        () =>
          `a response_url post #${afterIndex} (accepted so far: ${responses.length}, refused: ${refusedResponses.length})`,
      );
    },
    nextCall(method, afterIndex = 0, timeoutMs = 5000) {
      return waitFor(
        () => calls.slice(afterIndex).find((call) => call.method === method),
        timeoutMs,
        () => `a ${method} call at index ${afterIndex} or later (calls so far: ${describeCalls()})`,
      );
    },
    sendEnvelope: (type, payload, sendOptions = {}) =>
      hub.sendEnvelope(type, payload, sendOptions.timeoutMs),
    socketConnected: (timeoutMs) => hub.connected(timeoutMs),
    requestReconnect: (reason) => hub.requestReconnect(reason),
    dropConnections: () => hub.dropConnections(),
    socketConnectionCount: () => hub.connectionCount(),
    reset() {
      calls.length = 0;
      responses.length = 0;
      refusedResponses.length = 0;
      responseUrlFailures.length = 0;
      failures.clear();
      methodLatencyMs.clear();
      responseUrls.clear();
      state.users.clear();
      state.userGroups.clear();
      state.channelMembers.clear();
      state.views.clear();
      state.homes.clear();
      state.messages.clear();
      state.triggers.clear();
      state.unfurls.clear();
      state.executions.clear();
      state.files.clear();
      hub.reset();
    },
    async close() {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
  return standIn;
}
