import { ecsFormat } from '@elastic/ecs-pino-format';
import { type Logger as BoltLogger, LogLevel as BoltLogLevel } from '@slack/bolt';
import {
  type Bindings,
  type ChildLoggerOptions,
  type DestinationStream,
  type Logger,
  pino,
  stdSerializers,
} from 'pino';
import { BUILD, SERVICE_NAME } from './observe/build.ts';
import { currentRequestIfAny } from './request-context.ts';
import { scrub } from './scrub.ts';
import { currentSpan } from './spans.ts';

export type { Logger } from 'pino';

// Log lines follow the Elastic Common Schema (ECS), through Elastic's own pino format: the level
// as text (`log.level`), `@timestamp`, `message`, `ecs.version`, and `service.name` and
// `service.version`, as the traces' spans name them. The code logs fields by short names
// (`{ app, role }`, `{ err }`, a child's `{ ref, user }`); each becomes an ECS field where ECS
// has one for it, and the app's own field otherwise, under one namespace, so no name can meet
// an ECS field of another type (ECS's `user`, `event` or `service` are objects).
// docs/operations.md has the table.

/**
 * The app's own fields. ECS advises nesting custom fields under a proper name, which no ECS
 * field set will take; the fields are written with dotted keys, as ECS's own `log.level`, so a
 * child's bindings and a line's fields never share an object.
 */
const OWN_FIELDS = 'cometchat_ops';

/** Names the code logs under that ECS has a field for. */
const ECS_NAMES: Readonly<Record<string, string>> = {
  // A Slack user id.
  user: 'user.id',
  // The Slack workspace: the organization the request came from.
  team: 'organization.id',
  // The part of the app, or of Bolt and its clients, that wrote the line.
  component: 'log.logger',
};

const names = new Map<string, string>();

/** The field a name the code logs under becomes on the line. */
export function fieldName(name: string): string {
  let field = names.get(name);
  if (field === undefined) {
    // A dotted name is already a field's (`http.response.status_code`): taken as written.
    field = ECS_NAMES[name] ?? (name.includes('.') ? name : `${OWN_FIELDS}.${name}`);
    names.set(name, field);
  }
  return field;
}

// Field paths that hold credentials wherever they appear in a log object: request headers,
// the config, and client options carried by other objects (a request, options, a cause).
// Every path starts with a field name, as written on the line (`["cometchat_ops.config"]`): a
// path that starts with a wildcard sends every field of every line, and every request
// logger's bindings, through the redactor, which made a log line cost about 14 times as much
// (BENCHMARKS.md in git history, "Cheaper per command"). An error (`err`) becomes ECS's
// `error.type`, `error.message`, `error.stack_trace` and `error.code`, never the error's other
// properties, so no path looks inside it. A secret in any other field, or in an error's
// message, is still caught by the scrub below, by its value.
const SECRET_FIELDS = [
  'apiKey',
  'apikey',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'authorization',
];
const SECRET_HEADERS = ['apikey', 'authorization', '["x-slack-signature"]'];
const CARRIERS = ['cause', 'request', 'response', 'options', 'client', 'data'];
const at = (name: string) => `["${fieldName(name)}"]`;
const REDACT_PATHS = [
  ...SECRET_FIELDS.map(at),
  ...SECRET_HEADERS.map((header) => `${at('headers')}.${header}`),
  ...CARRIERS.flatMap((carrier) => [
    ...SECRET_FIELDS.map((field) => `${at(carrier)}.${field}`),
    ...SECRET_HEADERS.map((header) => `${at(carrier)}.headers.${header}`),
  ]),
  `${at('config')}.slack`,
  `${at('config')}.cometchat.apiKey`,
  `${at('config')}.cometchat.apps[*].apiKey`,
];

export interface LoggerOptions {
  level: string;
  /** Secret values to scrub from every line, whatever field (or message) they ended up in. */
  secrets?: readonly string[];
  destination?: DestinationStream;
}

/** What each logger made here was bound to, by the names the code used. */
const bound = new WeakMap<object, Bindings>();

const NO_BINDINGS: Bindings = Object.freeze({});
/** What the mixin adds to a line outside a request, or to one whose logger has the reference. */
const NOTHING: object = Object.freeze({});

