import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { validate as validateDeployment } from 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment';
import { validate as validateStatefulSet } from 'kubernetes-models/_schemas/IoK8sApiAppsV1StatefulSet';
import { validate as validateConfigMap } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap';
import { validate as validateSecret } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as validateService } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import { validate as validateNetworkPolicy } from 'kubernetes-models/_schemas/IoK8sApiNetworkingV1NetworkPolicy';
import { validate as validatePodDisruptionBudget } from 'kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.ts';
import { DEFAULT_APP_TOKEN, DEFAULT_BOT_TOKEN } from '../../offline/slack-standin/workspace.ts';
import { standInSettings } from '../../offline/stack/serve.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { OPS_PATHS } from '../../src/observe/readiness.ts';
import { isSecretSetting, type ReadSecretFile, readSecretFile } from '../../src/secret-files.ts';
import { openStore } from '../../src/store/open-store.ts';
import { skipRedisSuites } from '../store/redis-server.ts';
import { isRecord, type Json, kustomize, yamlDocuments } from './kustomize.ts';
import { allowed, type Peer, type Pod, selects } from './network-policy.ts';

// The deployment examples, checked without a container engine or a cluster (neither runs where
// this project is built): docker-compose.yml against the Compose Specification's JSON Schema,
// each Kubernetes manifest, as written and as its kustomization renders it, against its kind's
// schema from Kubernetes' OpenAPI (kubernetes-models, and the prometheus-operator's for the
// PodMonitor) and, for names the schema lets through, against the same models' TypeScript
// types; then the facts that tie them to the app: settings it knows, its probe routes, its
// port, its drain, Redis's password, who the network policies let through.

const ROOT = new URL('../../', import.meta.url);
const pathOf = (path: string) => fileURLToPath(new URL(path, ROOT));
const text = (path: string) => readFileSync(pathOf(path), 'utf8');
const load = (path: string) => yamlDocuments(pathOf(path));

function record(value: unknown, what: string): Json {
  if (!isRecord(value)) throw new Error(`${what} is not a mapping`);
  return value;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Walks `path` through nested mappings and lists (a number indexes a list). */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') current = Array.isArray(current) ? current[key] : undefined;
    else current = isRecord(current) ? current[key] : undefined;
  }
  return current;
}

// --- Settings -----------------------------------------------------------------------------

