import type { DestinationStream } from 'pino';
import { startSlackApp } from '../../src/app.ts';
import { appEnvPrefix, type Config, loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import type { RunningApp } from '../../src/start.ts';
import type { Store } from '../../src/store/store.ts';
import {
  type RecordedRequest,
  SANDBOX_SEEDS,
  type Sandbox,
  type SandboxSeedName,
  startSandbox,
} from '../cometchat-standin/server.ts';
import { createSlackDriver, type SlackDriver } from '../slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../slack-standin/server.ts';
import {
  OFFLINE_OPERATOR,
  OFFLINE_SECRETS,
  offlineEnv,
  type SlackAddresses,
  slackEnv,
} from './offline-env.ts';

export { OFFLINE_OPERATOR, OFFLINE_SECRETS, offlineEnv };

// The whole app on one machine with no accounts: the CometChat sandbox, the Slack stand-in
// and the real Bolt app between them, driven the way Slack drives it. The offline try and the
// integration tests both start exactly this.

/**
 * Not secrets either: the API key of each app's sandbox when the stack serves several apps, by
 * position (`apps[0]`, `apps[1]`), whatever the apps are called. Distinct, so a request that
 * reached one app with the other's key is refused. A secret scan should look for these too.
 */
export const OFFLINE_APP_API_KEYS = Object.freeze([
  'sandbox-api-key-first-app-4b8e21',
  'sandbox-api-key-second-app-9a53c7',
] as const);

/** The seed each app's sandbox starts with, by position: the stand-in has these two. */
const APP_SEEDS: readonly SandboxSeedName[] = ['default', 'second'];

/** An app name as the app's configuration takes it in COMETCHAT_APPS. */
const APP_NAME = /^[a-z0-9-]+$/;

export interface OfflineStackOptions<A extends string = string> {
  mode?: 'http' | 'socket';
  /**
   * Serve several CometChat apps (at most two), each from a sandbox of its own with its own key
   * and seed: the first the default seed, the second the other. The app is configured with
   * COMETCHAT_APPS and the per-app variables. Without it: one app, as always.
   */
  apps?: readonly A[];
  /** Extra or overriding environment variables for the app. */
  env?: Record<string, string | undefined>;
  logDestination?: DestinationStream;
  sandboxLatencyMs?: number;
  store?: Store;
  /** How the app waits (SlackAppOptions.sleep): a test's, to need no real waiting. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Share a running sandbox and Slack stand-in (several replicas of the app); not stopped here.
   * With `apps`, `sandboxes` must hold one for each app (another stack fits as it is).
   */
  shared?: {
    sandbox: Sandbox;
    slack: SlackStandIn;
    sandboxes?: Readonly<Record<string, Sandbox>>;
  };
}

export interface OfflineStack<A extends string = string> {
  /** The first app's sandbox (the only one without `apps`). */
  sandbox: Sandbox;
  /** Each app's sandbox by app name; `default` alone without `apps`. */
  sandboxes: Readonly<Record<A, Sandbox>>;
  slack: SlackStandIn;
  app: RunningApp;
  config: Config;
  logger: Logger;
  /** Sends signed requests to the app over HTTP (HTTP mode). */
  driver: SlackDriver;
  appUrl: string;
  stop(): Promise<void>;
}

/** One app of a several-app stack: what its sandbox is started with and the app is told. */
export interface OfflineApp<A extends string = string> {
  name: A;
  seed: SandboxSeedName;
  apiKey: string;
  /** The seed's app id and region: what the session ids in that sandbox name. */
  appId: string;
  region: string;
}

/** `COMETCHAT_<NAME>_`: the prefix of an app's variables, as the app's configuration reads it. */
export { appEnvPrefix };

/**
 * Which seed and key each app gets, by position. A key set for an app in `env`
 * (`COMETCHAT_<NAME>_API_KEY`) is the one its sandbox accepts, as COMETCHAT_API_KEY is for a
 * single app. Throws for a list the stand-ins cannot serve: empty, more than two, a name
 * twice, or a name that is not lower-case letters, digits and `-` (the configuration's
 * further rules, such as no subcommand names, are its own to report).
 */
export function planOfflineApps<A extends string>(
  apps: readonly A[],
  env: Readonly<Record<string, string | undefined>> = {},
): OfflineApp<A>[] {
  if (apps.length === 0 || apps.length > APP_SEEDS.length) {
    throw new TypeError(`offline stack: apps must name 1 to ${APP_SEEDS.length} apps`);
  }
  if (new Set(apps).size !== apps.length) {
    throw new TypeError('offline stack: apps must not name an app twice');
  }
  return apps.map((name, index) => {
    if (!APP_NAME.test(name)) {
      throw new TypeError(
        `offline stack: app name ${JSON.stringify(name)} must be lower-case letters, digits or -`,
      );
    }
    const seed = APP_SEEDS[index] ?? 'default';
    const { appId, region } = SANDBOX_SEEDS[seed];
    const apiKey = env[`${appEnvPrefix(name)}API_KEY`] ?? OFFLINE_APP_API_KEYS[index] ?? '';
    return { name, seed, apiKey, appId, region };
  });
}

/**
 * The app's environment for several apps, each with its sandbox: COMETCHAT_APPS in the given
 * order (the first is the default app) and each app's COMETCHAT_<NAME>_* variables. None of the
 * single-app COMETCHAT_API_KEY/_URL variables, so nothing can quietly fall back to them.
 */
export function offlineAppsEnv(
  apps: readonly (OfflineApp & { sandbox: Pick<Sandbox, 'apiUrl' | 'callUrl'> })[],
  slack: SlackAddresses,
  mode: 'http' | 'socket',
): Record<string, string> {
  const env: Record<string, string> = {
    ...slackEnv(slack, mode),
    COMETCHAT_APPS: apps.map((app) => app.name).join(','),
  };
  for (const app of apps) {
    const prefix = appEnvPrefix(app.name);
    env[`${prefix}APP_ID`] = app.appId;
    env[`${prefix}REGION`] = app.region;
    env[`${prefix}API_KEY`] = app.apiKey;
    env[`${prefix}API_URL`] = app.sandbox.apiUrl;
    env[`${prefix}CALL_API_URL`] = app.sandbox.callUrl;
  }
  return env;
}

/**
 * A sandbox per app, each with its app's key and seed. If one fails to start, those already
 * started are closed before the error is passed on.
 */
export async function startAppSandboxes<A extends string>(
  apps: readonly OfflineApp<A>[],
  options: { latencyMs?: number } = {},
): Promise<Readonly<Record<A, Sandbox>>> {
  const started: [A, Sandbox][] = [];
  try {
    for (const app of apps) {
      const sandbox = await startSandbox({
        apiKey: app.apiKey,
        seed: app.seed,
        appId: app.appId,
        ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
      });
      started.push([app.name, sandbox]);
    }
  } catch (error) {
    await Promise.all(started.map(([, sandbox]) => sandbox.close()));
    throw error;
  }
  return byName(started);
}

/**
 * The pairs as a frozen record. Every name of `A` is in `entries` (callers pass one entry per
 * app), which TypeScript cannot follow through Object.fromEntries, hence the assertion.
 */
function byName<A extends string>(entries: readonly [A, Sandbox][]): Readonly<Record<A, Sandbox>> {
  return Object.freeze(Object.fromEntries(entries)) as Readonly<Record<A, Sandbox>>;
}

/** One of the app's start-check requests: a first page of one role, or of one call. */
function isStartCheck(request: RecordedRequest): boolean {
  return (
    request.method === 'GET' &&
    (request.path === '/v3/roles' || request.path === '/v3/calls') &&
    request.query.page === '1' &&
    request.query.perPage === '1'
  );
}

/** The shared sandboxes for `apps`, or an error naming the app that has none. */
function sharedSandboxes<A extends string>(
  apps: readonly OfflineApp<A>[],
  shared: NonNullable<OfflineStackOptions['shared']>,
): Readonly<Record<A, Sandbox>> {
  return byName(
    apps.map(({ name }): [A, Sandbox] => {
      const sandbox = shared.sandboxes?.[name];
      if (sandbox === undefined) {
        throw new TypeError(`offline stack: shared.sandboxes has no sandbox for the app "${name}"`);
      }
      return [name, sandbox];
    }),
  );
}

/** The sandboxes the stack serves: the shared ones, one per app, or the single app's. */
async function stackSandboxes<A extends string>(
  options: OfflineStackOptions<A>,
  apps: readonly OfflineApp<A>[] | undefined,
): Promise<Readonly<Record<A, Sandbox>>> {
  const latency =
    options.sandboxLatencyMs !== undefined ? { latencyMs: options.sandboxLatencyMs } : {};
  if (apps) {
    return options.shared
      ? sharedSandboxes(apps, options.shared)
      : startAppSandboxes(apps, latency);
  }
  const single =
    options.shared?.sandbox ??
    (await startSandbox({
      apiKey: options.env?.COMETCHAT_API_KEY ?? OFFLINE_SECRETS.apiKey,
      ...latency,
    }));
  // Without `apps`, A is 'default' unless a caller spelled out another type argument.
  return byName([['default' as A, single]]);
}

/** Drops the app's start checks from each sandbox's record, so a caller sees what it caused. */
function forgetStartChecks(
  sandboxes: Readonly<Record<string, Sandbox>>,
  requestsBefore: ReadonlyMap<Sandbox, number>,
): void {
  for (const s of Object.values<Sandbox>(sandboxes)) {
    const before = requestsBefore.get(s) ?? 0;
    const kept = s.requests.slice(before).filter((r) => !isStartCheck(r));
    s.requests.splice(before, s.requests.length - before, ...kept);
  }
}

/**
 * Starts the stand-ins (unless shared) and the app between them. `A` is the app names, so that
 * `stack.sandboxes.prod` is typed; without `apps` the one app is `default`.
 */
export async function startOfflineStack<const A extends string = 'default'>(
  options: OfflineStackOptions<A> = {},
): Promise<OfflineStack<A>> {
  const mode = options.mode ?? 'http';
  const apps = options.apps ? planOfflineApps(options.apps, options.env) : undefined;
  const sandboxes = await stackSandboxes(options, apps);
  const first = apps?.[0]?.name ?? ('default' as A);
  const sandbox = sandboxes[first];
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
  const baseEnv = apps
    ? offlineAppsEnv(
        apps.map((app) => ({ ...app, sandbox: sandboxes[app.name] })),
        slack,
        mode,
      )
    : offlineEnv(sandbox, slack, mode);
  const env = { ...baseEnv, ...options.env };
  const config = loadConfig(env);
  const requestsBefore = new Map(
    Object.values<Sandbox>(sandboxes).map((s) => [s, s.requests.length] as const),
  );
  const logger = createLogger({
    level: config.logLevel,
    secrets: config.secrets,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const app = await startSlackApp({
    config,
    logger,
    ...(options.store ? { store: options.store } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  if (mode === 'socket') await slack.socketConnected();
  // The app checks each CometChat app once at start; the stack is handed over after it, with
  // those requests (and only those) out of the sandboxes' records, so that what a caller sees
  // is what it caused. A fault armed before the start would meet the check first: arm faults
  // once the stack is running.
  await app.checked;
  forgetStartChecks(sandboxes, requestsBefore);
  const appUrl = `http://127.0.0.1:${app.port}/slack/events`;
  const driver = createSlackDriver({
    appUrl,
    signingSecret: config.slack.signingSecret ?? OFFLINE_SECRETS.signingSecret,
    standIn: slack,
  });
  return {
    sandbox,
    sandboxes,
    slack,
    app,
    config,
    logger,
    driver,
    appUrl,
    async stop() {
      // The app first: a Socket Mode client would otherwise try to reconnect to nothing.
      await app.stop();
      if (!options.shared) {
        const all: Sandbox[] = Object.values(sandboxes);
        await Promise.all([slack.close(), ...all.map((s) => s.close())]);
      }
    },
  };
}
