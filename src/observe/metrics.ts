import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CometChatObserver } from '../cometchat/observer.ts';

// What a platform team graphs and alerts on, in Prometheus's text format at /metrics. One
// registry per running app (tests start several in one process). Every label value comes from a
// small fixed set: never a user, role, session or channel id, nor anything a request can invent.

/** The CometChat client's reports (its requests, retries and 429s) are counted here too. */
export interface Metrics extends CometChatObserver {
  readonly registry: Registry;
  /** A command, action, view submission or shortcut handled, by name and outcome. */
  handled(kind: string, name: string, outcome: 'ok' | 'error'): void;
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

/** prom-client's event-loop-lag metrics, replaced below. */
const PROM_CLIENT_LAG = ['', '_min', '_max', '_mean', '_stddev', '_p50', '_p90', '_p99'].map(
  (suffix) => `nodejs_eventloop_lag${suffix}_seconds`,
);

/**
 * The event loop's delay by quantile since the last scrape. prom-client's own collector reads the
 * delay histogram's standard deviation and mean at every scrape, about 0.4 ms of CPU on Node 20
 * (most of a scrape's cost); quantiles cost microseconds and say what an alert needs.
 */
function eventLoopDelay(registry: Registry): void {
  for (const name of PROM_CLIENT_LAG) registry.removeSingleMetric(name);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  new Gauge({
    name: 'cometchat_ops_eventloop_delay_seconds',
    help: 'Event loop delay since the last scrape, by quantile (0 is the minimum, 1 the maximum).',
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      // No sample yet (a scrape right after the last): nothing to say, the values stay.
      if (delay.count === 0) return;
      this.set({ quantile: '0' }, delay.min / 1e9);
      for (const q of [50, 90, 99])
        this.set({ quantile: String(q / 100) }, delay.percentile(q) / 1e9);
      this.set({ quantile: '1' }, delay.max / 1e9);
      delay.reset();
    },
  });
}

/** Names outside `known` are counted as `other`, so a forged payload cannot add a series. */
export function bounded(known: ReadonlySet<string>, name: string | undefined): string {
  return name !== undefined && known.has(name) ? name : 'other';
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    eventLoopDelay(registry);
  }
  // Registered in this order, so /metrics lists them as it always has.
  return {
    registry,
    ...handledMetrics(registry),
    ...cometchatMetrics(registry),
    ...slackMetrics(registry),
    ...recordMetrics(registry),
  };
}

/** Commands, actions, view submissions and shortcuts, as the app's listeners finish them. */
function handledMetrics(registry: Registry): Pick<Metrics, 'handled'> {
  const handled = new Counter({
    name: 'cometchat_ops_slack_requests_total',
    help: 'Commands, actions, view submissions and shortcuts handled, by kind, name and outcome.',
    labelNames: ['kind', 'name', 'outcome'],
    registers: [registry],
  });
  return { handled: (kind, name, outcome) => handled.inc({ kind, name, outcome }) };
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
    help: 'Audit records that could not be posted to the audit channel.',
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
