import { z } from 'zod';
import {
  isSecretSetting,
  type ReadSecretFile,
  readSecretFile,
  withSecretFiles,
} from './secret-files.ts';
import { DEFAULT_APP } from './store/store.ts';

// The app's configuration: one schema over an environment object that is passed in, parsed
// once at start. Empty strings count as missing (a blank line in .env must not become a
// key), every problem is reported at once, and no message ever repeats a value: an app name
// or a channel id is named only once it has the form of one, anything else by its position.

const REGIONS = ['us', 'eu', 'in'] as const;
export type CometChatRegion = (typeof REGIONS)[number];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const APP_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
/**
 * The app a configuration without COMETCHAT_APPS defines from the unprefixed variables: the one
 * whose state the store kept before it knew of apps, which it reads back as that app's.
 */
const SINGLE_APP_NAME = DEFAULT_APP;
/** Read by the schema, and by `crossProblems` before the schema's result is known. */
const DEFAULT_COMETCHAT_TIMEOUT_MS = 3_000;
const DEFAULT_COMETCHAT_BUDGET_MS = 8_000;

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
const wholeNumber = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });
const integer = (fallback: number, min: number, max: number) =>
  z.preprocess(blankIsMissing, wholeNumber(min, max).default(fallback));
const optionalInteger = (min: number, max: number) =>
  z.preprocess(blankIsMissing, wholeNumber(min, max).optional());
/** A Slack token: its prefix, and more than the prefix (`.env.example` holds the bare prefix). */
const prefixed = (prefix: string) =>
  text()
    .refine((value) => value.startsWith(prefix), { error: `must start with ${prefix}` })
    .refine((value) => value.length > prefix.length, {
      error: `is only the ${prefix} placeholder of .env.example: paste the whole token`,
    });

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

/** `true` or `false` (also 1/0, yes/no); missing: false. */
const flag = () =>
  z.preprocess(
    (value) => {
      const given = blankIsMissing(value);
      return typeof given === 'string' ? given.trim().toLowerCase() : given;
    },
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
      .transform((value) => value === 'true' || value === '1' || value === 'yes')
      .optional(),
  );

const channel = () =>
  z.preprocess(
    blankIsMissing,
    z
      .string()
      .trim()
      .regex(CHANNEL_ID, { error: 'must be a channel id like C0123ABCD' })
      .optional(),
  );

const region = () =>
  z.preprocess(
    (value) =>
      typeof blankIsMissing(value) === 'string' ? String(value).toLowerCase() : undefined,
    z.enum(REGIONS, { error: `must be one of ${REGIONS.join(', ')}` }).optional(),
  );

