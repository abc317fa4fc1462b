import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { App } from '@slack/bolt';
import { createSlackApp, type SlackAppOptions } from './app.ts';
import type { Logger } from './log.ts';
import { BUILD, SERVICE_NAME } from './observe/build.ts';
import type { Metrics } from './observe/metrics.ts';
import { type HttpRoute, opsHandler } from './observe/readiness.ts';
import { startTracing } from './observe/tracing.ts';
import { startPeriodic } from './periodic.ts';
import type { Inflight } from './slack/inflight.ts';
import { holdToLimits, SERVER_OPTIONS } from './slack/request-gate.ts';
import { platformErrorCode } from './slack/slack-errors.ts';
import { openStore } from './store/open-store.ts';

// Starting and stopping: the store opened, the token checked, the listeners up, the periodic
// work running; and on stop, in-flight requests given their grace before anything closes.

/** What Slack says of a bot token it will not take: the setting is wrong, not Slack down. */
const TOKEN_REFUSED = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
]);

/** A start that failed because Slack refused the bot token: said with the setting's name. */
function tokenRefusal(error: unknown): Error | undefined {
  const code = platformErrorCode(error);
  return code !== undefined && TOKEN_REFUSED.has(code)
    ? new Error(
        `Slack refused SLACK_BOT_TOKEN (${code}): check that it is the Bot User OAuth Token of this app's install.`,
      )
    : undefined;
}

export interface RunningApp {
  app: App;
  /** Port of the HTTP listener (Slack requests over HTTP, or the health routes in Socket Mode). */
  port: number;
  /** Port of /healthz, /readyz and /metrics: METRICS_PORT's listener, else `port`. */
  opsPort: number;
  metrics: Metrics;
  /** Settles once the start check (each CometChat app's key and addresses, logged) is done. */
  checked: Promise<void>;
  /**
   * Turns /readyz to 503 and keeps serving for `delayMs` (SHUTDOWN_DELAY_MS on SIGTERM), so
   * that load balancers take the replica out first; then stops taking requests, lets those in
   * flight finish within SHUTDOWN_GRACE_MS, and closes the connection to Slack and the store.
   */
  stop(delayMs?: number): Promise<void>;
}

/** Starts the app; resolves once it accepts requests. */
export async function startSlackApp(options: SlackAppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  // A store passed in belongs to the caller; one opened here is closed on stop.
  const opened = options.store ?? (await openStore(config.storeUrl));
  const closeOwnStore = async () => {
    if (!options.store) await opened.close();
  };
  const tracing = await startTracing(
    {
      endpoint: config.tracesEndpoint,
      headers: config.tracesHeaders,
      service: { name: SERVICE_NAME, version: BUILD.version },
    },
    logger,
  ).catch(async (error: unknown) => {
    await closeOwnStore();
    throw error;
  });
  // The store opened here, and the traces' last spans, go with the app (or a start that fails).
  const release = async () => {
    await tracing.shutdown();
    await closeOwnStore();
  };
  const built = createSlackApp({ ...options, store: opened });
  const { app, metrics, routes, webhookRoute, socket, inflight, drain, refuseWebhooks } = built;
  try {
    await app.init();
    await built.installedTeam();
  } catch (error) {
    await release();
    throw tokenRefusal(error) ?? error;
  }
  // Each feature's periodic work, now and then every minute: updates in flight when an earlier
  // run stopped get their records, approval requests past their expiry are closed.
  const log = logger.child({ component: 'sweep' });
  const sweep = startPeriodic(() => built.periodic(log), log);
  let listening: Listening;
  try {
    listening = await listenAll(config, app, socket, routes, webhookRoute);
  } catch (error) {
    await sweep.stop();
    await release();
    throw error;
  }
  const { opsServer, opsPort, slackServer } = listening;
  const port = slackServer ? (slackServer.address() as AddressInfo).port : (opsPort as number);
  logger.info(
    { port, opsPort: opsPort ?? port, mode: config.slack.socketMode ? 'socket' : 'http' },
    config.slack.socketMode
      ? 'app started in Socket Mode'
      : 'app started over HTTP at /slack/events',
  );
  // Not awaited: CometChat being slow or down never holds the start.
  const checked = built.atStart(logger.child({ component: 'start-check' })).then(
    () => undefined,
    (error: unknown) => logger.warn({ err: error }, 'start check failed'),
  );

  const stopOnce = stopInOrder({
    app,
    logger,
    graceMs: config.shutdownGraceMs,
    drain,
    refuseWebhooks,
    socket,
    slackServer,
    opsServer,
    inflight,
    finally: async () => {
      await sweep.stop();
      await release();
    },
  });
  // A second stop (a second signal, a test's clean-up) waits for the first.
  let stopped: Promise<void> | undefined;
  const stop = (delayMs = 0) => {
    stopped ??= stopOnce(delayMs);
    return stopped;
  };
  return { app, port, opsPort: opsPort ?? port, metrics, checked, stop };
}

