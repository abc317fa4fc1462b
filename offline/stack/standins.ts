import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { isSecretSetting } from '../../src/secret-files.ts';
import { closeOnSignals } from '../cometchat-standin/cli.ts';
import { SANDBOX_SEEDS } from '../cometchat-standin/server.ts';
import {
  parseServeEnv,
  type ServeConfig,
  type ServedStandIns,
  standInSettings,
  startStandIns,
} from './serve.ts';

// `npm run standins`: both stand-ins on fixed local ports with fixed settings, for the app as
// `npm start` runs it. Prints the app's settings and writes them to .env.offline, which
// `npm run start:offline` (npm start's command with node's --env-file) reads; the app then
// serves Slack's requests over HTTP, and `npm run try -- --app` sends it some. Only the entry
// point at the bottom touches process.env.

/** Where the settings are written (git-ignored), and where `npm run start:offline` reads them. */
export const OFFLINE_ENV_FILE = '.env.offline';
/** The app's port in those settings. */
export const OFFLINE_APP_PORT = 3000;

const emptyIsMissing = (value: unknown) => (value === '' ? undefined : value);

const EnvSchema = z.object({
  // Another file (the tests write theirs apart, beside a running operator's).
  OFFLINE_ENV_FILE: z.preprocess(emptyIsMissing, z.string().default(OFFLINE_ENV_FILE)),
  OFFLINE_APP_PORT: z.preprocess(
    emptyIsMissing,
    z.coerce.number().int().min(1).max(65_535).default(OFFLINE_APP_PORT),
  ),
});

/** The only variables read: the ports, when the fixed ones are taken. Nothing else is. */
const PORT_VARIABLES = ['SLACK_STANDIN_PORT', 'SANDBOX_API_PORT', 'SANDBOX_CALL_PORT'] as const;

export interface StandInsConfig {
  serve: ServeConfig;
  appPort: number;
  file: string;
}

export function parseStandInsEnv(env: Record<string, string | undefined>): StandInsConfig {
  const ports = Object.fromEntries(PORT_VARIABLES.map((name) => [name, env[name]]));
  const serve = parseServeEnv(ports);
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`stand-ins: invalid environment\n  ${problems.join('\n  ')}`);
  }
  return { serve, appPort: parsed.data.OFFLINE_APP_PORT, file: parsed.data.OFFLINE_ENV_FILE };
}

/** What the app needs to serve these stand-ins' traffic over HTTP, with nothing kept on disk. */
export function offlineAppSettings(
  served: ServedStandIns,
  config: StandInsConfig,
): Record<string, string> {
  const apiKey = config.serve.sandbox.options.apiKey;
  return {
    ...standInSettings(served.sandbox, served.slack, apiKey, 'http'),
    PORT: String(config.appPort),
    // As long as the stand-ins' own state: a memory store, gone with the app.
    STORE_URL: 'memory:',
    LOG_LEVEL: 'info',
  };
}

/** The settings .env.example names, set or shown commented out (`# NAME=`). */
export function documentedSettings(example: string): string[] {
  const names = example.split('\n').map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1]);
  return [...new Set(names.filter((name) => name !== undefined))];
}

/**
 * The file: the settings, then every other setting the app knows of (and each secret's `_FILE`)
 * left empty. The app reads `.env` too, for what is unset (src/main.ts); set empty here, a
 * setting of a real deployment there (COMETCHAT_APPS, STORE_URL_FILE, VIEWERS...) cannot reach
 * into the offline run. The app counts an empty setting as missing.
 */
export function envFileText(
  settings: Readonly<Record<string, string>>,
  documented: readonly string[],
): string {
  const known = [...documented, ...Object.keys(settings)];
  const files = known.filter(isSecretSetting).map((name) => `${name}_FILE`);
  const blank = [...new Set([...documented, ...files])].filter((name) => !(name in settings));
  return [
    '# Written by `npm run standins`: the app’s settings for the local stand-ins, read by',
    '# `npm run start:offline`. None is a secret: the stand-ins accept only these.',
    ...Object.entries(settings).map(([name, value]) => `${name}=${value}`),
    '',
    '# Empty, so that a .env beside this file cannot reach into the offline run.',
    ...blank.sort().map((name) => `${name}=`),
    '',
  ].join('\n');
}

/** Starts the stand-ins, writes the settings file, and says what to run next. */
export async function runStandIns(
  config: StandInsConfig,
  print: (line: string) => void,
): Promise<ServedStandIns> {
  const served = await startStandIns(config.serve, print);
  const settings = offlineAppSettings(served, config);
  try {
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    writeFileSync(config.file, envFileText(settings, documentedSettings(example)));
  } catch (error) {
    await served.close();
    throw error;
  }
  const { sandbox, slack } = served;
  const seed = SANDBOX_SEEDS[sandbox.seed];
  print(
    `CometChat sandbox (v3, app id ${seed.appId}, region ${seed.region}) is listening on ${sandbox.apiUrl} (calls on ${sandbox.callUrl}).`,
  );
  print(`Slack stand-in (Web API, response_urls, Socket Mode) is listening on ${slack.url}.`);
  print(`The app, over HTTP, needs (written to ${config.file}):`);
  for (const [name, value] of Object.entries(settings)) print(`  ${name}=${value}`);
  print('Next, in a second terminal:  npm run start:offline   (npm start with these settings)');
  print('and in a third:              npm run try -- --app roles');
  print('Press Ctrl+C to stop.');
  return served;
}

async function main(): Promise<void> {
  const print = (line: string) => console.log(line);
  const served = await runStandIns(parseStandInsEnv(process.env), print);
  closeOnSignals('the stand-ins', () => served.close(), print);
}

// Start only when run as a script (`tsx offline/stack/standins.ts`), never on import.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