const EnvSchema = z.object({
  SLACK_BOT_TOKEN: prefixed('xoxb-'),
  SLACK_SIGNING_SECRET: optionalText(),
  SLACK_APP_TOKEN: z.preprocess(blankIsMissing, prefixed('xapp-').optional()),
  SLACK_API_URL: url(),
  PORT: integer(3000, 0, 65_535),
  // Health, readiness and metrics on a port of their own (off the public one over HTTP).
  METRICS_PORT: optionalInteger(0, 65_535),
  // On SIGTERM: how long the app stays up with /readyz answering 503 so that load balancers
  // stop sending it requests, then how long a stop waits for work in flight (an apply above
  // all) before closing.
  SHUTDOWN_DELAY_MS: integer(5_000, 0, 120_000),
  SHUTDOWN_GRACE_MS: integer(10_000, 0, 120_000),
  // The CometChat apps (COMETCHAT_APPS, COMETCHAT_CHANNEL_APPS and each app's own variables)
  // are read by appNames, readApp and readChannelApps below: their names depend on values.
  // A chat reply should not keep someone waiting: each attempt gets COMETCHAT_TIMEOUT_MS,
  // all attempts and back-off together get COMETCHAT_BUDGET_MS.
  COMETCHAT_TIMEOUT_MS: integer(DEFAULT_COMETCHAT_TIMEOUT_MS, 100, 60_000),
  COMETCHAT_BUDGET_MS: integer(DEFAULT_COMETCHAT_BUDGET_MS, 100, 120_000),
  // How long a role list is reused (0: not at all); see cometchat/role-cache.ts.
  COMETCHAT_ROLE_CACHE_SECONDS: integer(30, 0, 3_600),
  // Who may edit permissions, and who may use the app at all: Slack user ids (U..., W...)
  // and user group ids (S...), comma-separated.
  EDITORS: slackIdList(),
  VIEWERS: slackIdList(),
  // Who may decide on flagged and blocked messages and read their text (per app too, see
  // AppSchema); unset: the app's editors. MODERATION_APPROVAL: a decision waits for a second
  // moderator in the app's approval channel.
  MODERATORS: slackIdList(),
  MODERATION_APPROVAL: flag(),
  AUDIT_CHANNEL: channel(),
  // Approval by a second person (per app too, see AppSchema): where requests are posted, who
  // may approve besides the app's editors, and how long a request stays open.
  APPROVAL_CHANNEL: channel(),
  APPROVERS: slackIdList(),
  APPROVAL_TTL_HOURS: integer(24, 1, 720),
  // How many days audit records are kept (a daily prune removes older ones); unset: for ever.
  AUDIT_RETENTION_DAYS: optionalInteger(1, 36_500),
  // How long a request waits before its approvers are reminded, once, in its thread (0: never).
  // On by default: a request nobody is reminded of only expires, and one reply in a thread an
  // hour on is a small price. A reminder due after the expiry is never sent.
  APPROVAL_REMINDER_MINUTES: integer(60, 0, 43_200),
  STORE_URL: optionalText(),
  // Traces, opt-in: OpenTelemetry's own settings for where spans go over OTLP/HTTP.
  OTEL_EXPORTER_OTLP_ENDPOINT: url(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(),
  // A collector's credentials (`authorization=Bearer ...`): a secret, so it may be a file too.
  OTEL_EXPORTER_OTLP_HEADERS: z.preprocess(
    blankIsMissing,
    z
      .string()
      .refine((value) => value.split(',').every((pair) => /^\s*[^=\s]+\s*=/.test(pair)), {
        error: 'must be key=value pairs, comma-separated',
      })
      .transform(otlpHeaders)
      .optional(),
  ),
  LOG_LEVEL: z.preprocess(
    (value) => blankIsMissing(value)?.toString().toLowerCase(),
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
});

type Env = Readonly<Record<string, string | undefined>>;

/** OpenTelemetry's header list: `key=value` pairs, comma-separated, values percent-encoded. */
function otlpHeaders(value: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value.split(',')) {
    const at = pair.indexOf('=');
    const raw = pair.slice(at + 1).trim();
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: taken as written.
    }
    headers[pair.slice(0, at).trim()] = decoded;
  }
  return headers;
}

const isSet = (env: Env, name: string) => blankIsMissing(env[name]) !== undefined;

// Rules that tie variables together. They look at the raw environment so that they are
// reported together with the per-variable problems, not only once those are fixed.
function crossProblems(env: Env): string[] {
  const has = (name: string) => isSet(env, name);
  const problems: string[] = [];
  if (!has('SLACK_APP_TOKEN') && !has('SLACK_SIGNING_SECRET')) {
    problems.push(
      'SLACK_SIGNING_SECRET is missing (required over HTTP; or set SLACK_APP_TOKEN for Socket Mode)',
    );
  }
  // A blank value means the default here too (Number('') would be 0).
  const timeout = Number(
    has('COMETCHAT_TIMEOUT_MS') ? env.COMETCHAT_TIMEOUT_MS : DEFAULT_COMETCHAT_TIMEOUT_MS,
  );
  const budget = Number(
    has('COMETCHAT_BUDGET_MS') ? env.COMETCHAT_BUDGET_MS : DEFAULT_COMETCHAT_BUDGET_MS,
  );
  if (timeout > budget)
    problems.push('COMETCHAT_TIMEOUT_MS must not be larger than COMETCHAT_BUDGET_MS');
  return problems;
}

// --- CometChat apps ------------------------------------------------------------------------
// Without COMETCHAT_APPS, the unprefixed COMETCHAT_APP_ID, _REGION, _API_KEY, _API_URL and
// _CALL_API_URL define one app called `default`, exactly as before there were several. With it,
// each app listed has the same variables under its own prefix, and the unprefixed ones are a
// mistake (nothing would read them).

