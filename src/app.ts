import { setTimeout as delay } from 'node:timers/promises';
import { appsFromConfig } from './apps/from-config.ts';
import type { CometChatClient } from './cometchat/client.ts';
import type { Config } from './config.ts';
import { createAuditTrail } from './features/audit/audit-trail.ts';
import { createFeatures } from './features/index.ts';
import { installSettings } from './features/installation.ts';
import { boltLevel, boltLogger, type Logger } from './log.ts';
import { handleRequests } from './middleware.ts';
import { CountedWebClient } from './observe/counted-web-client.ts';
import { createMetrics, type Metrics } from './observe/metrics.ts';
import { observedStore } from './observe/observed-store.ts';
import { opsRoutes, readinessChecks } from './observe/readiness.ts';
import { startTracing } from './observe/tracing.ts';
import { startPeriodic } from './periodic.ts';
import { createSlackClients } from './slack/clients.ts';
import { createDeliverer, type Deliverer, fetchWithin } from './slack/deliver.ts';
import { createInflight } from './slack/inflight.ts';
import { boltApp, createReceiver } from './slack/receiver.ts';
import { createTimeZones } from './slack/time-zones.ts';
import { checkToken, listenAll, type RunningApp, startChecks } from './start.ts';
import { createDraining, stopInOrder } from './stop.ts';
import { openStore } from './store/open-store.ts';
import { createMemoryStore, type Store } from './store/store.ts';

// The composition root: what the app is made of, in the order it is made, and how it starts and
// stops. main.ts reads the config and makes the logger; tests pass their own (and parts).

export interface SlackAppOptions {
  config: Config;
  logger: Logger;
  /** Injected in tests that read them; one registry per app otherwise. */
  metrics?: Metrics;
  /** Injected in tests; built from the config otherwise. */
  cometchat?: CometChatClient;
  deliver?: Deliverer;
  /** A store passed in belongs to the caller; startSlackApp opens (and closes) one otherwise. */
  store?: Store;
  /** The features' clock (Unix ms): injected in tests of what is due when; `Date.now` otherwise. */
  now?: () => number;
  /** How the features wait: injected in tests of what waits; a timer otherwise. */
  sleep?: (ms: number) => Promise<void>;
}

/** An access check waits within a budget of its own; its request may outlive it (for the next). */
const ACCESS_MS = 5_000;
/** Audit posts do not wait out a 429 either (see createAuditTrail). */
const AUDIT_MS = 3_000;

/** Builds the app, every route and listener complete; starts nothing, asks Slack nothing. */
export function createSlackApp(options: SlackAppOptions) {
  const { config, logger, cometchat, now = Date.now, sleep = delay } = options;
  const metrics = options.metrics ?? createMetrics();
  // Clients: Slack's Web API (each failed call counted), and each CometChat app's.
  const bolt = boltLogger(logger);
  const logLevel = boltLevel(config.logLevel);
  const slack = createSlackClients(
    { botToken: config.slack.botToken, apiUrl: config.slack.apiUrl, logger: bolt, logLevel },
    (token, clientOptions) => new CountedWebClient(token, clientOptions, metrics),
  );
  const accessClient = slack.quick(ACCESS_MS);
  const { apps, access } = appsFromConfig(config, { logger, metrics, accessClient, cometchat });
  // The store, each failed operation counted.
  const store = observedStore(options.store ?? createMemoryStore(), metrics);
  // The features, over what they are given.
  const deliver = options.deliver ?? createDeliverer(slack.client);
  const budgetSeconds = Math.round(config.cometchat.budgetMs / 1000);
  const sentences = { budgetSeconds, secrets: config.secrets };
  const { auditChannel: channel } = config;
  const features = createFeatures({
    apps,
    deliver,
    views: slack.views,
    client: slack.client,
    store,
    audit: createAuditTrail({ store, client: slack.quick(AUDIT_MS), channel, now, metrics, apps }),
    access,
    timeZones: createTimeZones(accessClient),
    now,
    sleep,
    budgetMs: config.cometchat.budgetMs,
    ...sentences,
    logger,
    lookupClient: accessClient,
    countWebhook: (name, outcome) => metrics.webhookEvent(name, outcome),
    ...installSettings(config),
  });
  // The HTTP routes: health, readiness (of the socket the receiver makes below) and metrics;
  // CometChat's webhooks, complete (answered 503 once a stop refuses them).
  const inflight = createInflight();
  const draining = createDraining(inflight);
  const checks = readinessChecks({ socket: () => socket, store, stopping: draining.draining });
  const routes = {
    ops: opsRoutes({ metrics, checks }),
    webhook: draining.refusable(features.webhookRoute),
  };
  // The receiver, given its routes (with METRICS_PORT the health routes have a listener of their
  // own), and Bolt's app over it.
  const { receiver, socket } = createReceiver({
    ...config.slack,
    routes: [...(config.slack.metricsPort === undefined ? routes.ops : []), routes.webhook],
    clientOptions: slack.options(),
    bolt,
    logger,
    onReconnect: () => metrics.socketReconnect(),
    onAck: (kind, name, seconds) => metrics.slackAck(kind, name, seconds),
  });
  // Bolt's `respond` posts with clientOptions.fetch: given a time limit (deliver.ts).
  const clientOptions = { ...slack.options(), fetch: fetchWithin() };
  const boltOptions = { logger: bolt, logLevel, clientOptions };
  const app = boltApp(config.slack.botToken, receiver, boltOptions);
  // What every request goes through before its listener (middleware.ts), then the features'.
  handleRequests(app, { logger, metrics, apps, slack, access, inflight, deliver, ...sentences });
  features.register(app);
  return { app, slack, metrics, features, routes, socket, inflight, draining };
}

/** Starts the app; resolves once it accepts requests. */
export async function startSlackApp(options: SlackAppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  // Closed in reverse if the start fails, and by the stop once nothing is in flight.
  const opened: (() => Promise<unknown>)[] = [];
  const closeOpened = async () => {
    for (const close of opened.splice(0).reverse()) await close();
  };
  try {
    const store = options.store ?? (await openStore(config.storeUrl));
    if (!options.store) opened.push(() => store.close());
    const tracing = await startTracing(config, logger);
    opened.push(() => tracing.shutdown());
    const built = createSlackApp({ ...options, store });
    await checkToken(built.app, built.slack.installedTeam, {
      url: built.slack.apiUrl,
      fromSetting: config.slack.apiUrl !== undefined,
    });
    // Each feature's periodic work, now and then every minute (a pending record left by a
    // stopped replica gets its audit record, an approval past its expiry is closed).
    const log = logger.child({ component: 'sweep' });
    const sweep = startPeriodic(() => built.features.periodic(log), log);
    opened.push(() => sweep.stop());
    const listening = await listenAll(config, logger, built.app, built.socket, built.routes);
    const graceMs = config.shutdownGraceMs;
    const stop = stopInOrder({ ...built, ...listening, logger, graceMs, finally: closeOpened });
    const { app, metrics } = built;
    const checked = startChecks(built.features.atStart, logger);
    return { app, port: listening.port, opsPort: listening.opsPort, metrics, checked, stop };
  } catch (error) {
    await closeOpened();
    throw error;
  }
}
