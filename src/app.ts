import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import { createAccess, requireViewer } from './access/access.ts';
import { createApps } from './apps/apps.ts';
import { withAppFailures } from './cometchat/app-failures.ts';
import { type CometChatClient, createCometChatClient } from './cometchat/client.ts';
import { withRoleCache } from './cometchat/role-cache.ts';
import { appEnvPrefix, type CometChatAppConfig, type Config } from './config.ts';
import { createAppsCommand } from './features/apps/apps-command.ts';
import {
  createAuditCommand,
  createAuditTrail,
  registerAuditList,
} from './features/audit/audit-trail.ts';
import { auditSummaryLine } from './features/audit/audit-view.ts';
import { sweepIntents } from './features/audit/intent-sweep.ts';
import { createCallCommand, registerCallLookup } from './features/calls/call-lookup.ts';
import { createCallsCommand, registerCallSearch } from './features/calls/call-search.ts';
import { lookupFormView } from './features/calls/lookup-modal-view.ts';
import type { FeatureDeps } from './features/deps.ts';
import { helpMessage } from './features/help/help-view.ts';
import { createHome, registerHome } from './features/home/home.ts';
import { homeApprovalBlocks } from './features/permissions/approval-view.ts';
import {
  createApprovalsCommand,
  expireApprovals,
  registerApprovals,
  requestsFor,
} from './features/permissions/approvals.ts';
import { type EditorDeps, LOADING_VIEW_AFTER_MS } from './features/permissions/editor-context.ts';
import {
  createEditorOpener,
  registerPermissionEditor,
} from './features/permissions/permission-editor.ts';
import { createRolesCommand, registerRoleList } from './features/roles/role-list.ts';
import { boltLogger } from './log.ts';
import { CountedWebClient } from './observe/counted-web-client.ts';
import { countHandled } from './observe/handled.ts';
import { createMetrics, type Metrics } from './observe/metrics.ts';
import { observedStore } from './observe/observed-store.ts';
import { opsHandler, opsRoutes } from './observe/readiness.ts';
import { startPeriodic } from './periodic.ts';
import { noticeMessage } from './slack/blocks.ts';
import { resolveSearch } from './slack/call-filters.ts';
import { registerCommand } from './slack/command-router.ts';
import { createDeliverer, type Deliverer, destinationOf } from './slack/deliver.ts';
import { createInflight } from './slack/inflight.ts';
import { refuseOtherWorkspaces } from './slack/one-workspace.ts';
import { requestScope } from './slack/request-context.ts';
import {
  gateRequests,
  MAX_BODY_BYTES,
  MAX_CONNECTIONS,
  SERVER_OPTIONS,
} from './slack/request-gate.ts';
import { guardSocket } from './slack/socket-guard.ts';
import { createViews } from './slack/views.ts';
import { openStore } from './store/open-store.ts';
import { createMemoryStore, type Store } from './store/store.ts';
import { createErrorHandler } from './voice/error-handler.ts';

export interface SlackAppOptions {
  config: Config;
  logger: Logger;
  /** Injected in tests that read them; one registry per app otherwise. */
  metrics?: Metrics;
  /** Injected in tests; built from the config otherwise. */
  cometchat?: CometChatClient;
  deliver?: Deliverer;
  store?: Store;
}

export interface RunningApp {
  app: App;
  /** Port of the HTTP listener (Slack requests over HTTP, or the health routes in Socket Mode). */
  port: number;
  /** Port of /healthz, /readyz and /metrics: METRICS_PORT's listener, else `port`. */
  opsPort: number;
  metrics: Metrics;
  /**
   * Stops taking requests, lets those in flight finish within SHUTDOWN_GRACE_MS, then closes the
   * connection to Slack and the store.
   */
  stop(): Promise<void>;
}

/**
 * "Review changes" answers Slack within this many milliseconds of reaching the app, whatever the
 * access check and the store do: Slack allows three seconds from the click, network included.
 */
const REVIEW_DEADLINE_MS = 2_000;

/** Where Slack sends commands, interactions and events over HTTP. */
const SLACK_ENDPOINT = '/slack/events';
/** Slack's Web API, for the client and the views calls alike, unless SLACK_API_URL is set. */
const SLACK_API_URL = 'https://slack.com/api';
/** A trigger_id is good for this long after the click (views.open and views.push spend one). */
const TRIGGER_LIFE_MS = 3_000;
/** How long one Web API call may take, the views calls included. */
const SLACK_TIMEOUT_MS = 10_000;
/**
 * Replies are interactive: a few quick retries, not the Web API client's default of ten spread
 * over half an hour. The views calls retry the same way.
 */
const SLACK_RETRY = { retries: 2, minTimeout: 200, maxTimeout: 1_000 };

