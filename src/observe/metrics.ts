import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

// What a platform team graphs and alerts on, in Prometheus's text format at /metrics. One
// registry per running app (tests start several in one process). Every label value comes from a
// small fixed set: never a user, role, session or channel id, nor anything a request can invent.

/** Status of a CometChat request: the class of its HTTP status, or why there was none. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'other';

export interface Metrics {
  readonly registry: Registry;
  /** A command, action, view submission or shortcut handled, by name and outcome. */
  handled(kind: string, name: string, outcome: 'ok' | 'error'): void;
  cometchatRequest(operation: string, status: StatusClass, seconds: number): void;
  cometchatRetry(operation: string): void;
  cometchatRateLimited(operation: string): void;
  slackApiFailure(method: string, error: string): void;
  socketReconnect(): void;
  permissionUpdate(outcome: string): void;
  auditWrite(outcome: 'stored' | 'failed'): void;
  auditPostFailure(): void;
  storeError(operation: string): void;
}

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

export function statusClassOf(status: number | undefined, kind?: string): StatusClass {
  if (status !== undefined && status >= 200 && status < 600) {
    return `${Math.floor(status / 100)}xx` as StatusClass;
  }
  if (kind === 'timeout') return 'timeout';
  if (kind === 'network') return 'network';
  return 'other';
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    eventLoopDelay(registry);
  }
  const handled = new Counter({
    name: 'cometchat_ops_slack_requests_total',
    help: 'Commands, actions, view submissions and shortcuts handled, by kind, name and outcome.',
    labelNames: ['kind', 'name', 'outcome'],
    registers,
  });
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
  const slackFailures = new Counter({
    name: 'cometchat_ops_slack_api_failures_total',
    help: 'Slack Web API calls that failed, by method and error code.',
    labelNames: ['method', 'error'],
    registers,
  });
  const reconnects = new Counter({
    name: 'cometchat_ops_socket_mode_reconnects_total',
    help: 'Socket Mode reconnection attempts.',
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
    registry,
    handled: (kind, name, outcome) => handled.inc({ kind, name, outcome }),
    cometchatRequest: (operation, status, seconds) =>
      duration.observe({ operation, status }, seconds),
    cometchatRetry: (operation) => retries.inc({ operation }),
    cometchatRateLimited: (operation) => rateLimited.inc({ operation }),
    slackApiFailure: (method, error) => slackFailures.inc({ method, error }),
    socketReconnect: () => reconnects.inc(),
    permissionUpdate: (outcome) => updates.inc({ outcome }),
    auditWrite: (outcome) => auditWrites.inc({ outcome }),
    auditPostFailure: () => auditPosts.inc(),
    storeError: (operation) => storeErrors.inc({ operation }),
  };
}