/** One app's own variables, without their prefix. */
const AppSchema = z.object({
  APP_ID: optionalText(),
  REGION: region(),
  API_KEY: text(),
  API_URL: url(),
  CALL_API_URL: url(),
  EDITORS: slackIdList(),
  MODERATORS: slackIdList(),
  MODERATION_APPROVAL: flag(),
  APPROVAL_CHANNEL: channel(),
  APPROVERS: slackIdList(),
  // The Basic authentication CometChat's webhooks for this app are set up with (its dashboard's
  // webhook settings); without them, the app takes no webhook for it.
  WEBHOOK_USER: optionalText(),
  WEBHOOK_PASSWORD: z.preprocess(
    blankIsMissing,
    z
      .string()
      .min(16, 'must be at least 16 characters (CometChat sends it on every webhook)')
      .optional(),
  ),
});
type AppVariable = keyof typeof AppSchema.shape;
const APP_VARIABLES = AppSchema.keyof().options;
/** Who may do what with an app: of one of several apps only (the single app has the global ones). */
const OWN_ACCESS_VARIABLES: readonly AppVariable[] = [
  'EDITORS',
  'MODERATORS',
  'MODERATION_APPROVAL',
  'APPROVAL_CHANNEL',
  'APPROVERS',
];
const SINGLE_APP_VARIABLES = APP_VARIABLES.filter((key) => !OWN_ACCESS_VARIABLES.includes(key)).map(
  (key) => `COMETCHAT_${key}`,
);

/** `COMETCHAT_<NAME>_`: the prefix of an app's own variables (`eu-prod`: `COMETCHAT_EU_PROD_`). */
export function appEnvPrefix(name: string): string {
  return `COMETCHAT_${name.toUpperCase().replaceAll('-', '_')}_`;
}

interface AppSource {
  name: string;
  /** `COMETCHAT_` for the single app, `COMETCHAT_<NAME>_` for one of several. */
  prefix: string;
  /** Put before each of its problems: empty for the single app, whose messages stay as they were. */
  label: string;
  /**
   * Whether `<prefix>EDITORS`, `<prefix>APPROVAL_CHANNEL` and `<prefix>APPROVERS` are read (the
   * single app has the global EDITORS, APPROVAL_CHANNEL and APPROVERS alone).
   */
  ownAccess: boolean;
}

interface AppRead {
  problems: string[];
  /** With no problems: the app, its editors still undefined when it has none of its own. */
  app?: CometChatAppConfig;
}

function readApp(env: Env, source: AppSource): AppRead {
  const variable = (key: AppVariable) => `${source.prefix}${key}`;
  const has = (key: AppVariable) => isSet(env, variable(key));
  const parsed = AppSchema.safeParse(
    Object.fromEntries(
      APP_VARIABLES.map((key) => [
        key,
        OWN_ACCESS_VARIABLES.includes(key) && !source.ownAccess ? undefined : env[variable(key)],
      ]),
    ),
  );
  const problems = parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `${source.label}${describeIssue(issue, (key) => source.prefix + key)}`,
      );
  if (!has('API_URL') || !has('CALL_API_URL')) {
    for (const key of ['APP_ID', 'REGION'] as const) {
      if (!has(key)) {
        problems.push(
          `${source.label}${variable(key)} is missing (required unless ${variable('API_URL')} and ${variable('CALL_API_URL')} are both set)`,
        );
      }
    }
  }
  problems.push(...webhookProblems(has, variable, source.label));
  if (!parsed.success || problems.length > 0) return { problems };
  const a = parsed.data;
  // Two hosts: `api-` for roles and permissions, `call-` for calls (live-api-notes.md).
  const host = (service: 'api' | 'call') =>
    `https://${a.APP_ID ?? ''}.${service}-${a.REGION ?? 'us'}.cometchat.io`;
  return {
    problems,
    app: {
      name: source.name,
      appId: a.APP_ID,
      region: a.REGION,
      apiKey: a.API_KEY,
      apiUrl: a.API_URL ?? host('api'),
      callApiUrl: a.CALL_API_URL ?? host('call'),
      editors: a.EDITORS,
      editorsSetting: a.EDITORS ? variable('EDITORS') : 'EDITORS',
      moderators: a.MODERATORS,
      moderatorsSetting: a.MODERATORS ? variable('MODERATORS') : 'MODERATORS',
      moderationApproval: a.MODERATION_APPROVAL,
      approvalChannel: a.APPROVAL_CHANNEL,
      approvers: a.APPROVERS,
      approversSetting: a.APPROVERS ? variable('APPROVERS') : 'APPROVERS',
      webhook:
        a.WEBHOOK_USER && a.WEBHOOK_PASSWORD
          ? {
              user: a.WEBHOOK_USER,
              password: a.WEBHOOK_PASSWORD,
              setting: variable('WEBHOOK_PASSWORD'),
            }
          : undefined,
    },
  };
}

