import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { validate as validateDeployment } from 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment';
import { validate as validateStatefulSet } from 'kubernetes-models/_schemas/IoK8sApiAppsV1StatefulSet';
import { validate as validateConfigMap } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap';
import { validate as validateSecret } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as validateService } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_APP_TOKEN, DEFAULT_BOT_TOKEN } from '../../offline/slack-standin/workspace.ts';
import { standInSettings } from '../../offline/stack/serve.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { isSecretSetting } from '../../src/secret-files.ts';

// The deployment examples, checked without a container engine or a cluster (neither runs where
// this project is built): docker-compose.yml against the Compose Specification's JSON Schema,
// each Kubernetes manifest against its kind's schema from Kubernetes' OpenAPI (kubernetes-models)
// and, for names the schema lets through, against the same models' TypeScript types; then the
// facts that tie them to the app: settings it knows, its probe routes, its port, its drain.

const ROOT = new URL('../../', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

/** Every document of a YAML file; a syntax error or a duplicate key fails the load. */
function yamlDocuments(path: string): unknown[] {
  // merge: docker-compose.yml shares one definition between replicas with `<<:`, which Compose
  // resolves before it validates.
  return parseAllDocuments(text(path), { merge: true }).map((document) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${path}: ${problems.map(String).join('\n')}`);
    return document.toJS();
  });
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

// --- docker-compose.yml -------------------------------------------------------------------

const compose = record(yamlDocuments('docker-compose.yml')[0], 'docker-compose.yml');
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
      expect(environment(name).STORE_URL, name).toMatch(/^redis:\/\/redis:6379(\/\d+)?$/);
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
      const config = loadConfig({ ...MINIMAL_ENV, ...environment(name) });
      expect(durationMs(service(name).stop_grace_period), name).toBeGreaterThan(drainMs(config));
    }
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
    expect(loadConfig(app).slack.socketMode).toBe(true);
    // The sandbox's webhook reaches the app's route with the app's own credentials.
    expect(standins.SANDBOX_WEBHOOK_URL).toBe(
      `http://app-offline:${app.PORT}/cometchat/webhooks/default`,
    );
    expect(standins.SANDBOX_WEBHOOK_USER).toBe(app.COMETCHAT_WEBHOOK_USER);
    expect(standins.SANDBOX_WEBHOOK_PASSWORD).toBe(app.COMETCHAT_WEBHOOK_PASSWORD);
  });
});

// --- deploy/kubernetes --------------------------------------------------------------------

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Each kind the manifests use: its schema, and the TypeScript type of the same model. */
const KINDS: Record<string, { validate: Validate; module: string; type: string }> = {
  'v1/ConfigMap': { validate: validateConfigMap, module: 'v1/ConfigMap', type: 'IConfigMap' },
  'v1/Secret': { validate: validateSecret, module: 'v1/Secret', type: 'ISecret' },
  'v1/Service': { validate: validateService, module: 'v1/Service', type: 'IService' },
  'apps/v1/Deployment': {
    validate: validateDeployment,
    module: 'apps/v1/Deployment',
    type: 'IDeployment',
  },
  'apps/v1/StatefulSet': {
    validate: validateStatefulSet,
    module: 'apps/v1/StatefulSet',
    type: 'IStatefulSet',
  },
};

interface Manifest {
  file: string;
  kind: string;
  name: string;
  doc: Json;
}

const K8S_DIR = 'deploy/kubernetes/';
const manifests: Manifest[] = readdirSync(new URL(K8S_DIR, ROOT), { recursive: true })
  .map(String)
  .filter((file) => /\.ya?ml$/.test(file))
  .sort()
  .flatMap((file) =>
    yamlDocuments(`${K8S_DIR}${file}`).map((value) => {
      const doc = record(value, file);
      const kind = `${String(doc.apiVersion)}/${String(doc.kind)}`;
      return { file, kind, name: String(at(doc, 'metadata', 'name')), doc };
    }),
  );

function kindOf(kind: string) {
  const known = KINDS[kind];
  if (known === undefined) throw new Error(`${kind}: add its schema and type to KINDS`);
  return known;
}

