import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CometChatObserver } from '../cometchat/observer.ts';
import { BUILD, type Build } from './build.ts';

// What a platform team graphs and alerts on, in Prometheus's text format at /metrics. One
// registry per running app (tests start several in one process). Every label value comes from a
// small fixed set: never a user, role, session or channel id, nor anything a request can invent.

/** The CometChat client's reports (its requests, retries and 429s) are counted here too. */
export interface Metrics extends CometChatObserver {
  readonly registry: Registry;
  /** A command, action, view submission or shortcut handled, by name and outcome. */
  handled(kind: string, name: string, outcome: 'ok' | 'error'): void;
  /** How long Slack waited for a request's acknowledgement, by kind and name as `handled`. */
  slackAck(kind: string, name: string, seconds: number): void;
  slackApiFailure(method: string, error: string): void;
  socketReconnect(): void;
  permissionUpdate(outcome: string): void;
  auditWrite(outcome: 'stored' | 'failed'): void;
  auditPostFailure(): void;
  storeError(operation: string): void;
  /**
   * A CometChat webhook delivery, by app and what became of it: `received` (stored), `refused`
   * (unknown app, wrong password, too large, not JSON), `deduplicated` (delivered before),
   * `dropped` (a trigger alerts are not made of), `posted` (one post to one channel), `counted`
   * (one alert a channel's count message counts instead, in a burst).
   */
  webhookEvent(app: string, outcome: WebhookOutcome): void;
}

export type WebhookOutcome =
  | 'received'
  | 'refused'
  | 'deduplicated'
  | 'dropped'
  | 'posted'
  | 'counted';

/** Names outside `known` are counted as `other`, so a forged payload cannot add a series. */
export function bounded(known: ReadonlySet<string>, name: string | undefined): string {
  return name !== undefined && known.has(name) ? name : 'other';
}

export function createMetrics(options: { defaultMetrics?: boolean; build?: Build } = {}): Metrics {
  const registry = new Registry();
  // prom-client's standard process and Node.js metrics, under the names dashboards expect
  // (nodejs_eventloop_lag_seconds and its percentiles, heap, GC, handles).
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  buildInfo(registry, options.build ?? BUILD);
  return {
    registry,
    ...handledMetrics(registry),
    ...cometchatMetrics(registry),
    ...slackMetrics(registry),
    ...recordMetrics(registry),
  };
}

/** Which release runs on which Node: one series of value 1, for joins and upgrade graphs. */
function buildInfo(registry: Registry, build: Build): void {
  new Gauge({
    name: 'cometchat_ops_build_info',
    help: "The app's version and the Node.js version it runs on (value 1).",
    labelNames: ['version', 'node'],
    registers: [registry],
  }).set({ version: build.version, node: build.node }, 1);
}

/**
 * Slack's requests: how long each waited for its acknowledgement (Slack gives up after three
 * seconds, so the buckets are finest there), and how its listeners finished.
 */
function handledMetrics(registry: Registry): Pick<Metrics, 'handled' | 'slackAck'> {
  const handled = new Counter({
    name: 'cometchat_ops_slack_requests_total',
    help: 'Commands, actions, view submissions and shortcuts handled, by kind, name and outcome.',
    labelNames: ['kind', 'name', 'outcome'],
    registers: [registry],
  });
  const ack = new Histogram({
    name: 'cometchat_ops_slack_ack_duration_seconds',
    help: "Time from a Slack request's arrival to its acknowledgement leaving, by kind and name (Slack waits 3 s).",
    labelNames: ['kind', 'name'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 4, 6],
    registers: [registry],
  });
  return {
    handled: (kind, name, outcome) => handled.inc({ kind, name, outcome }),
    slackAck: (kind, name, seconds) => ack.observe({ kind, name }, seconds),
  };
}

/** What the CometChat client reports of its requests. */
function cometchatMetrics(registry: Registry): CometChatObserver {
  const registers = [registry];
  const duration = new Histogram({
    name: 'cometchat_ops_cometchat_request_duration_seconds',
    help: 'CometChat REST requests, retries and waits included, by operation and status class.',
    labelNames: ['operation', 'status'],
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16],
    registers,
  });
  const retries = new Counter({
    name: 'cometchat_ops_cometchat_retries_total',
    help: 'CometChat request attempts retried, by operation.',
    labelNames: ['operation'],
    registers,
  });
  const rateLimited = new Counter({
    name: 'cometchat_ops_cometchat_rate_limited_total',
    help: 'CometChat answers of 429 (rate limited), by operation.',
    labelNames: ['operation'],
    registers,
  });
  return {
    cometchatRequest: (operation, status, seconds) =>
      duration.observe({ operation, status }, seconds),
    cometchatRetry: (operation) => retries.inc({ operation }),
    cometchatRateLimited: (operation) => rateLimited.inc({ operation }),
  };
}

/** The app's own traffic to Slack: Web API calls that failed, and Socket Mode's reconnections. */
function slackMetrics(registry: Registry): Pick<Metrics, 'slackApiFailure' | 'socketReconnect'> {
  const slackFailures = new Counter({
    name: 'cometchat_ops_slack_api_failures_total',
    help: 'Slack Web API calls that failed, by method and error code.',
    labelNames: ['method', 'error'],
    registers: [registry],
  });
  const reconnects = new Counter({
    name: 'cometchat_ops_socket_mode_reconnects_total',
    help: 'Socket Mode reconnection attempts.',
    registers: [registry],
  });
  return {
    slackApiFailure: (method, error) => slackFailures.inc({ method, error }),
    socketReconnect: () => reconnects.inc(),
  };
}

/** What the app keeps a record of: permission changes, the audit trail and the store under it. */
function recordMetrics(
  registry: Registry,
): Pick<
  Metrics,
  'permissionUpdate' | 'auditWrite' | 'auditPostFailure' | 'storeError' | 'webhookEvent'
> {
  const registers = [registry];
  const webhooks = new Counter({
    name: 'cometchat_ops_webhook_events_total',
    help: 'CometChat webhook deliveries, by app and outcome (received, refused, deduplicated, dropped, posted, counted).',
    labelNames: ['app', 'outcome'],
    registers,
  });
  const updates = new Counter({
    name: 'cometchat_ops_permission_updates_total',
    help: 'Permission updates sent to CometChat, by outcome (applied, failed, unknown).',
    labelNames: ['outcome'],
    registers,
  });
  const auditWrites = new Counter({
    name: 'cometchat_ops_audit_writes_total',
    help: 'Audit records written to the store, by outcome (stored, failed).',
    labelNames: ['outcome'],
    registers,
  });
  const auditPosts = new Counter({
    name: 'cometchat_ops_audit_post_failures_total',
    help: 'Posts to the audit channel that Slack refused, each attempt (a kept post is tried again).',
    registers,
  });
  const storeErrors = new Counter({
    name: 'cometchat_ops_store_errors_total',
    help: 'Store operations that failed, by operation.',
    labelNames: ['operation'],
    registers,
  });
  return {
    permissionUpdate: (outcome) => updates.inc({ outcome }),
    auditWrite: (outcome) => auditWrites.inc({ outcome }),
    auditPostFailure: () => auditPosts.inc(),
    storeError: (operation) => storeErrors.inc({ operation }),
    webhookEvent: (app, outcome) => webhooks.inc({ app, outcome }),
  };
}