/** A webhook user without its password, or the other way round, is a half setting. */
function webhookProblems(
  has: (key: AppVariable) => boolean,
  variable: (key: AppVariable) => string,
  label: string,
): string[] {
  if (has('WEBHOOK_USER') === has('WEBHOOK_PASSWORD')) return [];
  const [set, missing] = has('WEBHOOK_USER')
    ? [variable('WEBHOOK_USER'), variable('WEBHOOK_PASSWORD')]
    : [variable('WEBHOOK_PASSWORD'), variable('WEBHOOK_USER')];
  return [`${label}${missing} is missing (${set} is set: webhooks need both)`];
}

interface AppNames {
  /** Every name as listed, to tell an app not listed from one listed in a wrong form. */
  listed: readonly string[];
  /** The names of the form of an app name, each once, in order: the apps to read. */
  names: readonly string[];
  problems: string[];
}

function appNames(value: string, reserved: ReadonlySet<string>): AppNames {
  const listed = value.split(/[\s,]+/).filter(Boolean);
  const names: string[] = [];
  const problems: string[] = [];
  if (listed.length === 0) problems.push('COMETCHAT_APPS must name at least one app');
  const twice = new Set<string>();
  listed.forEach((name, index) => {
    if (!APP_NAME.test(name)) {
      problems.push(
        `COMETCHAT_APPS name ${index + 1} must be 1 to 32 lower-case letters, digits or -, starting with a letter`,
      );
    } else if (names.includes(name)) {
      if (!twice.has(name)) problems.push(`COMETCHAT_APPS names ${name} more than once`);
      twice.add(name);
    } else {
      names.push(name);
      if (reserved.has(name)) {
        problems.push(
          `COMETCHAT_APPS names ${name}, which is a /cometchat subcommand: choose another name`,
        );
      }
    }
  });
  // `prod` and `prod-call` would share COMETCHAT_PROD_CALL_API_URL. (An app called `call` would
  // read COMETCHAT_CALL_API_URL, but that name is reserved anyway.)
  const readers = new Map<string, string>();
  for (const name of names) {
    for (const key of APP_VARIABLES) {
      const variable = `${appEnvPrefix(name)}${key}`;
      const other = readers.get(variable);
      if (other === undefined) readers.set(variable, name);
      else {
        problems.push(
          `COMETCHAT_APPS names ${other} and ${name}, which would both read ${variable}: rename one`,
        );
      }
    }
  }
  return { listed, names, problems };
}

function unprefixedProblems(env: Env): string[] {
  const set = SINGLE_APP_VARIABLES.filter((name) => isSet(env, name));
  if (set.length === 0) return [];
  const own = set.map((name) => name.replace(/^COMETCHAT_/, 'COMETCHAT_<NAME>_'));
  return [
    `${listOf(set)} ${set.length === 1 ? 'is' : 'are'} set, but with COMETCHAT_APPS each app has its own: use ${listOf(own)} instead`,
  ];
}

interface ChannelApps {
  problems: string[];
  channelApps: Record<string, string>;
}

