import { z } from 'zod';

// The app's configuration: one schema over an environment object that is passed in, parsed
// once at start. Empty strings count as missing (a blank line in .env must not become a
// key), every problem is reported at once, and no message ever repeats a value.

const REGIONS = ['us', 'eu', 'in'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const blankIsMissing = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const text = () => z.preprocess(blankIsMissing, z.string().trim());
const optionalText = () => z.preprocess(blankIsMissing, z.string().trim().optional());
const url = () =>
  z.preprocess(
    blankIsMissing,
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) address' })
      .transform((value) => value.replace(/\/+$/, ''))
      .optional(),
  );
const integer = (fallback: number, min: number, max: number) =>
  z.preprocess(
    blankIsMissing,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .default(fallback),
  );
const prefixed = (prefix: string) =>
  text().refine((value) => value.startsWith(prefix), { error: `must start with ${prefix}` });

const slackIdList = () =>
  z.preprocess(
    blankIsMissing,
    z
      .string()
      .transform((value) => [...new Set(value.split(/[\s,]+/).filter(Boolean))])
      .refine((ids) => ids.every((id) => /^[UWS][A-Z0-9]{2,}$/.test(id)), {
        error: 'must list Slack user ids (U..., W...) or user group ids (S...), comma-separated',
      })
      .optional(),
  );

