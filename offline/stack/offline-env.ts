import { DEFAULT_SANDBOX_KEY } from '../cometchat-standin/cli.ts';
import { SANDBOX_SEEDS, type Sandbox } from '../cometchat-standin/server.ts';
import type { SlackStandIn } from '../slack-standin/server.ts';

// What every offline run gives the app (offline-stack.ts, the stand-ins' serve.ts and
// standins.ts): the stand-ins' addresses and the fixed secrets they accept. Apart from the
// offline stack, so that what only prints settings does not load the app.

export const OFFLINE_SECRETS = Object.freeze({
  // The sandbox's own default (`npm run sandbox`): one key for every offline run.
  apiKey: DEFAULT_SANDBOX_KEY,
  signingSecret: 'offline-signing-secret-7d21e4',
});

/** The user the driver acts as (the stand-in's default). */
export const OFFLINE_OPERATOR = 'U0OPERATOR';

export type SlackAddresses = Pick<SlackStandIn, 'botToken' | 'appToken' | 'apiUrl'>;

/** What the app needs to reach the Slack stand-in, and what every offline run shares. */
export function slackEnv(slack: SlackAddresses, mode: 'http' | 'socket'): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: OFFLINE_SECRETS.signingSecret,
    ...(mode === 'socket' ? { SLACK_APP_TOKEN: slack.appToken } : {}),
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    LOG_LEVEL: 'info',
    // Offline, state lives as long as the run; tests that need a file or Redis say so.
    STORE_URL: 'memory:',
  };
}

/** The app's environment for the sandbox and the Slack stand-in, with no accounts. */
export function offlineEnv(
  sandbox: Pick<Sandbox, 'apiUrl' | 'callUrl'>,
  slack: SlackAddresses,
  mode: 'http' | 'socket',
): Record<string, string> {
  return {
    ...slackEnv(slack, mode),
    COMETCHAT_API_KEY: OFFLINE_SECRETS.apiKey,
    // The seed's app id: the one its session ids and dashboard links name.
    COMETCHAT_APP_ID: SANDBOX_SEEDS.default.appId,
    COMETCHAT_REGION: SANDBOX_SEEDS.default.region,
    COMETCHAT_API_URL: sandbox.apiUrl,
    COMETCHAT_CALL_API_URL: sandbox.callUrl,
  };
}
