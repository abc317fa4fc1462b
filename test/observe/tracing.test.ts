import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { BUILD, SERVICE_NAME } from '../../src/observe/build.ts';
import { startTracing } from '../../src/observe/tracing.ts';
import { currentSpan, inSpan } from '../../src/spans.ts';
import { LogCapture } from '../log-capture.ts';
import { attributeOf, startCollector } from './otlp-collector.ts';

// OpenTelemetry's standard settings (the specification's "General SDK Configuration"), read from
// the process's environment as its SDK reads them: each is honoured in what reaches a collector.

/** The OpenTelemetry settings tracing.ts reads from the environment, besides the endpoint's. */
const OTEL_SETTINGS = [
  'OTEL_SDK_DISABLED',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
] as const;
type OtelSetting = (typeof OTEL_SETTINGS)[number];

/** How many spans each run makes: with a ratio of 0 or 1, all or none of them are kept. */
const SPANS = 20;

const cleanup: (() => Promise<void>)[] = [];
beforeEach(() => {
  // The shell's own settings stay out of the tests.
  for (const name of OTEL_SETTINGS) vi.stubEnv(name, undefined);
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  vi.unstubAllEnvs();
});

/**
 * Starts tracing to a collector of its own under `env`, runs SPANS spans (noting which log ids
 * each had), stops it (sending what is buffered), and gives what the collector got.
 */
async function traceWith(env: Partial<Record<OtelSetting, string>>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const collector = await startCollector();
  cleanup.push(collector.close);
  const logs = new LogCapture();
  const logger = createLogger({ level: 'debug', destination: logs });
  const tracing = await startTracing(
    { tracesEndpoint: `${collector.url}/v1/traces`, tracesHeaders: {} },
    logger,
  );
  const logIds = [];
  for (let i = 0; i < SPANS; i += 1) {
    logIds.push(await inSpan('slack command roles', 'server', {}, async () => currentSpan()));
  }
  await tracing.shutdown();
  const resource = (key: string) => collector.resources.map((r) => attributeOf(r.attributes, key));
  const warnings = logs
    .records()
    .filter((r) => r.log.level === 'warn')
    .map((r) => r.message);
  return { collector, logs, logIds, resource, warnings };
}

describe('tracing by default (only an endpoint set)', () => {
  it('names the app and its version, and keeps every trace', async () => {
    const { collector, resource, logIds, warnings, logs } = await traceWith({});
    expect(collector.spans).toHaveLength(SPANS);
    expect(new Set(resource('service.name'))).toEqual(new Set([SERVICE_NAME]));
    expect(new Set(resource('service.version'))).toEqual(new Set([BUILD.version]));
    expect(logIds.every((ids) => ids !== undefined)).toBe(true);
    expect(warnings).toEqual([]);
    const started = logs.records().find((r) => r.message === 'traces are exported over OTLP');
    expect(started?.cometchat_ops).toMatchObject({
      serviceName: SERVICE_NAME,
      sampler: 'parentbased_always_on',
    });
  });
});

describe('OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES', () => {
  it("OTEL_SERVICE_NAME names the service, over the app's name and the attributes'", async () => {
    const { resource } = await traceWith({
      OTEL_SERVICE_NAME: 'ops-bot-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes',
    });
    expect(new Set(resource('service.name'))).toEqual(new Set(['ops-bot-eu']));
    expect(new Set(resource('service.version'))).toEqual(new Set([BUILD.version]));
  });

  it("OTEL_RESOURCE_ATTRIBUTES' attributes join the app's (percent-decoded), and may rename it", async () => {
    const { resource } = await traceWith({
      OTEL_RESOURCE_ATTRIBUTES:
        'deployment.environment.name=staging, team=chat%2Cops ,service.name=ops-bot',
    });
    expect(new Set(resource('deployment.environment.name'))).toEqual(new Set(['staging']));
    expect(new Set(resource('team'))).toEqual(new Set(['chat,ops']));
    expect(new Set(resource('service.name'))).toEqual(new Set(['ops-bot']));
    expect(new Set(resource('service.version'))).toEqual(new Set([BUILD.version]));
  });

  it('an OTEL_RESOURCE_ATTRIBUTES that is not key=value pairs is said, and none of it used', async () => {
    const { resource, warnings, collector } = await traceWith({
      OTEL_RESOURCE_ATTRIBUTES: 'team=chat,staging',
    });
    expect(collector.spans).toHaveLength(SPANS);
    expect(new Set(resource('team'))).toEqual(new Set([undefined]));
    expect(new Set(resource('service.name'))).toEqual(new Set([SERVICE_NAME]));
    expect(warnings).toEqual([expect.stringMatching(/^OTEL_RESOURCE_ATTRIBUTES is not key=value/)]);
  });
});