/**
 * Builds the Bolt app with every feature registered. Nothing is started, and nothing is asked of
 * Slack yet: `app.init()` (which checks the bot token) comes before `app.start()`.
 */
export function createSlackApp(options: SlackAppOptions) {
  const { config, logger } = options;
  const bolt = boltLogger(logger);
  const metrics = options.metrics ?? createMetrics();
  // A fresh object per client, because the Socket Mode client fills in defaults on the one it
  // is given.
  const slackApiUrl = config.slack.apiUrl ?? SLACK_API_URL;
  const slackClientOptions = () => ({
    slackApiUrl: `${slackApiUrl}/`,
    retryConfig: { ...SLACK_RETRY },
    timeout: SLACK_TIMEOUT_MS,
  });
  const store = observedStore(options.store ?? createMemoryStore(), metrics);
  // Filled in once the receiver exists: Socket Mode is ready while its connection is open.
  let slackReady: () => boolean = () => true;
  const routes = opsRoutes({
    metrics,
    checks: {
      slack: async () => (slackReady() ? undefined : 'not connected'),
      store: async () => {
        await store.ping();
        return undefined;
      },
    },
  });

  const receiver = config.slack.socketMode
    ? new SocketModeReceiver({
        appToken: config.slack.appToken ?? '',
        logger: bolt,
        // The Socket Mode client opens its connection through apps.connections.open, so it
        // must reach the same Web API address as the app's own client.
        installerOptions: { clientOptions: slackClientOptions() },
      })
    : new HTTPReceiver({
        signingSecret: config.slack.signingSecret ?? '',
        endpoints: SLACK_ENDPOINT,
        bodyLimit: MAX_BODY_BYTES,
        // With METRICS_PORT they move to a listener of their own (startSlackApp).
        customRoutes: config.slack.metricsPort === undefined ? routes : [],
        logger: bolt,
        port: config.slack.port,
      });

  if (receiver instanceof HTTPReceiver) {
    gateRequests(receiver, {
      endpoint: SLACK_ENDPOINT,
      logger: logger.child({ component: 'http' }),
    });
  }
  const socket =
    receiver instanceof SocketModeReceiver
      ? guardSocket(receiver.client, {
          log: logger.child({ component: 'socket-mode' }),
          onReconnect: () => metrics.socketReconnect(),
        })
      : undefined;
  if (socket) slackReady = socket.connected;

  const app = new App({
    token: config.slack.botToken,
    receiver,
    logger: bolt,
    // Without it Bolt sets its clients' loggers to info, whatever LOG_LEVEL says.
    logLevel: boltLevel(config.logLevel),
    clientOptions: slackClientOptions(),
    extendedErrorHandler: true,
    // Bolt's conversation store (context.conversation) is not used here; left on, it looked up
    // every request's channel in memory and built an Error for each miss.
    convoStore: false,
    // Bolt would otherwise call auth.test from the constructor, where a rejection (a wrong
    // token, Slack unreachable) is unhandled and leaves an app that refuses every request.
    // startSlackApp runs it through `app.init()` instead, so a bad token fails the start.
    deferInitialization: true,
  });

  // One client per CometChat app, each with its own role-list cache.
  const clientFor = (settings: CometChatAppConfig): CometChatClient => {
    const client =
      options.cometchat ??
      createCometChatClient({
        apiUrl: settings.apiUrl,
        callApiUrl: settings.callApiUrl,
        apiKey: settings.apiKey,
        timeoutMs: config.cometchat.timeoutMs,
        budgetMs: config.cometchat.budgetMs,
        logger: logger.child({ component: 'cometchat', app: settings.name }),
        observe: metrics,
      });
    const cached =
      config.cometchat.roleCacheSeconds > 0
        ? withRoleCache(client, { ttlMs: config.cometchat.roleCacheSeconds * 1000 })
        : client;
    // With several apps, a failure says which app it is about (and which key setting).
    return config.cometchat.apps.length > 1
      ? withAppFailures(cached, {
          name: settings.name,
          keySetting: `${appEnvPrefix(settings.name)}API_KEY`,
        })
      : cached;
  };
  // The app's own Web API clients, counted (Bolt's, app.client, only checks the token at start),
  // each the shared options with its own changes.
  const countedClient = (changes: WebClientOptions = {}) =>
    new CountedWebClient(
      config.slack.botToken,
      { ...slackClientOptions(), logger: bolt, logLevel: boltLevel(config.logLevel), ...changes },
      metrics,
    );
  const slack = countedClient();
  const deliver = options.deliver ?? createDeliverer(slack);
  // The team the bot token belongs to, asked once (the start asks first: startSlackApp).
  let team: Promise<string | undefined> | undefined;
  const installedTeam = () => {
    if (team === undefined) {
      team = slack.auth.test().then((identity) => identity.team_id);
      // A failed answer is not kept: the next request asks again.
      team.catch(() => {
        team = undefined;
      });
    }
    return team;
  };

  // Access checks and audit posts get clients of their own that neither wait out a 429 nor
  // retry: an access check runs before some acknowledgements (Slack allows three seconds),
  // and a client waiting on Retry-After pauses every call it makes meanwhile.
  const quickClient = (timeout: number) =>
    countedClient({ retryConfig: { retries: 0 }, timeout, rejectRateLimitedCalls: true });
  const views = createViews({
    triggered: quickClient(TRIGGER_LIFE_MS),
    // A person waits on a modal: a rate limit fails at once (the sentence says so) instead of
    // holding the modal for Slack's Retry-After.
    client: countedClient({ rejectRateLimitedCalls: true }),
  });
  // Each access check waits for Slack within a budget of its own (createAccess); its requests
  // may run longer, so that an answer that comes too late for one check serves the next.
  const accessClient = quickClient(5_000);
  // Using the app is for VIEWERS, and for anyone who may edit one of the apps.
  const viewers = config.access.viewers && [
    ...config.access.viewers,
    ...config.cometchat.apps.flatMap((settings) => settings.editors ?? []),
  ];
  const access = createAccess({ client: accessClient, editors: config.access.editors, viewers });
  const apps = createApps(
    config.cometchat.apps.map((settings) => ({
      name: settings.name,
      appId: settings.appId,
      region: settings.region,
      apiKey: settings.apiKey,
      cometchat: clientFor(settings),
      // Each app's own editors (COMETCHAT_<NAME>_EDITORS, else EDITORS) decide who edits it.
      access: createAccess({
        client: accessClient,
        editors: settings.editors,
        editorsSetting: settings.editorsSetting,
        viewers,
      }),
      approval: settings.approvalChannel
        ? {
            channel: settings.approvalChannel,
            // APPROVERS narrows who of the app's editors may approve.
            approvers: settings.approvers
              ? createAccess({
                  client: accessClient,
                  editors: settings.approvers,
                  editorsSetting: settings.approversSetting,
                  viewers,
                })
              : undefined,
          }
        : undefined,
    })),
    config.cometchat.channelApps,
  );
  const deps: FeatureDeps = {
    apps,
    deliver,
    views,
    budgetSeconds: Math.round(config.cometchat.budgetMs / 1000),
  };
  app.use(requestScope(logger));
  app.use(refuseOtherWorkspaces(installedTeam));
  app.use(
    countHandled(
      metrics,
      config.cometchat.apps.map((a) => a.name),
    ),
  );
  const inflight = createInflight();
  app.use(inflight.middleware);
  app.use(
    requireViewer(access, (body, sentence, log) =>
      deliver(destinationOf(body), noticeMessage(sentence), log).then(() => undefined),
    ),
  );
  app.error(createErrorHandler({ deliver, views, logger, budgetSeconds: deps.budgetSeconds }));

  const editorDeps: EditorDeps = {
    ...deps,
    store,
    audit: createAuditTrail({
      store,
      // Its own client, which does not wait out a 429 (see createAuditTrail).
      client: quickClient(3_000),
      channel: config.auditChannel,
      metrics,
    }),
    now: Date.now,
    reviewDeadlineMs: REVIEW_DEADLINE_MS,
    loadingViewAfterMs: LOADING_VIEW_AFTER_MS,
    approvalTtlMs: config.approvalTtlHours * 60 * 60 * 1000,
  };
  const audit = createAuditCommand({ ...deps, store });
  const openEditor = createEditorOpener(editorDeps);
  const roles = createRolesCommand(deps);
  const call = createCallCommand(deps);
  const calls = createCallsCommand(deps);
  const listApps = createAppsCommand(deps);
  const listApprovals = createApprovalsCommand(editorDeps);
  registerCommand(
    app,
    {
      help: (problem, ref) =>
        helpMessage(
          problem,
          ref,
          apps.all.map((a) => a.name),
        ),
      roles: (sub, { body, scope, app }) => roles(app, sub.page, body, scope),
      call: (sub, { body, scope, app }) => call(app, sub.sessionId, sub.onBehalfOf, body, scope),
      // `since:2h` is counted back from when the command arrived.
      calls: (sub, { body, scope, app }) =>
        calls(app, resolveSearch(sub.search, Math.floor(scope.receivedAt / 1000)), body, scope),
      apps: (_sub, { body, scope }) => listApps(body, scope),
      approvals: (_sub, { body, scope }) => listApprovals(body, body.user_id, scope),
      perms: (sub, { body, scope, app: chosen }) =>
        openEditor(body.trigger_id, chosen, sub.role, body.user_id, scope),
      audit: (sub, { body, scope, app }) =>
        audit(app, { role: sub.role, page: sub.page }, body, scope),
    },
    { deliver, apps },
  );
  registerRoleList(app, deps);
  registerCallLookup(app, deps);
  registerCallSearch(app, deps);
  registerPermissionEditor(app, editorDeps);
  registerApprovals(app, editorDeps);
  const homeDeps = {
    ...deps,
    access,
    now: Date.now,
    parts: {
      approvals: async (userId: string, log: Logger) => {
        const { waiting, own } = await requestsFor(editorDeps, userId, { log });
        return homeApprovalBlocks(waiting, own);
      },
      recentChanges: async (limit: number) =>
        (await store.listAudit({ offset: 0, limit })).records.map(auditSummaryLine),
      openEditor,
      lookupForm: () => lookupFormView(apps.all.map((a) => a.name)),
      help: () =>
        helpMessage(
          undefined,
          undefined,
          apps.all.map((a) => a.name),
        ),
    },
  };
  const home = createHome(homeDeps);
  editorDeps.refreshHome = home.publish;
  registerHome(app, homeDeps, home);
  registerAuditList(app, { ...deps, store });

  return {
    app,
    installedTeam,
    receiver,
    deps,
    store,
    metrics,
    routes,
    socket,
    inflight,
    audit: editorDeps.audit,
    expireApprovals: (log: Logger) => expireApprovals(editorDeps, slack, log),
  };
}