const EnvSchema = z.object({
  SLACK_BOT_TOKEN: prefixed('xoxb-'),
  SLACK_SIGNING_SECRET: optionalText(),
  SLACK_APP_TOKEN: z.preprocess(blankIsMissing, prefixed('xapp-').optional()),
  SLACK_API_URL: url(),
  PORT: integer(3000, 0, 65_535),
  COMETCHAT_APP_ID: optionalText(),
  COMETCHAT_REGION: z.preprocess(
    (value) =>
      typeof blankIsMissing(value) === 'string' ? String(value).toLowerCase() : undefined,
    z.enum(REGIONS, { error: `must be one of ${REGIONS.join(', ')}` }).optional(),
  ),
  COMETCHAT_API_KEY: text(),
  COMETCHAT_API_URL: url(),
  COMETCHAT_CALL_API_URL: url(),
  // A chat reply should not keep someone waiting: each attempt gets COMETCHAT_TIMEOUT_MS,
  // all attempts and back-off together get COMETCHAT_BUDGET_MS.
  COMETCHAT_TIMEOUT_MS: integer(3_000, 100, 60_000),
  COMETCHAT_BUDGET_MS: integer(8_000, 100, 120_000),
  // How long a role list is reused (0: not at all); see cometchat/role-cache.ts.
  COMETCHAT_ROLE_CACHE_SECONDS: integer(30, 0, 3_600),
  // Who may edit permissions, and who may use the app at all: Slack user ids (U..., W...)
  // and user group ids (S...), comma-separated.
  EDITORS: slackIdList(),
  VIEWERS: slackIdList(),
  AUDIT_CHANNEL: z.preprocess(
    blankIsMissing,
    z
      .string()
      .trim()
      .regex(/^[CG][A-Z0-9]{2,}$/, { error: 'must be a channel id like C0123ABCD' })
      .optional(),
  ),
  STORE_URL: optionalText(),
  LOG_LEVEL: z.preprocess(
    (value) => blankIsMissing(value)?.toString().toLowerCase(),
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
});

type Env = Readonly<Record<string, string | undefined>>;

// Rules that tie variables together. They look at the raw environment so that they are
// reported together with the per-variable problems, not only once those are fixed.
function crossProblems(env: Env): string[] {
  const has = (name: string) => blankIsMissing(env[name]) !== undefined;
  const problems: string[] = [];
  if (!has('SLACK_APP_TOKEN') && !has('SLACK_SIGNING_SECRET')) {
    problems.push(
      'SLACK_SIGNING_SECRET is missing (required over HTTP; or set SLACK_APP_TOKEN for Socket Mode)',
    );
  }
  if (!has('COMETCHAT_API_URL') || !has('COMETCHAT_CALL_API_URL')) {
    for (const name of ['COMETCHAT_APP_ID', 'COMETCHAT_REGION']) {
      if (!has(name)) {
        problems.push(
          `${name} is missing (required unless COMETCHAT_API_URL and COMETCHAT_CALL_API_URL are both set)`,
        );
      }
    }
  }
  // A blank value means the default here too (Number('') would be 0).
  const timeout = Number(has('COMETCHAT_TIMEOUT_MS') ? env.COMETCHAT_TIMEOUT_MS : 3_000);
  const budget = Number(has('COMETCHAT_BUDGET_MS') ? env.COMETCHAT_BUDGET_MS : 8_000);
  if (timeout > budget)
    problems.push('COMETCHAT_TIMEOUT_MS must not be larger than COMETCHAT_BUDGET_MS');
  return problems;
}

export interface Config {
  slack: {
    botToken: string;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
    /** Socket Mode when an app-level token is configured, otherwise HTTP on `port`. */
    socketMode: boolean;
    port: number;
  };
  cometchat: {
    apiKey: string;
    /** Role API address, without `/v3`. */
    apiUrl: string;
    /** Call API address, without `/v3`. */
    callApiUrl: string;
    timeoutMs: number;
    budgetMs: number;
    /** How long a role list is reused; 0 turns the cache off. */
    roleCacheSeconds: number;
  };
  access: {
    /** Users and user groups who may edit; undefined means workspace admins and owners. */
    editors: readonly string[] | undefined;
    /** Users and user groups who may use the app; undefined means everyone in the workspace. */
    viewers: readonly string[] | undefined;
  };
  /** Channel that receives a post for every attempted permission change. */
  auditChannel: string | undefined;
  /** Where state is kept: a SQLite path, `redis://...`, or `memory:`; default ./data/. */
  storeUrl: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Every secret value, so the logger can scrub them from anything it writes. */
  secrets: readonly string[];
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Configuration is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment once. Throws a ConfigError naming every problem. */
export function loadConfig(env: Env): Config {
  const parsed = EnvSchema.safeParse(env);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map(describeIssue)),
    ...crossProblems(env),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const appId = e.COMETCHAT_APP_ID ?? '';
  const region = e.COMETCHAT_REGION ?? 'us';
  const config: Config = {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      socketMode: e.SLACK_APP_TOKEN !== undefined,
      port: e.PORT,
    },
    cometchat: {
      apiKey: e.COMETCHAT_API_KEY,
      // Two hosts: `api-` for roles and permissions, `call-` for calls (live-api-notes.md).
      apiUrl: e.COMETCHAT_API_URL ?? `https://${appId}.api-${region}.cometchat.io`,
      callApiUrl: e.COMETCHAT_CALL_API_URL ?? `https://${appId}.call-${region}.cometchat.io`,
      timeoutMs: e.COMETCHAT_TIMEOUT_MS,
      budgetMs: e.COMETCHAT_BUDGET_MS,
      roleCacheSeconds: e.COMETCHAT_ROLE_CACHE_SECONDS,
    },
    access: { editors: e.EDITORS, viewers: e.VIEWERS },
    auditChannel: e.AUDIT_CHANNEL,
    storeUrl: e.STORE_URL,
    logLevel: e.LOG_LEVEL,
    secrets: [
      e.SLACK_BOT_TOKEN,
      e.SLACK_SIGNING_SECRET,
      e.SLACK_APP_TOKEN,
      e.COMETCHAT_API_KEY,
      storePassword(e.STORE_URL),
    ].filter((value): value is string => value !== undefined),
  };
  return deepFreeze(config);
}

/** The password inside a `redis://user:password@host` address, so logs can scrub it. */
function storePassword(storeUrl: string | undefined): string | undefined {
  if (!storeUrl || !/^rediss?:/.test(storeUrl)) return undefined;
  try {
    const password = decodeURIComponent(new URL(storeUrl).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const name = String(issue.path[0] ?? 'environment');
  // zod's own message for a missing value mentions the expected type; say it plainly.
  const missing = issue.code === 'invalid_type' && issue.message.includes('undefined');
  return `${name} ${missing ? 'is missing' : issue.message}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
