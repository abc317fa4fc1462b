import type { Logger as BoltLogger, LogLevel as BoltLogLevel } from '@slack/bolt';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

// Field paths that hold credentials wherever they appear in a log object: request headers,
// the config, and client options attached to errors. Every path starts with a field name, at
// the top or under one of the fields that carry objects from elsewhere (an error, a request,
// options): a path that starts with a wildcard sends every field of every line, and every
// request logger's bindings, through the redactor, which made a log line cost about 14 times
// as much (BENCHMARKS.md in git history, "Cheaper per command"). A secret in any other field is still caught
// by the scrub below, by its value.
const SECRET_FIELDS = [
  'apiKey',
  'apikey',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'authorization',
];
const CARRIERS = ['err', 'error', 'cause', 'request', 'response', 'options', 'client', 'data'];
const REDACT_PATHS = [
  ...SECRET_FIELDS,
  'headers.apikey',
  'headers.authorization',
  'headers["x-slack-signature"]',
  ...CARRIERS.flatMap((carrier) => [
    ...SECRET_FIELDS.map((field) => `${carrier}.${field}`),
    `${carrier}.headers.apikey`,
    `${carrier}.headers.authorization`,
    `${carrier}.headers["x-slack-signature"]`,
  ]),
  'config.slack',
  'config.cometchat.apiKey',
  'config.cometchat.apps[*].apiKey',
];

export interface LoggerOptions {
  level: string;
  /** Secret values to scrub from every line, whatever field (or message) they ended up in. */
  secrets?: readonly string[];
  destination?: DestinationStream;
}

/**
 * The root logger. Redaction by path covers the places we know about; scrubbing the written
 * line for the configured secret values covers the ones we do not (a key echoed inside an
 * upstream error message, for instance).
 */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  return pino(
    {
      level: options.level,
      // `service`, not `app`: lines about a CometChat app carry its name as `app`, and a line
      // with two `app` keys loses one of them in most log tools.
      base: { service: 'cometchat-slack-ops' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        streamWrite: secrets.length > 0 ? (line) => scrub(line, secrets) : (line) => line,
      },
    },
    options.destination,
  );
}

export function scrub(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    // The same value as JSON would escape it (only matters for unusual characters).
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join('[redacted]');
  }
  return out;
}

const BOLT_TO_PINO: Record<BoltLogLevel, string> = {
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
} as Record<BoltLogLevel, string>;

/** Bolt (and its Web API and Socket Mode clients) log through this, so one pipeline sees all. */
export function boltLogger(parent: Logger): BoltLogger {
  let logger = parent.child({ component: 'bolt' });
  const write = (level: 'debug' | 'info' | 'warn' | 'error', msg: unknown[]) => {
    const error = msg.find((m): m is Error => m instanceof Error);
    const text = msg
      .filter((m) => !(m instanceof Error))
      .map((m) => (typeof m === 'string' ? m : safeStringify(m)))
      .join(' ');
    if (error) logger[level]({ err: error }, text);
    else logger[level](text);
  };
  return {
    debug: (...msg) => write('debug', msg),
    info: (...msg) => write('info', msg),
    warn: (...msg) => write('warn', msg),
    error: (...msg) => write('error', msg),
    setLevel: (level) => {
      // Bolt may ask for more than LOG_LEVEL allows (it defaults to info); the root decides.
      const wanted = BOLT_TO_PINO[level] ?? 'info';
      const wantedValue = parent.levels.values[wanted] ?? 0;
      logger.level = wantedValue < parent.levelVal ? parent.level : wanted;
    },
    getLevel: () => logger.level as BoltLogLevel,
    setName: (name) => {
      // A rename must not undo an earlier setLevel.
      const { level } = logger;
      logger = parent.child({ component: name });
      logger.level = level;
    },
  };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