describe('OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG', () => {
  it('always_off keeps no trace, and log lines then name none', async () => {
    const { collector, logIds, warnings } = await traceWith({ OTEL_TRACES_SAMPLER: 'always_off' });
    expect(collector.spans).toEqual([]);
    expect(logIds.filter((ids) => ids !== undefined)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('reads the name in any case, around spaces', async () => {
    const { collector } = await traceWith({ OTEL_TRACES_SAMPLER: ' Parentbased_Always_Off ' });
    expect(collector.spans).toEqual([]);
  });

  /** How many of the SPANS spans reach the collector under `env`. */
  const kept = async (env: Partial<Record<OtelSetting, string>>) =>
    (await traceWith(env)).collector.spans.length;

  it('always_on keeps every trace, whatever OTEL_TRACES_SAMPLER_ARG says', async () => {
    expect(await kept({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(
      SPANS,
    );
  });

  for (const sampler of ['traceidratio', 'parentbased_traceidratio']) {
    it(`${sampler} keeps the ratio OTEL_TRACES_SAMPLER_ARG gives, all without it`, async () => {
      expect(await kept({ OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(0);
      expect(await kept({ OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: '1' })).toBe(
        SPANS,
      );
      expect(await kept({ OTEL_TRACES_SAMPLER: sampler })).toBe(SPANS);
    });
  }

  it('an unknown sampler is said in one sentence naming the variable, and the default used', async () => {
    const { collector, warnings, logs } = await traceWith({ OTEL_TRACES_SAMPLER: 'traceidratoi' });
    expect(warnings).toEqual([
      'OTEL_TRACES_SAMPLER is none of parentbased_always_on, parentbased_always_off, ' +
        'parentbased_traceidratio, always_on, always_off, traceidratio, so traces are sampled ' +
        'by the default, parentbased_always_on',
    ]);
    expect(logs.records().find((r) => r.log.level === 'warn')?.cometchat_ops).toMatchObject({
      value: 'traceidratoi',
    });
    expect(collector.spans).toHaveLength(SPANS);
  });

  it('a ratio that is not a number from 0 to 1 is said, and every trace kept', async () => {
    for (const ratio of ['half', '1.5', '-0.1']) {
      const { collector, warnings } = await traceWith({
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: ratio,
      });
      expect(warnings).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER_ARG is not a number/)]);
      expect(collector.spans).toHaveLength(SPANS);
    }
  });
});

describe('OTEL_SDK_DISABLED', () => {
  /** The OpenTelemetry modules tracing.ts loads: mocked, to see whether any is. */
  const OTEL_MODULES = [
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@opentelemetry/instrumentation-undici',
  ];
  const loaded: string[] = [];
  beforeEach(() => {
    loaded.length = 0;
    vi.resetModules();
    for (const name of OTEL_MODULES) {
      vi.doMock(name, () => {
        loaded.push(name);
        throw new Error(`${name} was loaded`);
      });
    }
  });
  afterEach(() => {
    for (const name of OTEL_MODULES) vi.doUnmock(name);
    vi.resetModules();
  });

  for (const value of ['true', 'TRUE', ' True ']) {
    it(`"${value}": no span, no OpenTelemetry module loaded, though an endpoint is set`, async () => {
      vi.stubEnv('OTEL_SDK_DISABLED', value);
      // Fresh modules, so that the mocks above stand for OpenTelemetry's.
      const tracingModule = await import('../../src/observe/tracing.ts');
      const spans = await import('../../src/spans.ts');
      const collector = await startCollector();
      cleanup.push(collector.close);
      const logs = new LogCapture();
      const tracing = await tracingModule.startTracing(
        { tracesEndpoint: `${collector.url}/v1/traces`, tracesHeaders: {} },
        createLogger({ level: 'debug', destination: logs }),
      );
      const ids = await spans.inSpan('slack command roles', 'server', {}, async () =>
        spans.currentSpan(),
      );
      await tracing.shutdown();
      expect(loaded).toEqual([]);
      expect(ids).toBeUndefined();
      expect(collector.spans).toEqual([]);
      expect(logs.records().map((r) => r.message)).toEqual([
        'traces are off: OTEL_SDK_DISABLED is true',
      ]);
    });
  }

  it('the mocks do stand for OpenTelemetry: with it on, its loading fails', async () => {
    const tracingModule = await import('../../src/observe/tracing.ts');
    const logger = createLogger({ level: 'silent', destination: new LogCapture() });
    await expect(
      tracingModule.startTracing(
        { tracesEndpoint: 'http://127.0.0.1:9/v1/traces', tracesHeaders: {} },
        logger,
      ),
    ).rejects.toThrow();
    expect(loaded).toContain('@opentelemetry/sdk-trace');
  });
});

describe('OTEL_SDK_DISABLED set to neither true nor false', () => {
  it('is said in one sentence, and tracing stays on', async () => {
    const { collector, warnings } = await traceWith({ OTEL_SDK_DISABLED: 'yes' });
    expect(warnings).toEqual(['OTEL_SDK_DISABLED is neither true nor false, so tracing stays on']);
    expect(collector.spans).toHaveLength(SPANS);
  });

  it('false, or empty, leaves tracing on without a word', async () => {
    for (const value of ['false', ' FALSE', '']) {
      const { collector, warnings } = await traceWith({ OTEL_SDK_DISABLED: value });
      expect(warnings).toEqual([]);
      expect(collector.spans).toHaveLength(SPANS);
    }
  });
});
