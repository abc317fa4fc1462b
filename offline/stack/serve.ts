import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import {
  closeOnSignals,
  describeDelivery,
  describeSandbox,
  parseSandboxEnv,
  type SandboxCliConfig,
} from '../cometchat-standin/cli.ts';
import { SANDBOX_SEEDS, type Sandbox, startSandbox } from '../cometchat-standin/server.ts';
import { createSlackDriver } from '../slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../slack-standin/server.ts';
import { OFFLINE_OPERATOR, OFFLINE_SECRETS, offlineEnv } from './offline-env.ts';
import { renderMessage } from './terminal-render.ts';

// Both stand-ins on fixed ports, for an app started apart from them: the app's image under
// `docker compose --profile offline up` (docker-compose.yml). Prints the settings the app
// needs, and once the app connects in Socket Mode sends it one `/cometchat roles` and prints
// the reply. `npm run standins` (standins.ts) starts them the same way for `npm start`. Only
// the entry point at the bottom touches process.env.

const emptyIsMissing = (value: unknown) => (value === '' ? undefined : value);

const EnvSchema = z.object({
  // Where both stand-ins listen, and the host name the addresses they hand out carry (the
  // Socket Mode URL, each response_url). In a container, its own host name: listening on
  // 0.0.0.0 instead would hand the app addresses it cannot reach.
  STANDINS_HOST: z.preprocess(emptyIsMissing, z.string().default('127.0.0.1')),
  SLACK_STANDIN_PORT: z.preprocess(
    emptyIsMissing,
    z.coerce.number().int().min(0).max(65_535).default(4020),
  ),
});

export interface ServeConfig {
  host: string;
  slackPort: number;
  sandbox: SandboxCliConfig;
}

/**
 * Reads the settings: STANDINS_HOST and SLACK_STANDIN_PORT, and the sandbox's own (`npm run
 * sandbox`'s SANDBOX_* variables). The sandbox takes its default key (the one the offline app
 * is given) unless COMETCHAT_API_KEY says otherwise.
 */
export function parseServeEnv(env: Record<string, string | undefined>): ServeConfig {
  const parsed = EnvSchema.safeParse(env);
  const sandbox = parseSandboxEnv(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`stand-ins: invalid environment\n  ${problems.join('\n  ')}`);
  }
  return { host: parsed.data.STANDINS_HOST, slackPort: parsed.data.SLACK_STANDIN_PORT, sandbox };
}

/**
 * The app's settings for these stand-ins, in Socket Mode unless said: the offline stack's own,
 * less what a deployment decides (PORT, STORE_URL, LOG_LEVEL). docker-compose.yml's
 * `app-offline` carries exactly the Socket Mode ones (test/deploy/deploy-files.test.ts);
 * `npm run standins` writes the HTTP ones (standins.ts).
 */
export function standInSettings(
  sandbox: Pick<Sandbox, 'apiUrl' | 'callUrl' | 'seed'>,
  slack: Pick<SlackStandIn, 'botToken' | 'appToken' | 'apiUrl'>,
  apiKey: string,
  mode: 'socket' | 'http' = 'socket',
): Record<string, string> {
  const { PORT, STORE_URL, LOG_LEVEL, ...settings } = offlineEnv(sandbox, slack, mode);
  const seed = SANDBOX_SEEDS[sandbox.seed];
  return {
    ...settings,
    COMETCHAT_API_KEY: apiKey,
    COMETCHAT_APP_ID: seed.appId,
    COMETCHAT_REGION: seed.region,
  };
}

export interface ServedStandIns {
  sandbox: Sandbox;
  slack: SlackStandIn;
  close(): Promise<void>;
}

/**
 * Both stand-ins on the configured host and ports, the Slack one with the routes a driver in
 * another process needs (`npm run try -- --app`), and the sandbox's webhook as configured.
 */
export async function startStandIns(
  config: ServeConfig,
  print: (line: string) => void,
): Promise<ServedStandIns> {
  const { options, webhook } = config.sandbox;
  const sandbox = await startSandbox({ ...options, host: config.host });
  const slack = await startSlackStandIn({
    host: config.host,
    port: config.slackPort,
    controlRoutes: true,
  }).catch(async (error: unknown) => {
    await sandbox.close();
    throw error;
  });
  // As in the offline stack: the person the command comes from is a workspace admin.
  slack.setUsers([
    { id: OFFLINE_OPERATOR, name: 'operator', real_name: 'Offline Operator', is_admin: true },
  ]);
  if (webhook !== undefined) {
    sandbox.webhooks.configure(webhook.config);
    if (webhook.everySeconds !== undefined) {
      sandbox.webhooks.schedule({
        everySeconds: webhook.everySeconds,
        onDelivery: (delivery) => print(describeDelivery(delivery)),
      });
    }
  }
  return {
    sandbox,
    slack,
    close: () => Promise.all([slack.close(), sandbox.close()]).then(() => undefined),
  };
}

/** The stand-ins, said, and the settings an app in Socket Mode needs for them (compose's). */
export async function serveStandIns(
  config: ServeConfig,
  print: (line: string) => void,
): Promise<ServedStandIns> {
  const served = await startStandIns(config, print);
  for (const line of describeSandbox(served.sandbox, config.sandbox).slice(0, -1)) print(line);
  print(
    `Slack stand-in (Web API, response_urls, Socket Mode) is listening on ${served.slack.url}.`,
  );
  print('The app, in Socket Mode, needs:');
  const settings = standInSettings(served.sandbox, served.slack, config.sandbox.options.apiKey);
  for (const [name, value] of Object.entries(settings)) print(`  ${name}=${value}`);
  return served;
}

/** How long to wait for the app's first Socket Mode connection (an image may still be building). */
const CONNECT_TIMEOUT_MS = 10 * 60_000;

/** Once the app is connected: `/cometchat roles`, acknowledged, and its reply drawn. */
export async function sendFirstCommand(
  slack: SlackStandIn,
  print: (line: string) => void,
): Promise<void> {
  await slack.socketConnected(CONNECT_TIMEOUT_MS);
  // Over Socket Mode a command is an envelope: the driver only makes its fields (and the
  // response_url the stand-in will take the reply on); nothing is posted to appUrl.
  const driver = createSlackDriver({
    appUrl: 'http://unused.invalid/',
    signingSecret: OFFLINE_SECRETS.signingSecret,
    standIn: slack,
  });
  const before = slack.responses.length;
  print('\nThe app is connected. > /cometchat roles');
  // The acknowledgement says what the app is doing; the list comes on the response_url.
  await slack.sendEnvelope('slash_commands', driver.commandFields('roles'));
  const reply = await slack.nextResponse(before, 20_000);
  print(renderMessage(reply.body));
}

async function main(): Promise<void> {
  const print = (line: string) => console.log(line);
  const served = await serveStandIns(parseServeEnv(process.env), print);
  closeOnSignals('the stand-ins', () => served.close(), print);
  await sendFirstCommand(served.slack, print).catch((error: unknown) => {
    print(`No command sent: ${error instanceof Error ? error.message : String(error)}`);
  });
}

// Start only when run as a script (`tsx offline/stack/serve.ts`), never on import.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