/** COMETCHAT_CHANNEL_APPS: `C0123:staging,C0456:prod`, the app a channel's commands are for. */
function readChannelApps(
  value: string | undefined,
  apps: Pick<AppNames, 'listed' | 'names'>,
): ChannelApps {
  const channelApps: Record<string, string> = {};
  const problems: string[] = [];
  const entries = (value ?? '')
    .replace(/\s*:\s*/g, ':')
    .split(/[\s,]+/)
    .filter(Boolean);
  const seen = new Set<string>();
  const twice = new Set<string>();
  const configured = apps.names.length > 0 ? ` (configured: ${apps.names.join(', ')})` : '';
  entries.forEach((entry, index) => {
    const at = entry.indexOf(':');
    const channel = entry.slice(0, Math.max(at, 0));
    const app = entry.slice(at + 1);
    if (at < 0 || !CHANNEL_ID.test(channel) || app === '') {
      problems.push(
        `COMETCHAT_CHANNEL_APPS entry ${index + 1} must be a channel id and an app name, like C0123ABCD:staging`,
      );
    } else if (seen.has(channel)) {
      if (!twice.has(channel)) {
        problems.push(`COMETCHAT_CHANNEL_APPS lists channel ${channel} more than once`);
      }
      twice.add(channel);
    } else {
      seen.add(channel);
      if (apps.names.includes(app)) channelApps[channel] = app;
      // A name listed in COMETCHAT_APPS in a wrong form is reported there already.
      else if (!apps.listed.includes(app)) {
        problems.push(
          APP_NAME.test(app)
            ? `COMETCHAT_CHANNEL_APPS sets channel ${channel} to app ${app}, which is not configured${configured}`
            : `COMETCHAT_CHANNEL_APPS entry ${index + 1} names an app that is not configured${configured}`,
        );
      }
    }
  });
  return { problems, channelApps };
}

/** `A`, `A and B`, `A, B and C`. */
function listOf(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** One configured CometChat app. */
export interface CometChatAppConfig {
  /** The name people type (`/cometchat staging roles`); `default` without COMETCHAT_APPS. */
  name: string;
  /** As configured; undefined when both addresses are given instead. */
  appId: string | undefined;
  region: CometChatRegion | undefined;
  apiKey: string;
  /** Role API address, without `/v3`. */
  apiUrl: string;
  /** Call API address, without `/v3`. */
  callApiUrl: string;
  /**
   * Who may edit this app's permissions: its COMETCHAT_<NAME>_EDITORS, else EDITORS;
   * undefined means workspace admins and owners.
   */
  editors: readonly string[] | undefined;
  /** The setting `editors` came from, for the sentence that refuses someone not in it. */
  editorsSetting: string;
  /**
   * Who may decide on this app's flagged and blocked messages and read their text: its
   * COMETCHAT_<NAME>_MODERATORS, else MODERATORS; undefined means the app's editors.
   */
  moderators: readonly string[] | undefined;
  /** The setting `moderators` came from (MODERATORS when neither is set). */
  moderatorsSetting: string;
  /**
   * Whether a moderation decision waits for a second moderator (COMETCHAT_<NAME>_MODERATION_APPROVAL,
   * else MODERATION_APPROVAL); refused without an approval channel (moderationApprovalProblems).
   */
  moderationApproval: boolean | undefined;
  /**
   * Where this app's changes wait for a second person: its COMETCHAT_<NAME>_APPROVAL_CHANNEL,
   * else APPROVAL_CHANNEL; undefined means an editor applies a change alone.
   */
  approvalChannel: string | undefined;
  /**
   * Who may approve: its COMETCHAT_<NAME>_APPROVERS, else APPROVERS; undefined means any of the
   * app's editors. Never the person who asked.
   */
  approvers: readonly string[] | undefined;
  approversSetting: string;
  /**
   * The Basic authentication of this app's CometChat webhooks (COMETCHAT[_<NAME>]_WEBHOOK_USER
   * and _PASSWORD); undefined: webhooks for this app are refused.
   */
  webhook?: { user: string; password: string; setting: string } | undefined;
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
    /** Health, readiness and metrics routes here instead of on `port` (METRICS_PORT). */
    metricsPort: number | undefined;
  };
  /** How long a SIGTERM leaves the app serving, not ready, before it stops (SHUTDOWN_DELAY_MS). */
  shutdownDelayMs: number;
  /** How long a stop waits for work in flight before closing (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  cometchat: {
    /** Every app in the order of COMETCHAT_APPS (or `default` alone); the first is the default. */
    apps: readonly CometChatAppConfig[];
    /** Channel id to the name of the app its commands are for when they name none. */
    channelApps: Readonly<Record<string, string>>;
    timeoutMs: number;
    budgetMs: number;
    /** How long a role list is reused; 0 turns the cache off. */
    roleCacheSeconds: number;
  };
  access: {
    /**
     * Users and user groups who may edit any app without editors of its own; undefined means
     * workspace admins and owners.
     */
    editors: readonly string[] | undefined;
    /** Users and user groups who may use the app; undefined means everyone in the workspace. */
    viewers: readonly string[] | undefined;
  };
  /** Channel that receives a post for every attempted permission change. */
  auditChannel: string | undefined;
  /** How long an approval request stays open (APPROVAL_TTL_HOURS). */
  approvalTtlHours: number;
  /** Audit records older than this many days are removed daily (AUDIT_RETENTION_DAYS); unset: kept. */
  auditRetentionDays: number | undefined;
  /** How long a request waits before its approvers are reminded (APPROVAL_REMINDER_MINUTES; 0: never). */
  approvalReminderMinutes: number;
  /** Where state is kept: a SQLite path, `redis://...`, or `memory:`; default ./data/. */
  storeUrl: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Where spans are sent over OTLP/HTTP; undefined: no tracing. */
  tracesEndpoint: string | undefined;
  /** Headers sent with the spans (OTEL_EXPORTER_OTLP_HEADERS): a collector's credentials. */
  tracesHeaders: Readonly<Record<string, string>>;
  /** Every secret value, so the logger can scrub them from anything it writes. */
  secrets: readonly string[];
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Configuration is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Reads the settings once; throws a ConfigError naming every problem. `reserved` are the words
 * an app may not be called, because `/cometchat <app> <subcommand>` could not tell them from a
 * subcommand (main.ts passes the subcommands' names). A secret may come from a file
 * (`<NAME>_FILE`, see secret-files.ts), read with `readFile`.
 */
export function loadConfig(
  given: Env,
  reserved: readonly string[] = [],
  readFile: ReadSecretFile = readSecretFile,
): Config {
  const { env, problems: fileProblems } = withSecretFiles(given, readFile);
  const parsed = EnvSchema.safeParse(env);
  const apps = readApps(env, new Set(reserved));
  const problems = [
    ...fileProblems,
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue))),
    ...apps.problems,
    ...crossProblems(env),
    ...moderationApprovalProblems(env, apps.apps),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(toConfig(parsed.data, apps, env));
}

