import type { Logger } from 'pino';
import { requireViewer } from './access/access.ts';
import { appsFromConfig } from './apps/from-config.ts';
import type { CometChatClient } from './cometchat/client.ts';
import type { Config } from './config.ts';
import { createAuditTrail } from './features/audit/audit-trail.ts';
import { registerFeatures, SUBCOMMAND_NAMES, WEBHOOK_ROUTE_PATH } from './features/index.ts';
import { boltLogger } from './log.ts';
import { createMetrics, type Metrics } from './observe/metrics.ts';
import { observeRequests } from './observe/observe-requests.ts';
import { observedStore } from './observe/observed-store.ts';
import { type HttpRoute, opsRoutes } from './observe/readiness.ts';
import { noticeMessage } from './slack/blocks.ts';
import { boltLevel, createSlackClients } from './slack/clients.ts';
import { createDeliverer, type Deliverer, destinationOf } from './slack/deliver.ts';
import { createInflight, type Inflight } from './slack/inflight.ts';
import { refuseOtherWorkspaces } from './slack/one-workspace.ts';
import { boltApp, createReceiver } from './slack/receiver.ts';
import { requestScope } from './slack/request-context.ts';
import { createTimeZones } from './slack/time-zones.ts';
import { acknowledgeUnanswered } from './slack/unanswered.ts';
import { createMemoryStore, type Store } from './store/store.ts';
import { createErrorHandler } from './voice/error-handler.ts';

// The composition root: the clients, the store, the receiver and the features, put together.
// Starting and stopping are start.ts's.

export interface SlackAppOptions {
  config: Config;
  logger: Logger;
  /** Injected in tests that read them; one registry per app otherwise. */
  metrics?: Metrics;
  /** Injected in tests; built from the config otherwise. */
  cometchat?: CometChatClient;
  deliver?: Deliverer;
  store?: Store;
  /** The features' clock (Unix ms): injected in tests of what is due when; `Date.now` otherwise. */
  now?: () => number;
}

/** An access check waits within a budget of its own; its request may outlive it (for the next). */
const ACCESS_CLIENT_TIMEOUT_MS = 5_000;
/** Audit posts do not wait out a 429 either (see createAuditTrail). */
const AUDIT_CLIENT_TIMEOUT_MS = 3_000;

/**
 * Builds the Bolt app with every feature registered. Nothing is started, and nothing is asked of
 * Slack yet: `app.init()` (which checks the bot token) comes before `app.start()`.
 */
export function createSlackApp(options: SlackAppOptions) {
  const { config, logger, now = Date.now } = options;
  const metrics = options.metrics ?? createMetrics();
  const store = observedStore(options.store ?? createMemoryStore(), metrics);
  const inflight = createInflight();
  const webhooks = lateRoute(WEBHOOK_ROUTE_PATH, inflight);
  // Set by a stop's first step: /readyz answers 503 while the app still serves (start.ts).
  let draining = false;
  const { app, slack, receiver, socket, routes } = slackSide(config, logger, metrics, {
    store,
    webhookRoute: webhooks.route,
    draining: () => draining,
  });
  const { apps, access } = appsFromConfig(config, {
    logger,
    metrics,
    accessClient: slack.quick(ACCESS_CLIENT_TIMEOUT_MS),
    cometchat: options.cometchat,
  });
  const deliver = options.deliver ?? createDeliverer(slack.client);
  const audit = createAuditTrail({
    store,
    client: slack.quick(AUDIT_CLIENT_TIMEOUT_MS),
    channel: config.auditChannel,
    now,
    metrics,
    apps,
  });
  const budgetSeconds = Math.round(config.cometchat.budgetMs / 1000);
  const voice = { budgetSeconds, secrets: config.secrets };
  const appNames = apps.all.map((a) => a.name);
  // Every request, in this order: its reference and logger, the workspace check, the count and
  // the span, the in-flight tally a stop waits for, VIEWERS; last, what no listener acknowledged.
  for (const middleware of [
    requestScope(logger),
    refuseOtherWorkspaces(slack.installedTeam),
    observeRequests(metrics, appNames, SUBCOMMAND_NAMES),
    inflight.middleware,
    requireViewer(access, (body, sentence, log) =>
      deliver(destinationOf(body), noticeMessage(sentence), log).then(() => undefined),
    ),
    acknowledgeUnanswered(),
  ]) {
    app.use(middleware);
  }
  // Bolt calls the error handler after the middleware (and the in-flight tally) is done: its
  // reply to the person is counted in flight too, so that a stop does not cut it.
  const answerFailure = createErrorHandler({ deliver, views: slack.views, logger, ...voice });
  app.error(async (failed: Parameters<typeof answerFailure>[0]) => {
    const end = inflight.begin();
    try {
      await answerFailure(failed);
    } finally {
      end();
    }
  });
  const features = registerFeatures(app, {
    apps,
    deliver,
    views: slack.views,
    client: slack.client,
    store,
    audit,
    access,
    timeZones: createTimeZones(slack.quick(ACCESS_CLIENT_TIMEOUT_MS)),
    now,
    budgetMs: config.cometchat.budgetMs,
    ...voice,
    logger,
    lookupClient: slack.quick(ACCESS_CLIENT_TIMEOUT_MS),
    countWebhook: (name, outcome) => metrics.webhookEvent(name, outcome),
  });
  webhooks.answerWith(features.webhooks);
  return {
    app,
    installedTeam: slack.installedTeam,
    receiver,
    store,
    metrics,
    routes,
    webhookRoute: webhooks.route,
    socket,
    inflight,
    drain: () => {
      draining = true;
    },
    refuseWebhooks: webhooks.refuse,
    periodic: features.periodic,
    atStart: features.atStart,
  };
}