function schemaProblems(kind: string, doc: unknown): string {
  const { validate } = kindOf(kind);
  return validate(doc) ? '' : explain(validate.errors);
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
      return `import type { ${type} as T${i} } from 'kubernetes-models/${module}';\nexport const m${i}: T${i} = ${JSON.stringify(doc)};`;
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

const byKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const deployments = byKind('apps/v1/Deployment');
const single = (kind: string): Manifest => {
  const [only, ...more] = byKind(kind);
  if (only === undefined || more.length > 0) throw new Error(`expected one ${kind}`);
  return only;
};

/** The app's container of a Deployment. */
const appContainer = (deployment: Manifest): Json =>
  record(at(deployment.doc, 'spec', 'template', 'spec', 'containers', 0), deployment.file);

/** The container's environment: the ConfigMap it reads, then its own `env` values. */
function podEnv(container: Json): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of list(container.envFrom)) {
    const name = at(from, 'configMapRef', 'name');
    const map = byKind('v1/ConfigMap').find((m) => m.name === name);
    if (map === undefined) throw new Error(`no ConfigMap ${String(name)}`);
    Object.assign(env, record(map.doc.data, map.name));
  }
  for (const entry of list(container.env))
    env[String(at(entry, 'name'))] = String(at(entry, 'value'));
  return env;
}

/** A probe's or Service's port, a number or the name of one of the container's ports. */
function portNumber(container: Json, port: unknown): number {
  if (typeof port === 'number') return port;
  const named = list(container.ports).find((p) => at(p, 'name') === port);
  return Number(at(named, 'containerPort'));
}