/** Every variable .env.example documents, set or shown commented out. */
const DOCUMENTED = new Set(
  [...text('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].flatMap((m) => m[1] ?? []),
);

/** A documented setting, or `<NAME>_FILE` for a documented secret `<NAME>`. */
function isSetting(name: string): boolean {
  const secret = name.replace(/_FILE$/, '');
  return (
    DOCUMENTED.has(name) || (secret !== name && DOCUMENTED.has(secret) && isSecretSetting(secret))
  );
}

/** Enough for loadConfig, to read the defaults of what a file leaves out. */
const MINIMAL_ENV = Object.freeze({
  SLACK_BOT_TOKEN: 'xoxb-test',
  SLACK_SIGNING_SECRET: 'test-secret',
  COMETCHAT_API_KEY: 'test-key',
  COMETCHAT_APP_ID: 'test-app',
  COMETCHAT_REGION: 'us',
});

/** The longest a stop can take before it exits, in milliseconds. */
const drainMs = (config: Config) => config.shutdownDelayMs + config.shutdownGraceMs;

/** The password of a `redis://:password@host` address. */
const passwordOf = (storeUrl: string | undefined) =>
  decodeURIComponent(new URL(storeUrl ?? '').password);

// --- docker-compose.yml -------------------------------------------------------------------

const compose = record(load('docker-compose.yml')[0], 'docker-compose.yml');
const services = record(compose.services, 'services');
const service = (name: string) => record(services[name], `service ${name}`);
/** The services that run the app's image (the Dockerfile's final stage). */
const appServices = Object.keys(services).filter(
  (name) => at(services[name], 'build', 'target') === 'runtime',
);
const environment = (name: string): Record<string, string> => {
  const env = record(service(name).environment ?? {}, `${name}.environment`);
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
};

function compileComposeSchema() {
  // strict: false because the schema uses union types (`type: [string, number]`) and
  // `additionalProperties` without `type: object`: valid JSON Schema, which ajv's strict mode
  // would warn about on every run.
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return ajv.compile(JSON.parse(text('test/deploy/schemas/compose-spec.json')));
}
const validateCompose = compileComposeSchema();

/** One line per error; kubernetes-models' validators carry no message, only the keyword. */
function explain(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`)
    .join('\n');
}

function composeProblems(file: unknown): string {
  return validateCompose(file) ? '' : explain(validateCompose.errors);
}

/** `30s`, `1m30s`, `500ms` in milliseconds. */
function durationMs(value: unknown): number {
  const parts = [...String(value).matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
  return parts.reduce((sum, [, n, u = '']) => sum + Number(n) * (unit[u] ?? Number.NaN), 0);
}

/** The Dockerfile's exec-form HEALTHCHECK command and its EXPOSEd port. */
function dockerfile(): { healthcheck: unknown; exposed: number } {
  const file = text('Dockerfile');
  const healthcheck = /^HEALTHCHECK\b.*\bCMD (\[.*\])$/m.exec(file)?.[1];
  const exposed = /^EXPOSE (\d+)$/m.exec(file)?.[1];
  if (healthcheck === undefined || exposed === undefined) {
    throw new Error('Dockerfile: no exec-form HEALTHCHECK or no EXPOSE');
  }
  return { healthcheck: JSON.parse(healthcheck), exposed: Number(exposed) };
}

/** A service's mounts of named volumes: `volume:/target[:ro]`. */
function mounts(name: string): { volume: string; target: string; readOnly: boolean }[] {
  return list(service(name).volumes).map((entry) => {
    const [volume = '', target = '', mode] = String(entry).split(':');
    return { volume, target, readOnly: mode === 'ro' };
  });
}

/** Where the redis-secret volume is mounted in a service. */
function secretMount(name: string): string {
  const mount = mounts(name).find((m) => m.volume === 'redis-secret');
  if (mount === undefined) throw new Error(`${name} does not mount redis-secret`);
  return mount.target;
}

/** Runs redis-secret's command as Compose would, in `dir` standing for the volume. */
function runRedisSecret(dir: string): void {
  const redisSecret = service('redis-secret');
  expect(redisSecret.working_dir).toBe(secretMount('redis-secret'));
  // Compose reads `$$` as one `$` in a command.
  const [command = '', ...args] = list(redisSecret.command).map((a) =>
    String(a).replaceAll('$$', '$'),
  );
  execFileSync(command, args, { cwd: dir, stdio: 'pipe' });
}

/** A directory standing for the redis-secret volume, as redis-secret leaves it. */
function redisSecretVolume(): string {
  const dir = mkdtempSync(join(tmpdir(), 'redis-secret-'));
  runRedisSecret(dir);
  return dir;
}
const secretVolume = redisSecretVolume();
afterAll(() => rmSync(secretVolume, { recursive: true, force: true }));

/** Reads a path inside a service's container from the volume mounted there, as the app does. */
function containerFiles(name: string, volume = secretVolume): ReadSecretFile {
  const target = secretMount(name);
  return (path) => {
    if (!path.startsWith(`${target}/`)) {
      throw Object.assign(new Error(`${name} mounts nothing at ${path}`), { code: 'ENOENT' });
    }
    return readSecretFile(join(volume, path.slice(target.length + 1)));
  };
}

/** The configuration an app service starts with (.env adds the accounts' settings). */
const appConfig = (name: string, volume = secretVolume) =>
  loadConfig({ ...MINIMAL_ENV, ...environment(name) }, [], containerFiles(name, volume));

/** Redis's command, with the paths inside its container made paths of `volume`. */
function redisCommand(volume: string): string[] {
  const target = secretMount('redis');
  return list(service('redis').command).map((a) => String(a).replace(`${target}/`, `${volume}/`));
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification', () => {
    expect(composeProblems(compose)).toBe('');
  });

  it('is rejected with a misspelt key or a value of the wrong type', () => {
    const misspelt = structuredClone(compose);
    const app = record(at(misspelt, 'services', 'app-1'), 'app-1');
    app.helthcheck = app.healthcheck;
    delete app.healthcheck;
    expect(composeProblems(misspelt)).toMatch(/additional properties.*helthcheck/is);

    const wrongType = structuredClone(compose);
    record(at(wrongType, 'services', 'app-2'), 'app-2').ports = '127.0.0.1:3002:3000';
    expect(composeProblems(wrongType)).toMatch(/\/services\/app-2\/ports must be array/);
  });

  it('runs two replicas and the offline pair, each on Redis, 256 MiB and one CPU', () => {
    expect(appServices.sort()).toEqual(['app-1', 'app-2', 'app-offline']);
    expect(at(service('app-offline'), 'deploy', 'replicas')).toBe(2);
    for (const name of appServices) {
      // Several replicas on SQLite would each keep approvals and claims of their own.
      expect(appConfig(name).storeUrl, name).toMatch(
        /^redis:\/\/:[0-9a-f]{64}@redis:6379(\/\d+)?$/,
      );
      expect(at(service(name), 'deploy', 'resources', 'limits'), name).toEqual({
        cpus: '1',
        memory: '256M',
      });
    }
    expect(service('app-1').build).toEqual(service('app-2').build);
  });

  it('publishes PORT, checks health as the image does, and outwaits the drain', () => {
    const { healthcheck, exposed } = dockerfile();
    for (const name of appServices) {
      const port = environment(name).PORT;
      expect(port, name).toBe(String(exposed));
      for (const published of list(service(name).ports)) {
        expect(String(published).split(':').at(-1), name).toBe(port);
      }
      expect(at(service(name), 'healthcheck', 'test'), name).toEqual(['CMD', ...list(healthcheck)]);
      // .env may lengthen the drain; the defaults and what the file sets must fit.
      expect(durationMs(service(name).stop_grace_period), name).toBeGreaterThan(
        drainMs(appConfig(name)),
      );
    }
  });

  it('rotates every container’s log', () => {
    const logging = record(compose['x-logging'], 'x-logging');
    expect(logging.driver).toBe('json-file');
    expect(at(logging, 'options', 'max-size')).toMatch(/^\d+[kmg]$/);
    expect(at(logging, 'options', 'max-file')).toMatch(/^\d+$/);
    for (const name of Object.keys(services)) {
      expect(service(name).logging, name).toEqual(logging);
    }
  });

  it('makes Redis’s password once, which Redis asks for and each app’s STORE_URL carries', () => {
    const password = readFileSync(join(secretVolume, 'password'), 'utf8');
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    // Kept across starts; another volume gets another one.
    runRedisSecret(secretVolume);
    expect(readFileSync(join(secretVolume, 'password'), 'utf8')).toBe(password);
    const other = redisSecretVolume();
    try {
      expect(readFileSync(join(other, 'password'), 'utf8')).not.toBe(password);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    for (const file of readdirSync(secretVolume)) {
      expect(statSync(join(secretVolume, file)).mode & 0o777, file).toBe(0o444);
    }

    const [server, config] = redisCommand(secretVolume);
    expect(server).toBe('redis-server');
    expect(readFileSync(config ?? '', 'utf8')).toBe(`requirepass ${password}\n`);
    expect(at(service('redis'), 'depends_on', 'redis-secret', 'condition')).toBe(
      'service_completed_successfully',
    );
    // Only the compose network reaches Redis.
    expect(service('redis').ports).toBeUndefined();
    for (const name of appServices) {
      expect(passwordOf(appConfig(name).storeUrl), name).toBe(password);
      expect(mounts(name).find((m) => m.volume === 'redis-secret')?.readOnly, name).toBe(true);
    }
    // The offline app keeps to a database of its own.
    expect(new URL(appConfig('app-offline').storeUrl ?? '').pathname).toBe('/1');
  });

  it('gives the offline app what offline/stack/serve.ts prints for the stand-ins', () => {
    const standins = environment('standins');
    const host = standins.STANDINS_HOST;
    const expected = standInSettings(
      {
        apiUrl: `http://${host}:${standins.SANDBOX_API_PORT}`,
        callUrl: `http://${host}:${standins.SANDBOX_CALL_PORT}`,
        seed: 'default',
      },
      {
        botToken: DEFAULT_BOT_TOKEN,
        appToken: DEFAULT_APP_TOKEN,
        apiUrl: `http://${host}:${standins.SLACK_STANDIN_PORT}/api/`,
      },
      // serve.ts starts the sandbox with the key the offline stack gives the app.
      environment('app-offline').COMETCHAT_API_KEY ?? '',
    );
    const app = environment('app-offline');
    expect(app).toMatchObject(expected);
    expect(at(service('standins'), 'hostname')).toBe(host);
    expect(loadConfig(app, [], containerFiles('app-offline')).slack.socketMode).toBe(true);
    // The sandbox's webhook reaches the app's route with the app's own credentials.
    expect(standins.SANDBOX_WEBHOOK_URL).toBe(
      `http://app-offline:${app.PORT}/cometchat/webhooks/default`,
    );
    expect(standins.SANDBOX_WEBHOOK_USER).toBe(app.COMETCHAT_WEBHOOK_USER);
    expect(standins.SANDBOX_WEBHOOK_PASSWORD).toBe(app.COMETCHAT_WEBHOOK_PASSWORD);
  });
});