/** What a stop takes down, in order. */
interface StopParts {
  app: App;
  logger: Logger;
  graceMs: number;
  drain: () => void;
  /** CometChat's webhooks answered 503 from now (in Socket Mode their listener stays open). */
  refuseWebhooks: () => void;
  socket: { stop(): void } | undefined;
  slackServer: Server | undefined;
  opsServer: Server | undefined;
  inflight: Inflight;
  /** The periodic work and the store, once nothing is in flight. */
  finally: () => Promise<void>;
}

function stopInOrder(parts: StopParts): (delayMs: number) => Promise<void> {
  const { app, logger, socket, slackServer, opsServer, inflight } = parts;
  return async (delayMs) => {
    // Not ready first, still serving: a load balancer's probes take the replica out of rotation
    // (Slack does not retry a command that finds the listener closed), and what it sends
    // meanwhile is answered.
    parts.drain();
    if (delayMs > 0) {
      logger.info({ delayMs }, 'not ready; serving on until the stop');
      await sleep(delayMs);
    }
    // No new requests: over HTTP the listener stops accepting connections (the load balancer
    // sends them to another replica); in Socket Mode the connection closes, and Slack sends new
    // payloads over the app's other connections; CometChat is answered 503 and retries. Work
    // already here goes on meanwhile.
    parts.refuseWebhooks();
    socket?.stop();
    if (slackServer) {
      slackServer.close();
      slackServer.closeIdleConnections();
    } else {
      await app.stop();
    }
    if (!(await inflight.idle(parts.graceMs))) {
      logger.warn(
        { inflight: inflight.count(), graceMs: parts.graceMs },
        'stopping with requests still in flight',
      );
    }
    if (slackServer) {
      slackServer.closeAllConnections();
      await app.stop().catch(() => {});
    }
    if (opsServer) {
      opsServer.close();
      opsServer.closeAllConnections();
    }
    await parts.finally();
  };
}

interface Listening {
  /** The health routes' own server (Socket Mode, or METRICS_PORT), and its port. */
  opsServer: Server | undefined;
  opsPort: number | undefined;
  /** Bolt's HTTP listener (HTTP mode). */
  slackServer: Server | undefined;
}

/** The listeners up and Slack's connection open; what was opened is closed again on a failure. */
async function listenAll(
  config: SlackAppOptions['config'],
  app: App,
  socket: { arm(): void } | undefined,
  routes: readonly HttpRoute[],
  webhookRoute: HttpRoute,
): Promise<Listening> {
  // Socket Mode has no public listener and METRICS_PORT asks for another one: the health,
  // readiness and metrics routes get a small server of their own.
  const opsPortWanted = config.slack.socketMode
    ? (config.slack.metricsPort ?? config.slack.port)
    : config.slack.metricsPort;
  // In Socket Mode this is the one listener, so CometChat's webhooks arrive here too.
  const opsServer =
    opsPortWanted === undefined
      ? undefined
      : routesListener(config.slack.socketMode ? [...routes, webhookRoute] : routes);
  try {
    const opsPort = opsServer ? await listen(opsServer, opsPortWanted as number) : undefined;
    if (config.slack.socketMode) {
      await app.start();
      socket?.arm();
      return { opsServer, opsPort, slackServer: undefined };
    }
    const slackServer = holdToLimits(
      (await app.start(config.slack.port, SERVER_OPTIONS)) as Server,
    );
    return { opsServer, opsPort, slackServer };
  } catch (error) {
    opsServer?.close();
    throw error;
  }
}

/**
 * The routes' own listener, with the limits of Slack's (request-gate.ts): it is as public as
 * that one when it serves CometChat's webhooks. `maxConnections` is given in tests alone.
 */
export function routesListener(routes: readonly HttpRoute[], maxConnections?: number): Server {
  return holdToLimits(createServer(SERVER_OPTIONS, opsHandler(routes)), maxConnections);
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve((server.address() as AddressInfo).port));
  });
}