/**
 * MODERATION_APPROVAL asks for a second moderator in the approval channel: an app that asks for
 * one without a channel (its own or APPROVAL_CHANNEL) would let one moderator decide alone.
 */
function moderationApprovalProblems(env: Env, apps: readonly CometChatAppConfig[]): string[] {
  const global = EnvSchema.pick({ MODERATION_APPROVAL: true, APPROVAL_CHANNEL: true }).safeParse(
    env,
  );
  // A bad global value is a problem of its own already.
  if (!global.success) return [];
  const several = isSet(env, 'COMETCHAT_APPS');
  return apps.flatMap((app) => {
    const asks = app.moderationApproval ?? global.data.MODERATION_APPROVAL ?? false;
    if (!asks || (app.approvalChannel ?? global.data.APPROVAL_CHANNEL)) return [];
    if (!several) {
      return [
        'MODERATION_APPROVAL is true but APPROVAL_CHANNEL is not set (the second moderator approves there)',
      ];
    }
    const prefix = appEnvPrefix(app.name);
    const setting =
      app.moderationApproval === undefined ? 'MODERATION_APPROVAL' : `${prefix}MODERATION_APPROVAL`;
    return [
      `App ${app.name}: ${setting} is true but neither ${prefix}APPROVAL_CHANNEL nor APPROVAL_CHANNEL is set (the second moderator approves there)`,
    ];
  });
}

interface AppsRead {
  problems: string[];
  /** The apps read without a problem, each access setting undefined unless it has its own. */
  apps: CometChatAppConfig[];
  channelApps: Record<string, string>;
}