/** Starts Redis as compose's command does, on a loopback port, and waits until it listens. */
async function startComposeRedis(volume: string, data: string) {
  const port = await freePort();
  const [command = '', ...args] = redisCommand(volume);
  const child = spawn(
    command,
    [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', data],
    {
      stdio: 'ignore',
    },
  );
  // 'error' alone when redis-server cannot be run at all.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let attempt = 0; !(await listening(port)); attempt++) {
    if (attempt > 100 || child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server did not start with ${args.join(' ')}`);
    }
    await sleep(50);
  }
  return { port, stop };
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/** Opens the app's store at `url` and sends one command. */
async function storeAnswers(url: string): Promise<void> {
  const store = await openStore(url);
  try {
    await store.ping();
  } finally {
    await store.close();
  }
}

describe.skipIf(skipRedisSuites)('docker-compose.yml’s Redis, run', { tags: ['redis'] }, () => {
  let redis: { port: number; stop(): Promise<void> } | undefined;
  const data = mkdtempSync(join(tmpdir(), 'compose-redis-data-'));
  afterAll(async () => {
    await redis?.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('refuses a client without the password, serves each app’s STORE_URL, and passes its health check', async () => {
    redis = await startComposeRedis(secretVolume, data);
    const local = (url: string | undefined) =>
      (url ?? '').replace('@redis:6379', `@127.0.0.1:${redis?.port}`);
    for (const name of appServices) {
      await expect(storeAnswers(local(appConfig(name).storeUrl)), name).resolves.toBeUndefined();
    }
    await expect(storeAnswers(`redis://127.0.0.1:${redis.port}`)).rejects.toThrow(/NOAUTH/);

    // The health check, with its paths in the volume's directory and the test's port.
    const check = (volume: string) =>
      String(at(service('redis'), 'healthcheck', 'test', 1))
        .replace(`${secretMount('redis')}/`, `${volume}/`)
        .replace('redis-cli ', `redis-cli -p ${redis?.port} `);
    expect(at(service('redis'), 'healthcheck', 'test', 0)).toBe('CMD-SHELL');
    expect(execFileSync('sh', ['-c', check(secretVolume)], { encoding: 'utf8' })).toBe('PONG\n');
    const wrong = join(data, 'wrong');
    mkdirSync(wrong);
    writeFileSync(join(wrong, 'password'), 'not-the-password');
    expect(() => execFileSync('sh', ['-c', check(wrong)], { stdio: 'pipe' })).toThrow();
  });
});
// --- deploy/kubernetes --------------------------------------------------------------------

/** A kind's schema problems, one per line ('' when valid). */
type Problems = (doc: unknown) => string;