/**
 * A route the listener is given when it is made, answered by what the features register later
 * (the listener is made before Bolt's app, and the features after it). Until then, and once a
 * stop has begun refusing: 503. Each request answered is in flight until its answer is sent,
 * so that a stop waits for it.
 */
function lateRoute(
  path: string,
  inflight: Pick<Inflight, 'begin'>,
): {
  route: HttpRoute;
  answerWith: (handler: HttpRoute['handler']) => void;
  /** From a stop on: 503, so that the sender retries elsewhere and the stop is not held up. */
  refuse: () => void;
} {
  let answer: HttpRoute['handler'] | undefined;
  let refusing = false;
  return {
    route: {
      path,
      method: ['POST'],
      handler: (req, res) => {
        if (refusing || !answer) {
          res.writeHead(503, { connection: 'close' }).end();
          return;
        }
        res.once('close', inflight.begin());
        answer(req, res);
      },
    },
    answerWith: (handler) => {
      answer = handler;
    },
    refuse: () => {
      refusing = true;
    },
  };
}

/** Slack's side: the Web API clients, the health routes, the receiver, and Bolt's app over it. */
function slackSide(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  parts: { store: Store; webhookRoute: HttpRoute; draining: () => boolean },
) {
  const { store, webhookRoute } = parts;
  const bolt = boltLogger(logger);
  const logLevel = boltLevel(config.logLevel);
  const slack = createSlackClients(
    { botToken: config.slack.botToken, apiUrl: config.slack.apiUrl, logger: bolt, logLevel },
    metrics,
  );
  // Socket Mode is ready while its connection is open (the receiver is made below).
  const routes = opsRoutes({
    metrics,
    checks: {
      slack: async () => (socket === undefined || socket.connected() ? undefined : 'not connected'),
      store: async () => {
        await store.ping();
        return undefined;
      },
      serving: async () => (parts.draining() ? 'stopping' : undefined),
    },
  });
  const { receiver, socket } = createReceiver({
    ...config.slack,
    // With METRICS_PORT they move to a listener of their own (start.ts); CometChat's webhooks
    // stay here, on the public listener.
    routes: [...(config.slack.metricsPort === undefined ? routes : []), webhookRoute],
    clientOptions: slack.options(),
    bolt,
    logger,
    onReconnect: () => metrics.socketReconnect(),
    onAck: (kind, name, seconds) => metrics.slackAck(kind, name, seconds),
  });
  const app = boltApp(config.slack.botToken, receiver, {
    logger: bolt,
    logLevel,
    clientOptions: slack.options(),
  });
  return { app, slack, receiver, socket, routes };
}
