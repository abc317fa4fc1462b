import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import {
  SANDBOX_SEED_NAMES,
  SANDBOX_SEEDS,
  type Sandbox,
  type SandboxOptions,
  type ScheduledDelivery,
  startSandbox,
  type WebhookConfig,
} from './server.ts';

// `npm run sandbox`: the sandbox on fixed ports, for trying the app offline. The environment
// is passed in; only the entry point at the bottom touches process.env.

/**
 * Not a secret: the key the sandbox accepts unless COMETCHAT_API_KEY names another. The offline
 * stack and the stand-ins (offline/stack/) give the app this one too, so an app started with
 * the settings any of them prints is let in.
 */
export const DEFAULT_SANDBOX_KEY = 'sandbox-api-key-0f3c9a';

const emptyIsMissing = (value: unknown) => (value === '' ? undefined : value);
const port = (fallback: number) =>
  z.preprocess(emptyIsMissing, z.coerce.number().int().min(0).max(65_535).default(fallback));

const optionalText = z.preprocess(emptyIsMissing, z.string().optional());

const EnvSchema = z
  .object({
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
    // CometChat's webhook to the app (README.md, "Webhooks"): where, how, and how often.
    SANDBOX_WEBHOOK_URL: z.preprocess(
      emptyIsMissing,
      z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
    ),
    SANDBOX_WEBHOOK_USER: optionalText,
    SANDBOX_WEBHOOK_PASSWORD: optionalText,
    SANDBOX_WEBHOOK_EVERY_SECONDS: z.preprocess(
      emptyIsMissing,
      z.coerce.number().int().positive().optional(),
    ),
  })
  .superRefine(
    (env, context) => {
      if (
        (env.SANDBOX_WEBHOOK_USER === undefined) !==
        (env.SANDBOX_WEBHOOK_PASSWORD === undefined)
      ) {
        context.addIssue({
          code: 'custom',
          path: ['SANDBOX_WEBHOOK_PASSWORD'],
          message: 'SANDBOX_WEBHOOK_USER and SANDBOX_WEBHOOK_PASSWORD go together',
        });
      }
      if (env.SANDBOX_WEBHOOK_URL === undefined) {
        for (const key of ['SANDBOX_WEBHOOK_USER', 'SANDBOX_WEBHOOK_EVERY_SECONDS'] as const) {
          if (env[key] !== undefined) {
            context.addIssue({ code: 'custom', path: [key], message: 'needs SANDBOX_WEBHOOK_URL' });
          }
        }
      }
      // Run even when a variable above is bad, so that every problem is named at once; these
      // checks only ask whether a variable is set.
    },
    { when: () => true },
  );

export interface SandboxCliConfig {
  options: SandboxOptions;
  /** True when no key was given and the sandbox runs with DEFAULT_SANDBOX_KEY. */
  defaultKey: boolean;
  /** Present when SANDBOX_WEBHOOK_URL is set; `everySeconds` when a schedule is asked for. */
  webhook?: { config: WebhookConfig; everySeconds?: number };
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
  const url = parsed.data.SANDBOX_WEBHOOK_URL;
  const username = parsed.data.SANDBOX_WEBHOOK_USER;
  const password = parsed.data.SANDBOX_WEBHOOK_PASSWORD;
  const everySeconds = parsed.data.SANDBOX_WEBHOOK_EVERY_SECONDS;
  const webhook =
    url === undefined
      ? undefined
      : {
          config: {
            url,
            ...(username !== undefined && password !== undefined ? { username, password } : {}),
          },
          ...(everySeconds === undefined ? {} : { everySeconds }),
        };
  return {
    options: {
      apiKey: COMETCHAT_API_KEY ?? DEFAULT_SANDBOX_KEY,
      apiPort: SANDBOX_API_PORT,
      callPort: SANDBOX_CALL_PORT,
      latencyMs: SANDBOX_LATENCY_MS,
      seed: parsed.data.SANDBOX_SEED,
    },
    defaultKey: COMETCHAT_API_KEY === undefined,
    ...(webhook === undefined ? {} : { webhook }),
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
    ...describeWebhook(config),
    'Press Ctrl+C to stop.',
  ];
}

/** The webhook's setting, its password never. */
function describeWebhook(config: SandboxCliConfig): string[] {
  const { webhook } = config;
  if (webhook === undefined) {
    return ['  webhook: none (SANDBOX_WEBHOOK_URL and SANDBOX_WEBHOOK_EVERY_SECONDS send some)'];
  }
  const auth = webhook.config.username === undefined ? 'no authentication' : 'Basic authentication';
  const when =
    webhook.everySeconds === undefined
      ? 'nothing sent on its own (SANDBOX_WEBHOOK_EVERY_SECONDS sends on a schedule)'
      : `the end of a seeded call every ${webhook.everySeconds} s`;
  return [`  webhook: ${webhook.config.url} (${auth}), ${when}`];
}

/** One line per scheduled delivery: what was sent and what came back. */
export function describeDelivery(delivery: ScheduledDelivery): string {
  const { data } = delivery;
  const occupants = Array.isArray(data?.all_occupants) ? data.all_occupants.length : undefined;
  const what =
    `webhook ${delivery.trigger} ${JSON.stringify(delivery.sessionId)}` +
    (occupants === undefined
      ? ''
      : ` (${occupants} occupants, ${data?.created_at} to ${data?.destroyed_at})`);
  if (delivery.error !== undefined) return `${what}: not delivered: ${delivery.error.message}`;
  if (delivery.answer === undefined) return `${what}: not sent (no webhook for this trigger)`;
  return `${what}: answered ${delivery.answer.status}`;
}

export async function runSandboxCli(
  env: Record<string, string | undefined>,
  print: (line: string) => void,
): Promise<Sandbox> {
  const config = parseSandboxEnv(env);
  const sandbox = await startSandbox(config.options);
  for (const line of describeSandbox(sandbox, config)) print(line);
  if (config.webhook !== undefined) {
    sandbox.webhooks.configure(config.webhook.config);
    if (config.webhook.everySeconds !== undefined) {
      sandbox.webhooks.schedule({
        everySeconds: config.webhook.everySeconds,
        onDelivery: (delivery) => print(describeDelivery(delivery)),
      });
    }
  }
  return sandbox;
}

/**
 * On SIGINT or SIGTERM: says so, closes `what`, and sets the exit code by how that went (the
 * command lines of the stand-ins, this one and offline/stack/serve.ts).
 */
export function closeOnSignals(
  what: string,
  close: () => Promise<void>,
  print: (line: string) => void,
): void {
  const stop = (signal: NodeJS.Signals) => {
    print(`\n${signal}: stopping ${what}`);
    close().then(
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

/**
 * `.env`'s variables, read as the app reads them (src/main.ts: the environment wins), so that
 * the key the app is given there is the key the sandbox accepts.
 */
function withDotEnv(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  try {
    return { ...parseEnv(readFileSync('.env', 'utf8')), ...env };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw error;
  }
}

async function main(): Promise<void> {
  const print = (line: string) => console.log(line);
  const sandbox = await runSandboxCli(withDotEnv(process.env), print);
  closeOnSignals('the sandbox', () => sandbox.close(), print);
}

// Start only when run as a script (`tsx offline/cometchat-standin/cli.ts`), never on import.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
