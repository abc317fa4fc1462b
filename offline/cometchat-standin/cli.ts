import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import {
  SANDBOX_SEED_NAMES,
  SANDBOX_SEEDS,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from './server.ts';

// `npm run sandbox`: the sandbox on fixed ports, for trying the app offline. The environment
// is passed in; only the entry point at the bottom touches process.env.

/** Not a secret: the sandbox accepts whatever key it is started with. */
export const DEFAULT_SANDBOX_KEY = 'sandbox-key';

const emptyIsMissing = (value: unknown) => (value === '' ? undefined : value);
const port = (fallback: number) =>
  z.preprocess(emptyIsMissing, z.coerce.number().int().min(0).max(65_535).default(fallback));

const EnvSchema = z.object({
  COMETCHAT_API_KEY: z.preprocess(emptyIsMissing, z.string().optional()),
  SANDBOX_API_PORT: port(4010),
  SANDBOX_CALL_PORT: port(4011),
  SANDBOX_LATENCY_MS: z.preprocess(emptyIsMissing, z.coerce.number().int().min(0).default(0)),
  SANDBOX_SEED: z.preprocess(
    emptyIsMissing,
    z
      .enum(SANDBOX_SEED_NAMES, {
        error: `must be one of ${SANDBOX_SEED_NAMES.join(', ')}`,
      })
      .default('default'),
  ),
});

export interface SandboxCliConfig {
  options: SandboxOptions;
  /** True when no key was given and the sandbox runs with DEFAULT_SANDBOX_KEY. */
  defaultKey: boolean;
}

/** Reads the sandbox's settings from an env object; throws once, naming every bad variable. */
export function parseSandboxEnv(env: Record<string, string | undefined>): SandboxCliConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`sandbox: invalid environment\n  ${problems.join('\n  ')}`);
  }
  const { COMETCHAT_API_KEY, SANDBOX_API_PORT, SANDBOX_CALL_PORT, SANDBOX_LATENCY_MS } =
    parsed.data;
  return {
    options: {
      apiKey: COMETCHAT_API_KEY ?? DEFAULT_SANDBOX_KEY,
      apiPort: SANDBOX_API_PORT,
      callPort: SANDBOX_CALL_PORT,
      latencyMs: SANDBOX_LATENCY_MS,
      seed: parsed.data.SANDBOX_SEED,
    },
    defaultKey: COMETCHAT_API_KEY === undefined,
  };
}

/** What to tell the person who started it; a key from the environment is never printed. */
export function describeSandbox(sandbox: Sandbox, config: SandboxCliConfig): string[] {
  const seed = SANDBOX_SEEDS[sandbox.seed];
  return [
    'CometChat v3 sandbox is listening (paths under /v3). Point the app at it with:',
    `  COMETCHAT_API_URL=${sandbox.apiUrl}`,
    `  COMETCHAT_CALL_API_URL=${sandbox.callUrl}`,
    config.defaultKey
      ? `  apikey: ${DEFAULT_SANDBOX_KEY} (default; set COMETCHAT_API_KEY to choose another)`
      : '  apikey: the value of COMETCHAT_API_KEY',
    `  latency: ${config.options.latencyMs ?? 0} ms`,
    `  seed: ${sandbox.seed} (app id ${seed.appId}, region ${seed.region}; SANDBOX_SEED chooses another)`,
    '  seeded calls:',
    ...Object.entries(seed.sessionIds).map(
      ([name, id]) => `    ${name.padEnd(15)}${JSON.stringify(id)}`,
    ),
    'Press Ctrl+C to stop.',
  ];
}

export async function runSandboxCli(
  env: Record<string, string | undefined>,
  print: (line: string) => void,
): Promise<Sandbox> {
  const config = parseSandboxEnv(env);
  const sandbox = await startSandbox(config.options);
  for (const line of describeSandbox(sandbox, config)) print(line);
  return sandbox;
}

async function main(): Promise<void> {
  const sandbox = await runSandboxCli(process.env, (line) => console.log(line));
  const stop = (signal: NodeJS.Signals) => {
    console.log(`\n${signal}: stopping the sandbox`);
    sandbox.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Start only when run as a script (`tsx offline/cometchat-standin/cli.ts`), never on import.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