/** Starts the app; resolves once it accepts requests. */
export async function startSlackApp(options: SlackAppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  // A store passed in belongs to the caller; one opened here is closed on stop.
  const opened = options.store ?? (await openStore(config.storeUrl));
  const closeStore = options.store ? async () => {} : () => opened.close();
  const built = createSlackApp({ ...options, store: opened });
  const { app, audit, store, metrics, routes, socket, inflight } = built;
  try {
    await app.init();
    await built.installedTeam();
  } catch (error) {
    await closeStore();
    throw error;
  }
  // Updates that were in flight when an earlier run stopped get their records now, and then
  // every minute (another replica's may outlive it); approval requests past their expiry are
  // closed on the same beat.
  const log = logger.child({ component: 'sweep' });
  const intents = { store, audit, now: Date.now, afterMs: 2 * config.cometchat.budgetMs, log };
  const sweep = startPeriodic(
    () => Promise.all([sweepIntents(intents), built.expireApprovals(log)]),
    log,
  );
  // Socket Mode has no public listener and METRICS_PORT asks for another one: the health,
  // readiness and metrics routes get a small server of their own.
  const opsPortWanted = config.slack.socketMode
    ? (config.slack.metricsPort ?? config.slack.port)
    : config.slack.metricsPort;
  const opsServer =
    opsPortWanted === undefined ? undefined : createServer(SERVER_OPTIONS, opsHandler(routes));
  const opsPort = opsServer ? await listen(opsServer, opsPortWanted as number) : undefined;

  let slackServer: Server | undefined;
  if (config.slack.socketMode) {
    await app.start();
    socket?.arm();
  } else {
    slackServer = (await app.start(config.slack.port, SERVER_OPTIONS)) as Server;
    slackServer.maxConnections = MAX_CONNECTIONS;
  }
  const port = slackServer ? (slackServer.address() as AddressInfo).port : (opsPort as number);
  logger.info(
    { port, opsPort: opsPort ?? port, mode: config.slack.socketMode ? 'socket' : 'http' },
    config.slack.socketMode
      ? 'app started in Socket Mode'
      : 'app started over HTTP at /slack/events',
  );

  const stop = async () => {
    // No new requests: over HTTP the listener stops accepting connections (the load balancer
    // sends them to another replica); in Socket Mode the connection closes, and Slack sends new
    // payloads over the app's other connections. Work already here goes on meanwhile.
    socket?.stop();
    if (slackServer) {
      slackServer.close();
      slackServer.closeIdleConnections();
    } else {
      await app.stop();
    }
    const drained = await inflight.idle(config.shutdownGraceMs);
    if (!drained) {
      logger.warn(
        { inflight: inflight.count(), graceMs: config.shutdownGraceMs },
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
    await sweep.stop();
    await closeStore();
  };
  return { app, port, opsPort: opsPort ?? port, metrics, stop };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve((server.address() as AddressInfo).port));
  });
}

function boltLevel(level: Config['logLevel']): LogLevel {
  if (level === 'debug' || level === 'trace') return LogLevel.DEBUG;
  if (level === 'info') return LogLevel.INFO;
  if (level === 'warn') return LogLevel.WARN;
  return LogLevel.ERROR;
}