/** A reader for `<NAME>_FILE` paths that serves the Secret mounted there, as the kubelet does. */
function mountedSecrets(deployment: Manifest) {
  const pod = at(deployment.doc, 'spec', 'template', 'spec');
  const mounts = list(appContainer(deployment).volumeMounts).map((mount) => {
    const volume = list(at(pod, 'volumes')).find((v) => at(v, 'name') === at(mount, 'name'));
    const secretName = at(volume, 'secret', 'secretName');
    const secret = byKind('v1/Secret').find((m) => m.name === secretName);
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

describe('deploy/kubernetes', () => {
  it('holds the kinds the example needs', () => {
    expect(manifests.map((m) => `${m.file} ${m.kind} ${m.name}`)).toEqual([
      'common/config.yaml v1/ConfigMap cometchat-ops',
      'common/redis.yaml v1/Service cometchat-ops-redis',
      'common/redis.yaml apps/v1/StatefulSet cometchat-ops-redis',
      'common/secret.yaml v1/Secret cometchat-ops',
      'http/deployment.yaml apps/v1/Deployment cometchat-ops',
      'http/service.yaml v1/Service cometchat-ops',
      'socket-mode/deployment.yaml apps/v1/Deployment cometchat-ops-socket-mode',
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
    const [deployment] = deployments;
    if (deployment === undefined) throw new Error('no Deployment');
    const replicas = structuredClone(deployment.doc);
    record(replicas.spec, 'spec').replicas = '2';
    expect(schemaProblems(deployment.kind, replicas)).toMatch(
      /\/spec\/replicas type \{"type":"integer"\}/,
    );

    const noPort = structuredClone(deployment.doc);
    delete record(
      at(appContainer({ ...deployment, doc: noPort }), 'livenessProbe', 'httpGet'),
      'httpGet',
    ).port;
    expect(schemaProblems(deployment.kind, noPort)).toMatch(
      /livenessProbe\/httpGet required \{"missingProperty":"port"\}/,
    );

    const misspelt = structuredClone(deployment.doc);
    const container = appContainer({ ...deployment, doc: misspelt });
    container.livenessprobe = container.livenessProbe;
    delete container.livenessProbe;
    expect(schemaProblems(deployment.kind, misspelt)).toBe('');
    expect(unknownFieldProblems([{ ...deployment, doc: misspelt }])).toEqual([
      `${deployment.file} ${deployment.kind}: Object literal may only specify known properties, and '"livenessprobe"' does not exist in type 'IContainer'.`,
    ]);
  });

  it.each(deployments.map((d) => [d.file, d] as const))(
    '%s: probes /healthz and /readyz on the health routes’ port, serves PORT',
    (_, deployment) => {
      const container = appContainer(deployment);
      const env = podEnv(container);
      const healthPort = Number(env.METRICS_PORT ?? env.PORT);
      for (const [probe, path] of [
        ['startupProbe', '/healthz'],
        ['livenessProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
      ] as const) {
        expect(at(container, probe, 'httpGet', 'path'), probe).toBe(path);
        expect(portNumber(container, at(container, probe, 'httpGet', 'port')), probe).toBe(
          healthPort,
        );
      }
      expect(portNumber(container, 'http')).toBe(Number(env.PORT));
      const front = byKind('v1/Service').find(
        (s) =>
          at(s.doc, 'spec', 'selector', 'app.kubernetes.io/component') ===
          at(deployment.doc, 'metadata', 'labels', 'app.kubernetes.io/component'),
      );
      // Over HTTP a Service sends Slack's requests to PORT; in Socket Mode there is none.
      expect(front === undefined).toBe(deployment.file.startsWith('socket-mode/'));
      for (const port of list(at(front?.doc, 'spec', 'ports'))) {
        expect(portNumber(container, at(port, 'targetPort'))).toBe(Number(env.PORT));
      }
    },
  );

  it.each(deployments.map((d) => [d.file, d] as const))(
    '%s: a configuration the app accepts, secrets from the mounted Secret, a grace that outlasts the drain',
    (_, deployment) => {
      const container = appContainer(deployment);
      const env = podEnv(container);
      // Every secret comes from a file of the mounted Secret (a wrong path or key is refused
      // as a file that cannot be read); none is in the pod's environment.
      expect(Object.keys(env).filter((name) => name.endsWith('_FILE')).length).toBeGreaterThan(3);
      expect(
        Object.keys(env).filter((name) => isSecretSetting(name) && name !== 'STORE_URL'),
      ).toEqual([]);
      const config = loadConfig(env, [], mountedSecrets(deployment));
      expect(config.slack.socketMode).toBe(deployment.file.startsWith('socket-mode/'));
      // STORE_URL is a plain setting only while it holds no password.
      expect(config.storeUrl).toMatch(/^redis:\/\/[^@]+$/);
      const graceSeconds = Number(
        at(deployment.doc, 'spec', 'template', 'spec', 'terminationGracePeriodSeconds'),
      );
      expect(graceSeconds * 1000).toBeGreaterThan(drainMs(config));
      expect(at(deployment.doc, 'spec', 'replicas')).toBe(2);
      expect(at(container, 'resources', 'limits')).toEqual({ cpu: '1', memory: '256Mi' });
      expect(at(container, 'securityContext', 'readOnlyRootFilesystem')).toBe(true);
    },
  );

  it('runs one Redis that STORE_URL names', () => {
    const redis = single('apps/v1/StatefulSet');
    const storeUrl = String(at(single('v1/ConfigMap').doc, 'data', 'STORE_URL'));
    expect(new URL(storeUrl).hostname).toBe(redis.name);
    expect(byKind('v1/Service').map((s) => s.name)).toContain(redis.name);
  });
});

// --- Both ---------------------------------------------------------------------------------

describe('settings in the deployment files', () => {
  it('are settings the app knows', () => {
    const names = new Set([
      ...appServices.flatMap((name) => Object.keys(environment(name))),
      ...deployments.flatMap((d) => Object.keys(podEnv(appContainer(d)))),
    ]);
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((name) => !isSetting(name))).toEqual([]);
  });

  it('are refused when one is not a setting', () => {
    expect(isSetting('SLACK_BOT_TOKEN_FILE')).toBe(true);
    expect(isSetting('SLACK_BOT_TOKENS')).toBe(false);
    // Only a secret may come from a file.
    expect(isSetting('LOG_LEVEL_FILE')).toBe(false);
  });
});
