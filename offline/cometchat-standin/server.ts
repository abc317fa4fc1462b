import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { errorResponse } from './errors.ts';
import { createFaultQueue, type FaultSpec, faultAnswer, type RawAnswer } from './faults.ts';
import type { RequestBody } from './json-body.ts';
import { decisionsIn, type ReceivedDecision } from './moderation-queue.ts';
import { editRule, type RuleChange } from './moderation-rules.ts';
import { type IncomingRequest, respond, type SandboxHost } from './respond.ts';
import type { SandboxResponse } from './response.ts';
import { loadSeed, SANDBOX_SEEDS, type SandboxSeedName } from './seed.ts';
import { replaceState, type SandboxState } from './state.ts';
import { createWebhookSender, type SandboxWebhooks } from './webhooks.ts';

// The HTTP layer of the sandbox: two loopback listeners (the live service has a role host and a
// call host), a request log, latency and faults. What a request means is decided in
// respond.ts; this file only moves bytes.

export { SANDBOX_ACCOUNT_IDS, SANDBOX_GROUP_IDS } from './account-seed.ts';
export type { FaultSpec } from './faults.ts';
export {
  engineDecisionData,
  engineFailedData,
  FAILURE_CATEGORIES,
  type FailureCategory,
  type FailureSetting,
  failureOf,
  MODERATION_TRIGGERS,
  type ModerationEngine,
  type ModerationEngineFailedData,
  type ModerationFailure,
  type ModerationManualApprovedData,
  type ModerationMessageData,
  type ModerationRuleRef,
  type ModerationTrigger,
  type ModerationWebhookOptions,
  manualApprovedData,
  moderatedMessage,
} from './moderation-payloads.ts';
export type { ReceivedDecision } from './moderation-queue.ts';
export type { RuleChange } from './moderation-rules.ts';
export { SANDBOX_MODERATION_IDS } from './moderation-seed.ts';
export { RECENT_CALLS_UID } from './recent-calls.ts';
export type { SandboxHost } from './respond.ts';
export {
  loadSeed,
  SANDBOX_SEED_NAMES,
  SANDBOX_SEEDS,
  SANDBOX_SESSION_IDS,
  type SandboxSeed,
  type SandboxSeedName,
  type SandboxSessionName,
  SECOND_SANDBOX_SESSION_IDS,
  type SecondSandboxSessionName,
} from './seed.ts';
export type {
  AccountState,
  AuthToken,
  BlockedRecord,
  CallRecord,
  CallShape,
  ChatMessage,
  FlaggedRecord,
  Group,
  GroupMember,
  ModerationMessage,
  ModerationState,
  PermissionMap,
  PermissionValue,
  Role,
  SandboxState,
  SeededCall,
  StoredRule,
  User as SandboxUser,
} from './state.ts';
export type {
  CallEndedData,
  CallEndedOccupant,
  EndedStatus,
  RecordingGeneratedData,
  TranscriptionGeneratedData,
} from './webhook-payloads.ts';
export type {
  SandboxWebhooks,
  ScheduledDelivery,
  WebhookAnswer,
  WebhookConfig,
  WebhookEnvelope,
  WebhookScheduleOptions,
} from './webhooks.ts';

export interface RecordedRequest {
  method: string;
  host: SandboxHost;
  /** Raw, as received, undecoded (query string excluded). */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  /** Parsed JSON, or the raw text when it is not JSON, or undefined when there is none. */
  body: unknown;
  /** Date.now() when the request was fully received. */
  at: number;
}

/** Moderation as someone outside the app sees it: the dashboard, and what the app sent. */
export interface SandboxModeration {
  /**
   * Changes a rule as an edit in CometChat's dashboard would: `change` on top of the rule, a new
   * revision (`<appId>_<ruleId>_<n+1>`), the old one kept in the revisions. Answers the rule as
   * served now; throws for an unknown rule. No request is recorded.
   */
  editRule(ruleId: string, change: Partial<Omit<RuleChange, 'id'>>): Record<string, unknown>;
  /** The decisions (PATCHes) received so far, in order, whatever they were answered. */
  decisions(): ReceivedDecision[];
}

