import type { DestinationStream } from 'pino';
import { type RunningApp, startSlackApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import type { Store } from '../../src/store/store.ts';
import { type Sandbox, startSandbox } from '../cometchat-standin/server.ts';
import { createSlackDriver, type SlackDriver } from '../slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../slack-standin/server.ts';

// The whole app on one machine with no accounts: the CometChat sandbox, the Slack stand-in
// and the real Bolt app between them, driven the way Slack drives it. The offline try and the
// integration tests both start exactly this.

export const OFFLINE_SECRETS = Object.freeze({
  apiKey: 'sandbox-api-key-0f3c9a',
  signingSecret: 'offline-signing-secret-7d21e4',
});

/** The user the driver acts as (the stand-in's default). */
export const OFFLINE_OPERATOR = 'U0OPERATOR';

export interface OfflineStackOptions {
  mode?: 'http' | 'socket';
  /** Extra or overriding environment variables for the app. */
  env?: Record<string, string | undefined>;
  logDestination?: DestinationStream;
  sandboxLatencyMs?: number;
  store?: Store;
  /** Share a running sandbox and Slack stand-in (several replicas of the app); not stopped here. */
  shared?: { sandbox: Sandbox; slack: SlackStandIn };
}

export interface OfflineStack {
  sandbox: Sandbox;
  slack: SlackStandIn;
  app: RunningApp;
  config: Config;
  logger: Logger;
  /** Sends signed requests to the app over HTTP (HTTP mode). */
  driver: SlackDriver;
  appUrl: string;
  stop(): Promise<void>;
}

/** The app's environment for the sandbox and the Slack stand-in, with no accounts. */
export function offlineEnv(
  sandbox: Pick<Sandbox, 'apiUrl' | 'callUrl'>,
  slack: Pick<SlackStandIn, 'botToken' | 'appToken' | 'apiUrl'>,
  mode: 'http' | 'socket',
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: OFFLINE_SECRETS.signingSecret,
    ...(mode === 'socket' ? { SLACK_APP_TOKEN: slack.appToken } : {}),
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    COMETCHAT_API_KEY: OFFLINE_SECRETS.apiKey,
    COMETCHAT_API_URL: sandbox.apiUrl,
    COMETCHAT_CALL_API_URL: sandbox.callUrl,
    LOG_LEVEL: 'info',
    // Offline, state lives as long as the run; tests that need a file or Redis say so.
    STORE_URL: 'memory:',
  };
}

export async function startOfflineStack(options: OfflineStackOptions = {}): Promise<OfflineStack> {
  const mode = options.mode ?? 'http';
  const sandbox =
    options.shared?.sandbox ??
    (await startSandbox({
      apiKey: options.env?.COMETCHAT_API_KEY ?? OFFLINE_SECRETS.apiKey,
      ...(options.sandboxLatencyMs !== undefined ? { latencyMs: options.sandboxLatencyMs } : {}),
    }));
  const slack =
    options.shared?.slack ??
    (await startSlackStandIn(
      options.env?.SLACK_BOT_TOKEN
        ? {
            botToken: options.env.SLACK_BOT_TOKEN,
            ...(options.env.SLACK_APP_TOKEN ? { appToken: options.env.SLACK_APP_TOKEN } : {}),
          }
        : {},
    ));
  // The operator the driver acts as is a workspace admin: with no EDITORS list, admins and
  // owners are the ones who may edit permissions.
  slack.setUsers([
    { id: OFFLINE_OPERATOR, name: 'operator', real_name: 'Offline Operator', is_admin: true },
  ]);
  const env = { ...offlineEnv(sandbox, slack, mode), ...options.env };
  const config = loadConfig(env);
  const logger = createLogger({
    level: config.logLevel,
    secrets: config.secrets,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const app = await startSlackApp({
    config,
    logger,
    ...(options.store ? { store: options.store } : {}),
  });
  if (mode === 'socket') await slack.socketConnected();
  const appUrl = `http://127.0.0.1:${app.port}/slack/events`;
  const driver = createSlackDriver({
    appUrl,
    signingSecret: config.slack.signingSecret ?? OFFLINE_SECRETS.signingSecret,
    standIn: slack,
  });
  return {
    sandbox,
    slack,
    app,
    config,
    logger,
    driver,
    appUrl,
    async stop() {
      // The app first: a Socket Mode client would otherwise try to reconnect to nothing.
      await app.stop();
      if (!options.shared) await Promise.all([slack.close(), sandbox.close()]);
    },
  };
}