const schema =
  (validate: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }): Problems =>
  (doc) =>
    validate(doc) ? '' : explain(validate.errors);

/**
 * The prometheus-operator models export no validators of their own, only each model's
 * `validate()`, which reads nothing but `this`: run on the document as it is.
 */
const modelSchema =
  (model: { prototype: { validate(): void } }): Problems =>
  (doc) => {
    try {
      model.prototype.validate.call(doc);
      return '';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };

/** Each kind the manifests use: its schema, and the TypeScript type of the same model. */
const KINDS: Record<string, { problems: Problems; module: string; type: string }> = {
  'v1/ConfigMap': {
    problems: schema(validateConfigMap),
    module: 'kubernetes-models/v1/ConfigMap',
    type: 'IConfigMap',
  },
  'v1/Secret': {
    problems: schema(validateSecret),
    module: 'kubernetes-models/v1/Secret',
    type: 'ISecret',
  },
  'v1/Service': {
    problems: schema(validateService),
    module: 'kubernetes-models/v1/Service',
    type: 'IService',
  },
  'apps/v1/Deployment': {
    problems: schema(validateDeployment),
    module: 'kubernetes-models/apps/v1/Deployment',
    type: 'IDeployment',
  },
  'apps/v1/StatefulSet': {
    problems: schema(validateStatefulSet),
    module: 'kubernetes-models/apps/v1/StatefulSet',
    type: 'IStatefulSet',
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    problems: schema(validateNetworkPolicy),
    module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
    type: 'INetworkPolicy',
  },
  'policy/v1/PodDisruptionBudget': {
    problems: schema(validatePodDisruptionBudget),
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    type: 'IPodDisruptionBudget',
  },
  'monitoring.coreos.com/v1/PodMonitor': {
    problems: modelSchema(PodMonitor),
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor',
    type: 'IPodMonitor',
  },
};

interface Manifest {
  /** The file it is in, or the kustomization it was rendered by. */
  file: string;
  kind: string;
  name: string;
  doc: Json;
}

const manifest = (file: string, value: unknown): Manifest => {
  const doc = record(value, file);
  const kind = `${String(doc.apiVersion)}/${String(doc.kind)}`;
  return { file, kind, name: String(at(doc, 'metadata', 'name')), doc };
};

const K8S_DIR = 'deploy/kubernetes/';
const K8S_PATH = pathOf(K8S_DIR);
/** Every manifest file as written; the kustomization.yaml files are the renderer's input. */
const manifests: Manifest[] = readdirSync(K8S_PATH, { recursive: true })
  .map(String)
  .filter((file) => /\.ya?ml$/.test(file) && basename(file) !== 'kustomization.yaml')
  .sort()
  .flatMap((file) => load(`${K8S_DIR}${file}`).map((value) => manifest(file, value)));

/** Each variant has a kustomization of its own over common/. */
const VARIANTS = ['http', 'socket-mode'] as const;
type Variant = (typeof VARIANTS)[number];

/** What `kubectl kustomize deploy/kubernetes/<variant>` prints, and the files it read. */
function render(variant: Variant, extra: readonly string[] = []) {
  const { objects, files } = kustomize(join(K8S_PATH, variant), K8S_PATH, extra);
  return { objects: objects.map((o) => manifest(`kustomize ${variant}`, o)), files };
}
const rendered: Record<Variant, Manifest[]> = {
  http: render('http').objects,
  'socket-mode': render('socket-mode').objects,
};
const kustomization = (variant: Variant) =>
  record(load(`${K8S_DIR}${variant}/kustomization.yaml`)[0], `${variant}/kustomization.yaml`);

function kindOf(kind: string) {
  const known = KINDS[kind];
  if (known === undefined) throw new Error(`${kind}: add its schema and type to KINDS`);
  return known;
}

function schemaProblems(kind: string, doc: unknown): string {
  return kindOf(kind).problems(doc);
}

/**
 * Kubernetes' OpenAPI schemas allow fields they do not list (the API server then drops them, or
 * refuses them under strict field validation), so a misspelt field passes the schema. Each
 * document is type-checked as a literal of its kind's TypeScript type, whose excess-property
 * check names any field the kind does not have, at any depth.
 */
function unknownFieldProblems(
  items: readonly { file: string; kind: string; doc: unknown }[],
): string[] {
  // A file that is never written: it lives beside this test for module resolution alone.
  const file = fileURLToPath(new URL('./manifests.typecheck.ts', import.meta.url));
  const source = items
    .map(({ kind, doc }, i) => {
      const { module, type } = kindOf(kind);
      return `import type { ${type} as T${i} } from '${module}';\nexport const m${i}: T${i} = ${JSON.stringify(doc)};`;
    })
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, source, language)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
    // Each document is one import line and one declaration line.
    const line =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -2;
    const item = items[Math.floor(line / 2)];
    const where = item ? `${item.file} ${item.kind}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

const byKind = (objects: readonly Manifest[], kind: string) =>
  objects.filter((m) => m.kind === kind);
const single = (objects: readonly Manifest[], kind: string): Manifest => {
  const [only, ...more] = byKind(objects, kind);
  if (only === undefined || more.length > 0) throw new Error(`expected one ${kind}`);
  return only;
};
const deploymentOf = (variant: Variant) => single(rendered[variant], 'apps/v1/Deployment');

/** The first container of a Deployment's or StatefulSet's pods. */
const firstContainer = (workload: Manifest): Json =>
  record(at(workload.doc, 'spec', 'template', 'spec', 'containers', 0), workload.file);

/** A pod of a Deployment or StatefulSet, as the network policies see it. */
function podOf(workload: Manifest): Pod {
  return {
    namespace: String(at(workload.doc, 'metadata', 'namespace')),
    labels: Object.fromEntries(
      Object.entries(
        record(at(workload.doc, 'spec', 'template', 'metadata', 'labels'), workload.name),
      ).map(([key, value]) => [key, String(value)]),
    ),
    ports: list(firstContainer(workload).ports).map((p) => ({
      name: String(at(p, 'name')),
      containerPort: Number(at(p, 'containerPort')),
    })),
  };
}

/** A Secret's value, as a `secretKeyRef` gives it. */
function secretValue(objects: readonly Manifest[], ref: unknown): string {
  const secret = byKind(objects, 'v1/Secret').find((s) => s.name === at(ref, 'name'));
  const value = at(secret?.doc, 'stringData', String(at(ref, 'key')));
  if (typeof value !== 'string') throw new Error(`no Secret value for ${JSON.stringify(ref)}`);
  return value;
}

const REFERENCE = /\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g;

/** Kubernetes' `$(NAME)` expansion: a variable defined before it; `$$` is one `$`. */
const expand = (value: string, env: Record<string, string>) =>
  value.replace(REFERENCE, (match, name?: string) =>
    name === undefined ? '$' : (env[name] ?? match),
  );

/** The container's environment as the kubelet makes it: the ConfigMap, then `env` in order. */
function podEnv(objects: readonly Manifest[], container: Json): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of list(container.envFrom)) {
    const name = at(from, 'configMapRef', 'name');
    const map = byKind(objects, 'v1/ConfigMap').find((m) => m.name === name);
    if (map === undefined) throw new Error(`no ConfigMap ${String(name)}`);
    Object.assign(env, record(map.doc.data, map.name));
  }
  for (const entry of list(container.env)) {
    const ref = at(entry, 'valueFrom', 'secretKeyRef');
    env[String(at(entry, 'name'))] =
      ref === undefined ? expand(String(at(entry, 'value')), env) : secretValue(objects, ref);
  }
  return env;
}

/** The variables only there for another's `$(NAME)`. */
const referenced = (container: Json) =>
  new Set(
    list(container.env).flatMap((entry) =>
      [...String(at(entry, 'value') ?? '').matchAll(REFERENCE)].flatMap((m) => m[1] ?? []),
    ),
  );

/** A probe's or Service's port, a number or the name of one of the container's ports. */
function portNumber(container: Json, port: unknown): number {
  if (typeof port === 'number') return port;
  const named = list(container.ports).find((p) => at(p, 'name') === port);
  return Number(at(named, 'containerPort'));
}

/** A reader for `<NAME>_FILE` paths that serves the Secret mounted there, as the kubelet does. */
function mountedSecrets(objects: readonly Manifest[], deployment: Manifest) {
  const pod = at(deployment.doc, 'spec', 'template', 'spec');
  const mounts = list(firstContainer(deployment).volumeMounts).map((mount) => {
    const volume = list(at(pod, 'volumes')).find((v) => at(v, 'name') === at(mount, 'name'));
    const secretName = at(volume, 'secret', 'secretName');
    const secret = byKind(objects, 'v1/Secret').find((m) => m.name === secretName);
    return { path: String(at(mount, 'mountPath')), data: at(secret?.doc, 'stringData') };
  });
  return (path: string): string => {
    for (const { path: dir, data } of mounts) {
      const value = isRecord(data) ? data[path.slice(dir.length + 1)] : undefined;
      if (path.startsWith(`${dir}/`) && typeof value === 'string') return value;
    }
    throw Object.assign(new Error(`no mounted secret at ${path}`), { code: 'ENOENT' });
  };
}

/** The app's configuration in a variant's pods. */
function podConfig(variant: Variant): Config {
  const objects = rendered[variant];
  const deployment = deploymentOf(variant);
  return loadConfig(
    podEnv(objects, firstContainer(deployment)),
    [],
    mountedSecrets(objects, deployment),
  );
}

/** Where a variant's pods serve /metrics: METRICS_PORT, else PORT. */
const metricsPort = (config: Config) => config.slack.metricsPort ?? config.slack.port;

const eachVariant = VARIANTS.map((v) => [v] as const);

describe('deploy/kubernetes', () => {
  it('holds the kinds the example needs', () => {
    expect(manifests.map((m) => `${m.file} ${m.kind} ${m.name}`)).toEqual([
      'common/config.yaml v1/ConfigMap cometchat-ops',
      'common/network-policy.yaml networking.k8s.io/v1/NetworkPolicy cometchat-ops-redis',
      'common/network-policy.yaml networking.k8s.io/v1/NetworkPolicy cometchat-ops-egress',
      'common/pod-disruption-budget.yaml policy/v1/PodDisruptionBudget cometchat-ops',
      'common/redis.yaml v1/Service cometchat-ops-redis',
      'common/redis.yaml apps/v1/StatefulSet cometchat-ops-redis',
      'common/secret.yaml v1/Secret cometchat-ops',
      'http/deployment.yaml apps/v1/Deployment cometchat-ops',
      'http/metrics.yaml v1/Service cometchat-ops-metrics',
      'http/network-policy.yaml networking.k8s.io/v1/NetworkPolicy cometchat-ops-http',
      'http/pod-monitor.yaml monitoring.coreos.com/v1/PodMonitor cometchat-ops',
      'http/service.yaml v1/Service cometchat-ops',
      'socket-mode/deployment.yaml apps/v1/Deployment cometchat-ops-socket-mode',
      'socket-mode/metrics.yaml v1/Service cometchat-ops-socket-mode-metrics',
      'socket-mode/network-policy.yaml networking.k8s.io/v1/NetworkPolicy cometchat-ops-socket-mode',
      'socket-mode/pod-monitor.yaml monitoring.coreos.com/v1/PodMonitor cometchat-ops-socket-mode',
    ]);
  });

  it.each(manifests.map((m) => [`${m.file} ${m.kind}`, m] as const))(
    '%s is valid against its kind’s schema',
    (_, m) => {
      expect(schemaProblems(m.kind, m.doc)).toBe('');
    },
  );

  it('has no field its kind does not know', () => {
    expect(unknownFieldProblems(manifests)).toEqual([]);
  });

  it('is rejected with a value of the wrong type, a missing port or a misspelt field', () => {
    const [deployment] = byKind(manifests, 'apps/v1/Deployment');
    if (deployment === undefined) throw new Error('no Deployment');
    const replicas = structuredClone(deployment.doc);
    record(replicas.spec, 'spec').replicas = '2';
    expect(schemaProblems(deployment.kind, replicas)).toMatch(
      /\/spec\/replicas type \{"type":"integer"\}/,
    );

    const noPort = structuredClone(deployment.doc);
    delete record(
      at(firstContainer({ ...deployment, doc: noPort }), 'livenessProbe', 'httpGet'),
      'httpGet',
    ).port;
    expect(schemaProblems(deployment.kind, noPort)).toMatch(
      /livenessProbe\/httpGet required \{"missingProperty":"port"\}/,
    );

    const misspelt = structuredClone(deployment.doc);
    const container = firstContainer({ ...deployment, doc: misspelt });
    container.livenessprobe = container.livenessProbe;
    delete container.livenessProbe;
    expect(schemaProblems(deployment.kind, misspelt)).toBe('');
    expect(unknownFieldProblems([{ ...deployment, doc: misspelt }])).toEqual([
      `${deployment.file} ${deployment.kind}: Object literal may only specify known properties, and '"livenessprobe"' does not exist in type 'IContainer'.`,
    ]);
  });

  it('refuses a PodMonitor that is not one', () => {
    const [written] = byKind(manifests, 'monitoring.coreos.com/v1/PodMonitor');
    const monitor = structuredClone(record(written?.doc, 'PodMonitor'));
    expect(schemaProblems('monitoring.coreos.com/v1/PodMonitor', monitor)).toBe('');
    record(monitor.spec, 'spec').podMetricsEndpoints = 'ops';
    expect(schemaProblems('monitoring.coreos.com/v1/PodMonitor', monitor)).toMatch(
      /podMetricsEndpoints must be array/,
    );
  });
});

describe('deploy/kubernetes kustomizations', () => {
  it.each(eachVariant)(
    '%s: renders every object valid, with no field its kind does not know',
    (variant) => {
      const objects = rendered[variant];
      expect(objects.map((m) => `${m.kind} ${m.name}: ${schemaProblems(m.kind, m.doc)}`)).toEqual(
        objects.map((m) => `${m.kind} ${m.name}: `),
      );
      expect(unknownFieldProblems(objects)).toEqual([]);
    },
  );

  it('renders every manifest file in one variant or both, the PodMonitors once added', () => {
    const read = new Set(VARIANTS.flatMap((v) => render(v).files));
    const files = [...new Set(manifests.map((m) => m.file))];
    expect(files.filter((f) => !read.has(f))).toEqual([
      'http/pod-monitor.yaml',
      'socket-mode/pod-monitor.yaml',
    ]);
    for (const variant of VARIANTS) {
      const withMonitor = render(variant, ['pod-monitor.yaml']).objects;
      const monitor = single(withMonitor, 'monitoring.coreos.com/v1/PodMonitor');
      expect(schemaProblems(monitor.kind, monitor.doc)).toBe('');
      expect(at(monitor.doc, 'metadata', 'namespace')).toBe(kustomization(variant).namespace);
    }
  });

  it.each(eachVariant)('%s: the image override and the namespace take effect', (variant) => {
    const [image, ...more] = list(kustomization(variant).images);
    expect(more).toEqual([]);
    const written = single(
      manifests.filter((m) => m.file === `${variant}/deployment.yaml`),
      'apps/v1/Deployment',
    );
    expect(firstContainer(written).image).toBe(at(image, 'name'));
    expect(firstContainer(deploymentOf(variant)).image).toBe(
      `${String(at(image, 'newName'))}:${String(at(image, 'newTag'))}`,
    );
    const namespace = kustomization(variant).namespace;
    expect(namespace).toMatch(/^[a-z0-9-]+$/);
    for (const object of rendered[variant]) {
      expect(at(object.doc, 'metadata', 'namespace'), object.name).toBe(namespace);
    }
  });

  it('are refused with a missing file, a field the renderer does not apply, or a duplicate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    const kustomizationWith = (body: string) => {
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n${body}`,
      );
      return () => kustomize(dir, dir);
    };
    try {
      writeFileSync(join(dir, 'config.yaml'), text(`${K8S_DIR}common/config.yaml`));
      expect(kustomizationWith('resources: [config.yaml]')().objects).toHaveLength(1);
      expect(kustomizationWith('resources: [config.yaml, gone.yaml]')).toThrow(
        /resource .*gone\.yaml does not exist/,
      );
      expect(kustomizationWith('resources: [config.yaml]\npatches: []')).toThrow(
        /patches is not applied/,
      );
      expect(kustomizationWith('resources: [config.yaml]\nimages: [{name: a, digest: b}]')).toThrow(
        /images\.digest is not applied/,
      );
      expect(kustomizationWith('resources: [config.yaml, config.yaml]')).toThrow(
        /ConfigMap \/cometchat-ops is defined twice/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(eachVariant)('deploy/kubernetes/%s', (variant) => {
  const objects = rendered[variant];
  const deployment = deploymentOf(variant);
  const container = firstContainer(deployment);
  const app = podOf(deployment);
  const redis = single(objects, 'apps/v1/StatefulSet');

  it('probes /healthz and /readyz on the health routes’ port, serves PORT', () => {
    const env = podEnv(objects, container);
    const healthPort = Number(env.METRICS_PORT ?? env.PORT);
    for (const [probe, path] of [
      ['startupProbe', OPS_PATHS.health],
      ['livenessProbe', OPS_PATHS.health],
      ['readinessProbe', OPS_PATHS.ready],
    ] as const) {
      expect(at(container, probe, 'httpGet', 'path'), probe).toBe(path);
      expect(portNumber(container, at(container, probe, 'httpGet', 'port')), probe).toBe(
        healthPort,
      );
    }
    expect(portNumber(container, 'http')).toBe(Number(env.PORT));
    // The Service Slack's and CometChat's requests come through; metrics have their own.
    const front = byKind(objects, 'v1/Service').find(
      (s) =>
        selects({ matchLabels: at(s.doc, 'spec', 'selector') }, app.labels) &&
        !list(at(s.doc, 'spec', 'ports')).some((p) => at(p, 'name') === 'metrics'),
    );
    // Over HTTP a Service sends Slack's requests to PORT; in Socket Mode there is none.
    expect(front === undefined).toBe(variant === 'socket-mode');
    for (const port of list(at(front?.doc, 'spec', 'ports'))) {
      expect(portNumber(container, at(port, 'targetPort'))).toBe(Number(env.PORT));
    }
  });

  it('gives a configuration the app accepts, secrets from the Secret, a grace that outlasts the drain', () => {
    const env = podEnv(objects, container);
    // Every secret but the store's address comes from a file of the mounted Secret (a wrong
    // path or key is refused as a file that cannot be read); none is in the pod's environment.
    expect(Object.keys(env).filter((name) => name.endsWith('_FILE')).length).toBeGreaterThan(3);
    expect(
      Object.keys(env).filter((name) => isSecretSetting(name) && name !== 'STORE_URL'),
    ).toEqual([]);
    const config = podConfig(variant);
    expect(config.slack.socketMode).toBe(variant === 'socket-mode');
    const graceSeconds = Number(
      at(deployment.doc, 'spec', 'template', 'spec', 'terminationGracePeriodSeconds'),
    );
    expect(graceSeconds * 1000).toBeGreaterThan(drainMs(config));
    expect(at(deployment.doc, 'spec', 'replicas')).toBe(2);
    // README, Deploy: 256 MiB and one vCPU a replica, reserved as well as capped.
    expect(at(container, 'resources')).toEqual({
      requests: { cpu: '1', memory: '256Mi' },
      limits: { cpu: '1', memory: '256Mi' },
    });
    expect(at(container, 'securityContext', 'readOnlyRootFilesystem')).toBe(true);
  });

  it('runs one Redis that STORE_URL names, asking for the password STORE_URL carries', () => {
    const config = podConfig(variant);
    expect(new URL(config.storeUrl ?? '').hostname).toBe(redis.name);
    expect(byKind(objects, 'v1/Service').map((s) => s.name)).toContain(redis.name);
    const redisContainer = firstContainer(redis);
    const args = list(redisContainer.args).map((a) =>
      expand(String(a), podEnv(objects, redisContainer)),
    );
    const password = args[args.indexOf('--requirepass') + 1];
    expect(args.slice(0, 3)).toEqual(['redis-server', '--appendonly', 'yes']);
    expect(password).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(passwordOf(config.storeUrl)).toBe(password);
    // One copy: the Secret's key, which both containers reference.
    const copies = objects.filter((o) => JSON.stringify(o.doc).includes(password ?? ''));
    expect(copies.map((o) => `${o.kind} ${o.name}`)).toEqual(['v1/Secret cometchat-ops']);
  });

  it('lets only the app reach Redis, and the app only DNS, Redis and HTTPS out', () => {
    const policies = byKind(objects, 'networking.k8s.io/v1/NetworkPolicy').map((p) => p.doc);
    const stranger: Pod = { namespace: app.namespace, labels: { app: 'other' }, ports: [] };
    const dns: Pod = {
      namespace: 'kube-system',
      labels: { 'k8s-app': 'kube-dns' },
      ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }],
    };
    const redisPod = podOf(redis);
    const internet = { ip: '203.0.113.10' };
    const cases: [string, Peer, Peer, number, ('TCP' | 'UDP')?][] = [
      ['app → Redis', app, redisPod, 6379],
      ['another pod → Redis', stranger, redisPod, 6379],
      ['the internet → Redis', internet, redisPod, 6379],
      ['Redis → the internet', redisPod, internet, 443],
      ['app → DNS over UDP', app, dns, 53, 'UDP'],
      ['app → DNS over TCP', app, dns, 53],
      ['app → HTTPS on the internet', app, internet, 443],
      ['app → HTTPS on IPv6', app, { ip: '2001:db8::1' }, 443],
      ['app → HTTPS in a private range', app, { ip: '10.1.2.3' }, 443],
      ['app → HTTP on the internet', app, internet, 80],
      ['app → another pod', app, stranger, 443],
    ];
    expect(
      cases.map(([what, from, to, port, protocol]) => [
        what,
        allowed(policies, from, to, { port, protocol }),
      ]),
    ).toEqual([
      ['app → Redis', true],
      ['another pod → Redis', false],
      ['the internet → Redis', false],
      ['Redis → the internet', false],
      ['app → DNS over UDP', true],
      ['app → DNS over TCP', true],
      ['app → HTTPS on the internet', true],
      ['app → HTTPS on IPv6', true],
      ['app → HTTPS in a private range', false],
      ['app → HTTP on the internet', false],
      ['app → another pod', false],
    ]);
  });

  it('lets the Ingress controller reach PORT only, and Prometheus the metrics port only', () => {
    const policies = byKind(objects, 'networking.k8s.io/v1/NetworkPolicy').map((p) => p.doc);
    const config = podConfig(variant);
    const ingress: Pod = { namespace: 'ingress-nginx', labels: {}, ports: [] };
    const prometheus: Pod = { namespace: 'monitoring', labels: {}, ports: [] };
    const stranger: Pod = { namespace: app.namespace, labels: { app: 'other' }, ports: [] };
    const reaches = (from: Peer, port: number) => allowed(policies, from, app, { port });
    const { port } = config.slack;
    expect(reaches(ingress, port)).toBe(true);
    expect(reaches(prometheus, metricsPort(config))).toBe(true);
    expect(reaches(stranger, port)).toBe(false);
    expect(reaches({ ip: '203.0.113.10' }, port)).toBe(false);
    if (variant === 'http') {
      // Over HTTP, METRICS_PORT keeps health and metrics off the public port, and back.
      expect(metricsPort(config)).not.toBe(port);
      expect(reaches(ingress, metricsPort(config))).toBe(false);
      expect(reaches(prometheus, port)).toBe(false);
    }
  });

  it('keeps one replica through a drain', () => {
    const budget = single(objects, 'policy/v1/PodDisruptionBudget');
    const selector = at(budget.doc, 'spec', 'selector');
    expect(selects(selector, app.labels)).toBe(true);
    expect(selects(selector, podOf(redis).labels)).toBe(false);
    const maxUnavailable = Number(at(budget.doc, 'spec', 'maxUnavailable'));
    expect(maxUnavailable).toBeGreaterThan(0);
    expect(Number(at(deployment.doc, 'spec', 'replicas')) - maxUnavailable).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('lets Prometheus find /metrics: an annotated Service port, and a PodMonitor', () => {
    const port = metricsPort(podConfig(variant));
    const [metrics, ...more] = byKind(objects, 'v1/Service').filter(
      (s) => at(s.doc, 'metadata', 'annotations', 'prometheus.io/scrape') === 'true',
    );
    expect(more).toEqual([]);
    expect(selects({ matchLabels: at(metrics?.doc, 'spec', 'selector') }, app.labels)).toBe(true);
    expect(at(metrics?.doc, 'metadata', 'annotations')).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(port),
      'prometheus.io/path': OPS_PATHS.metrics,
    });
    const named = list(at(metrics?.doc, 'spec', 'ports')).find((p) => at(p, 'name') === 'metrics');
    expect(portNumber(container, at(named, 'targetPort'))).toBe(port);

    const monitor = single(
      render(variant, ['pod-monitor.yaml']).objects,
      'monitoring.coreos.com/v1/PodMonitor',
    );
    expect(selects(at(monitor.doc, 'spec', 'selector'), app.labels)).toBe(true);
    const [endpoint, ...others] = list(at(monitor.doc, 'spec', 'podMetricsEndpoints'));
    expect(others).toEqual([]);
    expect(portNumber(container, at(endpoint, 'port'))).toBe(port);
    expect(at(endpoint, 'path')).toBe(OPS_PATHS.metrics);
  });
});
// --- Both ---------------------------------------------------------------------------------

describe('settings in the deployment files', () => {
  it('are settings the app knows', () => {
    const names = new Set([
      ...appServices.flatMap((name) => Object.keys(environment(name))),
      ...VARIANTS.flatMap((variant) => {
        const container = firstContainer(deploymentOf(variant));
        // A variable only there for another's $(NAME) (Redis's password in STORE_URL) is
        // Kubernetes' means, not a setting.
        const helpers = referenced(container);
        return Object.keys(podEnv(rendered[variant], container)).filter((n) => !helpers.has(n));
      }),
    ]);
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((name) => !isSetting(name))).toEqual([]);
  });

  it('are refused when one is not a setting', () => {
    expect(isSetting('SLACK_BOT_TOKEN_FILE')).toBe(true);
    expect(isSetting('SLACK_BOT_TOKENS')).toBe(false);
    // Only a secret may come from a file.
    expect(isSetting('LOG_LEVEL_FILE')).toBe(false);
    expect(isSetting('REDIS_PASSWORD')).toBe(false);
  });
});