export interface SandboxOptions {
  apiKey: string;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (ephemeral). */
  apiPort?: number;
  /** Default 0 (ephemeral). */
  callPort?: number;
  /** Added to every response (benchmarks, slow-service tests). */
  latencyMs?: number;
  /** Which data to start (and reset) with; default 'default'. See README.md, "Seed data". */
  seed?: SandboxSeedName;
  /**
   * Named in error messages and in the webhook envelope's `appId`; default the seed's app id:
   * 'sandbox-app' for 'default'.
   */
  appId?: string;
}

export interface Sandbox {
  /**
   * e.g. 'http://127.0.0.1:41234' (no /v3): GET /v3/roles, PUT /v3/roles/{role}/permissions,
   * and the users under /v3/users (README.md, "Users").
   */
  apiUrl: string;
  /** A second listener (no /v3): GET /v3/calls/{sessionId}. */
  callUrl: string;
  /** Every request received on either listener, in order. */
  requests: RecordedRequest[];
  /** Queues a fault; faults are matched in order. */
  inject(fault: FaultSpec): void;
  clearFaults(): void;
  setLatency(ms: number): void;
  /**
   * CometChat's webhook to the app: configure it, send any trigger, build the documented
   * payloads from the state, end a call and send its `call_ended` (README.md, "Webhooks").
   */
  webhooks: SandboxWebhooks;
  /** Rule edits from outside the app, and the decisions received (README.md, "Moderation"). */
  moderation: SandboxModeration;
  /** Back to seed data, no faults, requests cleared, latency as started, no webhook. */
  reset(): void;
  /** The live in-memory state; tests may read and change it. */
  state: SandboxState;
  /** The seed it started with and goes back to on reset(). */
  seed: SandboxSeedName;
  /** Closes both listeners and destroys open sockets; stops webhook deliveries and schedules. */
  close(): Promise<void>;
}

/** The live service allows 20,000 requests a minute for these operations. */
const RATE_LIMIT = 20_000;
/** Bodies here are a few KB; the cap only keeps a runaway test from filling memory. */
const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

function assertLatency(ms: number): number {
  if (!(Number.isFinite(ms) && ms >= 0)) {
    throw new TypeError('latency must be a finite number >= 0');
  }
  return ms;
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.apiKey === '') throw new TypeError('startSandbox: apiKey must not be empty');
  const host = options.host ?? '127.0.0.1';
  const seed = options.seed ?? 'default';
  // Recent calls are dated back from here, and come back the same after a reset.
  const startedAt = Math.floor(Date.now() / 1000);
  // First: it is what refuses a seed name that does not exist.
  const state = loadSeed(seed, startedAt);
  const appId = options.appId ?? SANDBOX_SEEDS[seed].appId;
  const initialLatency = assertLatency(options.latencyMs ?? 0);
  const requests: RecordedRequest[] = [];
  const faults = createFaultQueue();
  const stopping = new AbortController();
  // Every request waiting out latency listens on this one signal (and lets go after): with
  // hundreds in flight, Node's leak warning at eleven listeners is a false alarm.
  setMaxListeners(0, stopping.signal);
  const webhooks = createWebhookSender({
    state,
    appId,
    region: SANDBOX_SEEDS[seed].region,
    namedSessionIds: Object.values(SANDBOX_SEEDS[seed].sessionIds),
    stop: stopping.signal,
  });
  const rate = { windowStart: Date.now(), count: 0 };
  let latencyMs = initialLatency;

  function rateLimitHeaders(): Record<string, string> {
    const now = Date.now();
    if (now - rate.windowStart >= 60_000) Object.assign(rate, { windowStart: now, count: 0 });
    rate.count += 1;
    return {
      'x-rate-limit': String(RATE_LIMIT),
      'x-rate-limit-remaining': String(Math.max(0, RATE_LIMIT - rate.count)),
    };
  }

  async function handle(hostName: SandboxHost, req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    if (raw === undefined) return; // the client went away mid-body
    const incoming = toIncoming(hostName, req, raw.text);
    requests.push(record(incoming, raw.text));

    await pause(latencyMs, stopping.signal, res);
    if (gone(req, res)) {
      req.socket.destroy();
      return;
    }
    if (raw.tooLarge) {
      send(res, errorResponse('ERR_PAYLOAD_TOO_LARGE'), rateLimitHeaders());
      return;
    }

    const fault = faults.take(incoming.method, incoming.path);
    if (fault?.kind === 'delay') {
      await pause(fault.delayMs ?? 0, stopping.signal, res);
      if (gone(req, res)) {
        req.socket.destroy();
        return;
      }
    } else if (fault !== undefined) {
      const answer = faultAnswer(fault, hostName, incoming.path);
      if (answer === undefined) req.socket.destroy();
      else sendRaw(res, answer);
      return;
    }
    const context = { state, apiKey: options.apiKey, appId, now: Math.floor(Date.now() / 1000) };
    send(res, respond(incoming, context), rateLimitHeaders());
  }

  function listener(hostName: SandboxHost): Server {
    const server = createServer((req, res) => {
      handle(hostName, req, res).catch(() => {
        // A bug in the sandbox must still answer, so a test sees a 500 rather than a hang.
        if (!res.headersSent && !gone(req, res)) {
          send(res, errorResponse('ERR_INTERNAL_SERVER_ERROR'), {});
        } else {
          res.destroy();
        }
      });
    });
    return server;
  }

  const apiServer = listener('api');
  const callServer = listener('call');
  const apiPort = await listen(apiServer, options.apiPort ?? 0, host);
  let callPort: number;
  try {
    callPort = await listen(callServer, options.callPort ?? 0, host);
  } catch (error) {
    await closeServer(apiServer);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    apiUrl: baseUrl(host, apiPort),
    callUrl: baseUrl(host, callPort),
    requests,
    state,
    seed,
    webhooks,
    moderation: {
      editRule: (ruleId, change) =>
        editRule(state.moderation, ruleId, change, { now: Math.floor(Date.now() / 1000), appId }),
      decisions: () => decisionsIn(requests),
    },
    inject: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    setLatency: (ms) => {
      latencyMs = assertLatency(ms);
    },
    reset: () => {
      replaceState(state, loadSeed(seed, startedAt));
      faults.clear();
      requests.length = 0;
      latencyMs = initialLatency;
      Object.assign(rate, { windowStart: Date.now(), count: 0 });
      webhooks.clear();
    },
    close: () => {
      closing ??= (async () => {
        stopping.abort();
        await Promise.all([closeServer(apiServer), closeServer(callServer)]);
      })();
      return closing;
    },
  };
}

function baseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('not a TCP listener'));
      else resolve(address.port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

interface RawBody {
  text: string;
  tooLarge: boolean;
}

/** The whole body as text; undefined when the client aborted before sending it all. */
function readBody(req: IncomingMessage): Promise<RawBody | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES }),
    );
    // After 'end' the promise is settled and these change nothing; before it they mean the
    // client went away mid-body.
    req.on('error', () => resolve(undefined));
    req.on('close', () => resolve(undefined));
  });
}

function parseBody(text: string): RequestBody {
  if (text === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    return { kind: 'invalid', text };
  }
}

function toIncoming(host: SandboxHost, req: IncomingMessage, bodyText: string): IncomingRequest {
  const url = req.url ?? '/';
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? '' : url.slice(queryStart + 1);
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    host,
    method: req.method ?? 'GET',
    path,
    query: Object.fromEntries(new URLSearchParams(query)),
    headers,
    body: parseBody(bodyText),
  };
}

function record(incoming: IncomingRequest, bodyText: string): RecordedRequest {
  const { body } = incoming;
  return {
    method: incoming.method,
    host: incoming.host,
    path: incoming.path,
    query: incoming.query,
    headers: incoming.headers,
    body: body.kind === 'json' ? body.value : body.kind === 'invalid' ? bodyText : undefined,
    at: Date.now(),
  };
}

/** Waits, but not past the client leaving or the sandbox closing. */
function pause(ms: number, stop: AbortSignal, res: ServerResponse): Promise<void> {
  if (ms <= 0 || stop.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
    res.once('close', done);
  });
}

function gone(req: IncomingMessage, res: ServerResponse): boolean {
  return res.destroyed || req.socket.destroyed;
}

function send(res: ServerResponse, response: SandboxResponse, extra: Record<string, string>) {
  const text = JSON.stringify(response.body);
  res.writeHead(response.status, {
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(text)),
    ...extra,
    ...response.headers,
  });
  res.end(text);
}

function sendRaw(res: ServerResponse, answer: RawAnswer): void {
  const length = String(Buffer.byteLength(answer.text));
  res.writeHead(answer.status, { 'content-length': length, ...answer.headers });
  res.end(answer.text);
}
