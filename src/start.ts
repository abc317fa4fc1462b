import { createServer, Server } from 'node:http';
import type { App } from '@slack/bolt';
import type { Config } from './config.ts';
import { systemCodeOf } from './error-cause.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './observe/metrics.ts';
import { type HttpRoute, opsHandler } from './observe/readiness.ts';
import { SLACK_ENDPOINT } from './slack/receiver.ts';
import { holdToLimits, SERVER_OPTIONS } from './slack/request-gate.ts';
import { errorField, platformErrorCode } from './slack/slack-errors.ts';

// What starting asks beyond putting the parts together (app.ts does that): the bot token
// checked before anything listens, and the listeners up, each on the port its mode wants.

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

/** What Slack says of a bot token it will not take: the setting is wrong, not Slack down. */
const TOKEN_REFUSED = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
]);

/** Where the Web API client sends auth.test, and whether SLACK_API_URL chose it. */
export interface SlackAddress {
  url: string;
  fromSetting: boolean;
}

/**
 * Bolt's `app.init()` (auth.test, deferred from its constructor) and the team the token belongs
 * to, asked before anything listens: a token Slack refuses fails the start with the setting's
 * name instead of an app that refuses every request, and no answer at all with the address.
 */
export async function checkToken(
  app: App,
  installedTeam: () => Promise<string | undefined>,
  slack: SlackAddress,
): Promise<void> {
  try {
    await app.init();
    await installedTeam();
  } catch (error) {
    // The Web API client's code for a request that got no answer (its own words: "A request
    // error occurred: fetch failed"), with the connection's error as `original`.
    if (errorField(error, 'code') === 'slack_webapi_request_error') {
      throw new Error(unreachableSentence(slack, systemCodeOf(errorField(error, 'original'))));
    }
    const code = platformErrorCode(error);
    if (code === undefined || !TOKEN_REFUSED.has(code)) throw error;
    throw new Error(
      `Slack refused SLACK_BOT_TOKEN (${code}): check that it is the Bot User OAuth Token of this app's install.`,
    );
  }
}

/** Slack could not be reached at start: where the app tried, why, and what to check. */
export function unreachableSentence(slack: SlackAddress, cause: string | undefined): string {
  const check = slack.fromSetting
    ? 'check SLACK_API_URL'
    : "check this machine's way out to Slack (a proxy or firewall), or set SLACK_API_URL";
  return `Could not reach Slack at ${slack.url} (auth.test: ${cause ?? 'no connection'}); ${check}.`;
}

export interface Listening {
  /** Bolt's HTTP listener (HTTP mode). */
  slackServer: Server | undefined;
  /** The health routes' own server (Socket Mode, or METRICS_PORT). */
  opsServer: Server | undefined;
  /** The HTTP listener's port, and the health routes'. */
  port: number;
  opsPort: number;
}

/**
 * The listeners up and Slack's connection open; what was opened is closed again on a failure.
 * Socket Mode has no public listener, and METRICS_PORT asks for another one: the health,
 * readiness and metrics routes then get a small server of their own, which in Socket Mode is
 * the one listener, so CometChat's webhooks arrive there too.
 */
export async function listenAll(
  config: Config,
  logger: Logger,
  app: App,
  socket: { arm(): void } | undefined,
  routes: { ops: readonly HttpRoute[]; webhook: HttpRoute },
): Promise<Listening> {
  const listening = await listenEach(config, app, socket, routes);
  const { port, opsPort } = listening;
  logger.info(
    { port, opsPort, mode: config.slack.socketMode ? 'socket' : 'http' },
    config.slack.socketMode
      ? 'app started in Socket Mode'
      : `app started over HTTP at ${SLACK_ENDPOINT}`,
  );
  return listening;
}

async function listenEach(
  config: Config,
  app: App,
  socket: { arm(): void } | undefined,
  routes: { ops: readonly HttpRoute[]; webhook: HttpRoute },
): Promise<Listening> {
  const { socketMode, metricsPort } = config.slack;
  const opsPortWanted = socketMode ? (metricsPort ?? config.slack.port) : metricsPort;
  if (opsPortWanted === undefined) {
    const slackServer = await startHttp(app, config.slack.port);
    const port = portOf(slackServer);
    return { slackServer, opsServer: undefined, port, opsPort: port };
  }
  const opsServer = routesListener(socketMode ? [...routes.ops, routes.webhook] : routes.ops);
  try {
    const opsPort = await listen(opsServer, opsPortWanted);
    if (!socketMode) {
      const slackServer = await startHttp(app, config.slack.port);
      return { slackServer, opsServer, port: portOf(slackServer), opsPort };
    }
    await app.start();
    socket?.arm();
    return { slackServer: undefined, opsServer, port: opsPort, opsPort };
  } catch (error) {
    opsServer.close();
    throw error;
  }
}

/** Bolt's HTTP receiver listening, held to the request gate's limits. */
async function startHttp(app: App, port: number): Promise<Server> {
  const server = await app.start(port, SERVER_OPTIONS);
  if (!(server instanceof Server)) throw new Error('Bolt’s HTTP receiver gave no server');
  return holdToLimits(server);
}

/**
 * What features do once the app has started, not awaited by the start (CometChat being slow or
 * down never holds it): settles once done, a failure logged.
 */
export function startChecks(atStart: (log: Logger) => Promise<unknown>, logger: Logger) {
  return atStart(logger.child({ component: 'start-check' })).then(
    () => undefined,
    (error: unknown) => logger.warn({ err: error }, 'start check failed'),
  );
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
    server.listen(port, () => resolve(portOf(server)));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on a port');
  return address.port;
}