/** The apps of COMETCHAT_APPS (or the single one), and COMETCHAT_CHANNEL_APPS. */
function readApps(env: Env, reserved: ReadonlySet<string>): AppsRead {
  const several = isSet(env, 'COMETCHAT_APPS')
    ? appNames(env.COMETCHAT_APPS ?? '', reserved)
    : undefined;
  const reads = several
    ? several.names.map((name) =>
        readApp(env, {
          name,
          prefix: appEnvPrefix(name),
          label: `App ${name}: `,
          ownAccess: true,
        }),
      )
    : [readApp(env, { name: SINGLE_APP_NAME, prefix: 'COMETCHAT_', label: '', ownAccess: false })];
  const channels = readChannelApps(
    env.COMETCHAT_CHANNEL_APPS,
    several ?? { listed: [SINGLE_APP_NAME], names: [SINGLE_APP_NAME] },
  );
  return {
    problems: [
      ...(several ? [...several.problems, ...unprefixedProblems(env)] : []),
      ...reads.flatMap((read) => read.problems),
      ...channels.problems,
    ],
    apps: reads.flatMap(({ app }) => (app ? [app] : [])),
    channelApps: channels.channelApps,
  };
}

/**
 * The configuration of an environment without problems. An app without access settings of its
 * own (the single app always) has the global ones.
 */
function toConfig(e: z.output<typeof EnvSchema>, read: AppsRead, env: Env): Config {
  const apps = read.apps.map((app) => ({
    ...app,
    editors: app.editors ?? e.EDITORS,
    moderators: app.moderators ?? e.MODERATORS,
    moderationApproval: app.moderationApproval ?? e.MODERATION_APPROVAL ?? false,
    approvalChannel: app.approvalChannel ?? e.APPROVAL_CHANNEL,
    approvers: app.approvers ?? e.APPROVERS,
  }));
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      socketMode: e.SLACK_APP_TOKEN !== undefined,
      port: e.PORT,
      metricsPort: e.METRICS_PORT,
    },
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    cometchat: {
      apps,
      channelApps: read.channelApps,
      timeoutMs: e.COMETCHAT_TIMEOUT_MS,
      budgetMs: e.COMETCHAT_BUDGET_MS,
      roleCacheSeconds: e.COMETCHAT_ROLE_CACHE_SECONDS,
    },
    access: { editors: e.EDITORS, viewers: e.VIEWERS },
    auditChannel: e.AUDIT_CHANNEL,
    approvalTtlHours: e.APPROVAL_TTL_HOURS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    approvalReminderMinutes: e.APPROVAL_REMINDER_MINUTES,
    storeUrl: e.STORE_URL,
    logLevel: e.LOG_LEVEL,
    // OpenTelemetry's rule: a signal's own endpoint as it is, the general one with its path.
    tracesEndpoint:
      e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`),
    tracesHeaders: e.OTEL_EXPORTER_OTLP_HEADERS ?? {},
    secrets: [
      ...new Set(
        Object.entries(env).flatMap(([name, value]) =>
          isSecretSetting(name) ? secretForms(name, value) : [],
        ),
      ),
    ],
  };
}

/**
 * What of a secret setting's value could turn up in a log line, for the scrubber: the value as
 * set and as read (trimmed), or, for the settings where only a part is secret, that part.
 * Derived from isSecretSetting, so a new secret setting is scrubbed without a second list.
 */
function secretForms(name: string, value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  if (name === 'STORE_URL') return [storePassword(value)].filter((p) => p !== undefined);
  if (name === 'OTEL_EXPORTER_OTLP_HEADERS') return Object.values(otlpHeaders(value));
  return [...new Set([value.trim(), value])];
}

/** The password inside a `redis://user:password@host` address, so logs can scrub it. */
function storePassword(storeUrl: string): string | undefined {
  if (!/^rediss?:/.test(storeUrl)) return undefined;
  try {
    const password = decodeURIComponent(new URL(storeUrl).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/** `nameOf` turns the key a schema read into the variable it came from. */
function describeIssue(issue: z.core.$ZodIssue, nameOf: (key: string) => string = String): string {
  const name = issue.path[0] === undefined ? 'environment' : nameOf(String(issue.path[0]));
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