/**
 * The root logger. Redaction by path covers the places we know about; scrubbing the written
 * line for the configured secret values covers the ones we do not (a key echoed inside an
 * upstream error message, for instance). A line written while a request's work runs carries
 * its reference (`runInRequest`), whichever logger wrote it.
 */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = options.secrets ?? [];
  // Errors are made ECS's fields here (ecsError), with their causes, not by the format.
  const ecs = ecsFormat({
    serviceName: SERVICE_NAME,
    serviceVersion: BUILD.version,
    convertErr: false,
  });
  const ecsLog = ecs.formatters?.log ?? ((fields: Record<string, unknown>) => fields);
  const root = pino(
    {
      ...ecs,
      level: options.level,
      // No pid or hostname: the platform that runs the container knows both.
      base: {},
      formatters: { ...ecs.formatters, log: (fields) => ecsFields(ecsLog(fields)) },
      mixin: (_fields, _level, logger) => {
        const ref = currentRequestIfAny()?.ref;
        const span = currentSpan();
        const addRef = ref !== undefined && bound.get(logger)?.ref === undefined;
        if (!addRef && span === undefined) return NOTHING;
        return {
          ...(addRef ? { ref } : {}),
          // With traces on, a line names its span (ECS's fields), to go from one to the other.
          ...(span ? { 'trace.id': span.traceId, 'span.id': span.spanId } : {}),
        };
      },
      // A line's own `ref` wins over the request's; a line with nothing to add is not copied.
      mixinMergeStrategy: (fields, added) => (added === NOTHING ? fields : { ...added, ...fields }),
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        // A field the logger carries already, with the same value (a request logger's `user`),
        // is not written again: Elasticsearch refuses a line with a duplicate key.
        logMethod(args, method) {
          const carried = bound.get(this);
          const [fields] = args;
          if (carried !== undefined && isFields(fields)) args[0] = uncarried(fields, carried);
          return method.apply(this, args);
        },
        streamWrite: secrets.length > 0 ? (line) => scrub(line, secrets) : (line) => line,
      },
    },
    options.destination,
  );
  return withEcsChildren(root);
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof Error);
}

/** `fields` less those `carried` holds with the same value (the same object when none). */
function uncarried(fields: Record<string, unknown>, carried: Bindings): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const name of Object.keys(fields)) {
    if (fields[name] === undefined || carried[name] !== fields[name]) continue;
    out ??= { ...fields };
    delete out[name];
  }
  return out ?? fields;
}

/** A line's (or a child's) fields under their ECS names; `err` becomes ECS's error fields. */
function ecsFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(fields)) {
    const value = fields[name];
    if (value === undefined) continue;
    if (name === 'err' || name === 'error') out.error = ecsError(value);
    else out[fieldName(name)] = value;
  }
  return out;
}

/**
 * ECS's error fields. pino's own serializer reads the error: its message and stack include its
 * causes'. Of its other properties only `code` is kept (a system error's `ECONNRESET`, the Web
 * API client's): the rest can hold a request with its headers.
 */
function ecsError(value: unknown): Record<string, unknown> {
  if (!(value instanceof Error)) {
    return { message: typeof value === 'string' ? value : safeStringify(value) };
  }
  const error = stdSerializers.err(value);
  const code = 'code' in value ? value.code : undefined;
  return {
    type: error.type,
    message: error.message,
    stack_trace: error.stack,
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
  };
}

/**
 * pino writes a child's bindings as they are given (its bindings formatter is the root's
 * alone), so every child of this root is made through this `child`, which its children
 * inherit: the bindings under their ECS names, less any a parent carries already with the same
 * value (pino would write that key twice, and some log pipelines refuse a line with a
 * duplicate key). `bindings()` answers with the names the code bound, which callers compare
 * (the CometChat client's and the alerts' `bindings().ref`).
 */
function withEcsChildren(root: Logger): Logger {
  const makeChild: (
    this: Logger,
    bindings: Bindings,
    options?: ChildLoggerOptions<never>,
  ) => Logger = root.child;
  function child(this: Logger, bindings: Bindings, options?: ChildLoggerOptions<never>): Logger {
    const carried = bound.get(this) ?? NO_BINDINGS;
    const added: Bindings = {};
    for (const name of Object.keys(bindings)) {
      const value: unknown = bindings[name];
      if (value !== undefined && carried[name] !== value) added[name] = value;
    }
    const instance = makeChild.call(this, ecsFields(added), options);
    bound.set(instance, { ...carried, ...added });
    return instance;
  }
  function bindings(this: Logger): Bindings {
    return { ...bound.get(this) };
  }
  // Own properties of the root: a child is made with the root in its prototype chain, so every
  // descendant has them too.
  Object.assign(root, { child, bindings });
  return root;
}

/** Bolt's and the Web API client's level for a pino level (LOG_LEVEL's, or a logger's). */
export function boltLevel(level: string): BoltLogLevel {
  if (level === 'debug' || level === 'trace') return BoltLogLevel.DEBUG;
  if (level === 'info') return BoltLogLevel.INFO;
  if (level === 'warn') return BoltLogLevel.WARN;
  return BoltLogLevel.ERROR;
}

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
      // Bolt's levels are pino's names.
      const wanted: string = level;
      const wantedValue = parent.levels.values[wanted] ?? 0;
      logger.level = wantedValue < parent.levelVal ? parent.level : wanted;
    },
    getLevel: () => boltLevel(logger.level),
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
