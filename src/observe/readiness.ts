import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../store/store.ts';
import type { Metrics } from './metrics.ts';

// Liveness, readiness and metrics over HTTP, for the platform the app runs on. /healthz: the
// process serves HTTP. /readyz: the app can do its work now (Slack's socket is open in Socket
// Mode, the store takes a write). /metrics: Prometheus's text format. No body names a secret, an
// id or an address.

/** One part of readiness: resolves with what is wrong, or undefined when that part is ready. */
export type ReadinessCheck = () => Promise<string | undefined>;

/** A part that does not answer within this is not ready: a probe must not hang. */
const CHECK_TIMEOUT_MS = 1_000;

export interface Readiness {
  ready: boolean;
  /** Each part: `ok`, or a few words on what is wrong. */
  parts: Record<string, string>;
}

/**
 * The app's parts of readiness: Slack's connection in Socket Mode (`socket()`, undefined over
 * HTTP), the store taking a write, and no stop begun.
 */
export function readinessChecks(parts: {
  socket: () => { connected(): boolean } | undefined;
  store: Pick<Store, 'ping'>;
  stopping: () => boolean;
}): Record<string, ReadinessCheck> {
  return {
    slack: async () => (parts.socket()?.connected() === false ? 'not connected' : undefined),
    store: async () => {
      await parts.store.ping();
      return undefined;
    },
    serving: async () => (parts.stopping() ? 'stopping' : undefined),
  };
}

export async function checkReadiness(
  checks: Readonly<Record<string, ReadinessCheck>>,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const answers = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await ask(check, timeoutMs)]),
  );
  const parts: Record<string, string> = Object.fromEntries(answers);
  return { ready: Object.values(parts).every((a) => a === 'ok'), parts };
}

/** A check's answer: `ok`, what is wrong, or `not answering` (it failed, or took too long). */
async function ask(check: ReadinessCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('not answering'), timeoutMs);
  });
  const answer = check().then(
    (problem) => problem ?? 'ok',
    () => 'not answering',
  );
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

export const OPS_PATHS = { health: '/healthz', ready: '/readyz', metrics: '/metrics' } as const;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A route of the app's own listeners, as Bolt's HTTP receiver takes them too. */
export interface HttpRoute {
  path: string;
  method: string[];
  handler: Handler;
}

/** The three routes, as Bolt's HTTP receiver takes them (`customRoutes`). */
export function opsRoutes(deps: {
  checks: Readonly<Record<string, ReadinessCheck>>;
  metrics: Pick<Metrics, 'registry'>;
}): { path: string; method: string[]; handler: Handler }[] {
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return [
    {
      path: OPS_PATHS.health,
      method: ['GET'],
      handler: (_req, res) => json(res, 200, { ok: true }),
    },
    {
      path: OPS_PATHS.ready,
      method: ['GET'],
      handler: (_req, res) => {
        void checkReadiness(deps.checks).then(({ ready, parts }) =>
          json(res, ready ? 200 : 503, { ready, ...parts }),
        );
      },
    },
    {
      path: OPS_PATHS.metrics,
      method: ['GET'],
      handler: (_req, res) => {
        const started = performance.now();
        void deps.metrics.registry.metrics().then(
          (text) =>
            res
              .writeHead(200, {
                'content-type': deps.metrics.registry.contentType,
                // What producing this scrape took the app (the benchmark reads it).
                'server-timing': `metrics;dur=${(performance.now() - started).toFixed(3)}`,
              })
              .end(text),
          () => res.writeHead(500).end(),
        );
      },
    },
  ];
}

/** A server of its own for the routes (Socket Mode, or METRICS_PORT): anything else is 404. */
export function opsHandler(routes: readonly HttpRoute[]): Handler {
  return (req, res) => {
    const path = req.url?.split('?')[0] ?? '';
    const route = routes.find(
      (r) => pathMatches(r.path, path) && r.method.includes(req.method ?? ''),
    );
    if (route) route.handler(req, res);
    else res.writeHead(404).end();
  };
}

/** A route's path as Bolt writes them: `:name` stands for one segment (`/cometchat/webhooks/:app`). */
function pathMatches(route: string, path: string): boolean {
  const want = route.split('/');
  const got = path.split('/');
  return (
    want.length === got.length &&
    want.every((part, i) => (part.startsWith(':') ? (got[i] ?? '') !== '' : part === got[i]))
  );
}
