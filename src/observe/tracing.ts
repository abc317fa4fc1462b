import type { Sampler } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { type SpanResume, type SpanRunner, useSpanRunner } from '../spans.ts';
import { BUILD, SERVICE_NAME } from './build.ts';

// Traces, opt-in. With an OTLP endpoint configured (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces after it), each Slack request the app handles is
// a span, and the CometChat and Slack calls made for it are spans under it (with the HTTP
// requests of `fetch`, ky's and `respond`'s, under those), exported over OTLP/HTTP. Without an
// endpoint, or with OTEL_SDK_DISABLED=true, no OpenTelemetry module is even loaded, and `inSpan`
// (spans.ts) runs the work and nothing else.
//
// OpenTelemetry's other standard settings are read from the process's environment, as its SDK
// reads them (and as the exporter reads its own, OTEL_EXPORTER_OTLP_TIMEOUT and the like):
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES by @opentelemetry/resources' own detectors,
// over the app's name and version; OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG here, since
// no installed package reads them (@opentelemetry/sdk-trace does not; OpenTelemetry's SDK for
// Node does, and is not installed). OTEL_SDK_DISABLED here too, before anything is loaded. A
// value the specification does not define is said in one warning at start and otherwise
// ignored, as the specification asks.
//
// Spans carry names and ids from small sets (the request's kind and name as the metrics label
// them, the CometChat operation, the Slack method) and the request's reference; a failure is
// recorded by its kind, never by its message, which may quote what a service was sent.

export interface Tracing {
  /** Sends the spans still buffered, then turns tracing off. */
  shutdown(): Promise<void>;
}

/** Where spans are sent (OTLP/HTTP, JSON; undefined: tracing is off), and with what headers. */
export type TracingSettings = Pick<Config, 'tracesEndpoint' | 'tracesHeaders'>;

/** The OpenTelemetry modules tracing uses, loaded only when it is on. */
function loadOpenTelemetry() {
  return Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
}
type OpenTelemetry = Awaited<ReturnType<typeof loadOpenTelemetry>>;
type Api = OpenTelemetry[0];
type TraceSdk = OpenTelemetry[1];
type Resources = OpenTelemetry[4];

/**
 * Turns tracing on when an endpoint is configured and OTEL_SDK_DISABLED is not true; loads
 * OpenTelemetry only then.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const endpoint = settings.tracesEndpoint;
  const off = { shutdown: async () => {} };
  if (endpoint === undefined) return off;
  if (sdkDisabled(logger)) {
    logger.info('traces are off: OTEL_SDK_DISABLED is true');
    return off;
  }
  const [api, sdk, hooks, otlp, resources, undici] = await loadOpenTelemetry();
  // Parent and child spans find each other through the async context.
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  const resource = resourceOf(resources, logger);
  const sampling = samplerOf(sdk, logger);
  const provider = new sdk.TracerProvider({
    resource,
    sampler: sampling.sampler,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({
          url: endpoint,
          headers: { ...settings.tracesHeaders },
        }),
      }),
    ],
  });
  // `fetch` (ky's CometChat requests, the replies to a response_url) reports through
  // diagnostics channels: no module needs patching, so this works though the app's modules are
  // loaded already. Only requests made for a span are traced, and an address leaves with its
  // origin alone: a response_url is a capability (anyone holding it may post for half an hour)
  // and a CometChat path names users and calls. No trace header is sent (no propagator is set):
  // neither Slack nor CometChat takes part in the app's traces.
  const http = new undici.UndiciInstrumentation({
    requireParentforSpans: true,
    startSpanHook: (request) => ({
      'url.full': originOf(request.origin),
      'url.path': '[redacted]',
      'url.query': '',
    }),
  });
  http.setTracerProvider(provider);
  http.enable();
  useSpanRunner(spanRunner(api, provider.getTracer(SERVICE_NAME, BUILD.version)));
  logger.info(
    {
      collector: new URL(endpoint).host,
      serviceName: resource.attributes['service.name'],
      sampler: sampling.name,
    },
    'traces are exported over OTLP',
  );
  return {
    async shutdown() {
      useSpanRunner(undefined);
      http.disable();
      await provider.shutdown().catch((error: unknown) => {
        logger.warn({ err: error }, 'the last spans could not be sent');
      });
      api.context.disable();
    },
  };
}

/** What spans.ts runs spans with: a span per piece of work, the current one, resuming one. */
function spanRunner(api: Api, tracer: ReturnType<Api['trace']['getTracer']>) {
  const run: SpanRunner = (name, kind, attributes, work) =>
    tracer.startActiveSpan(
      name,
      { kind: kind === 'server' ? api.SpanKind.SERVER : api.SpanKind.CLIENT, attributes },
      async (span) => {
        try {
          return await work();
        } catch (error) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: failureKind(error) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  // A span the sampler left out is never exported: log lines do not name it.
  const current = () => {
    const context = api.trace.getActiveSpan()?.spanContext();
    return context &&
      api.isSpanContextValid(context) &&
      (context.traceFlags & api.TraceFlags.SAMPLED) !== 0
      ? { traceId: context.traceId, spanId: context.spanId }
      : undefined;
  };
  const resume = (): SpanResume => {
    const context = api.context.active();
    return (work) => api.context.with(context, work);
  };
  return { run, current, resume };
}

/**
 * OTEL_SDK_DISABLED as the specification reads it: `true` (in any case) turns the SDK off;
 * unset, empty or `false` leave it on, and so does anything else, with a warning. (core's
 * getBooleanFromEnv reads it so, but loading it is what a disabled SDK must not do.)
 */
function sdkDisabled(logger: Logger): boolean {
  const value = process.env.OTEL_SDK_DISABLED?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value !== undefined && value !== '' && value !== 'false') {
    logger.warn({ value }, 'OTEL_SDK_DISABLED is neither true nor false, so tracing stays on');
  }
  return false;
}

/**
 * Who sends the spans: the app's name and version, then OTEL_RESOURCE_ATTRIBUTES' attributes,
 * then OTEL_SERVICE_NAME (in a merge, the later resource's attribute wins). The detector drops
 * an OTEL_RESOURCE_ATTRIBUTES it cannot read whole, as the specification asks, and tells only
 * OpenTelemetry's own diagnostics (which go nowhere here): the warning says it instead.
 */
function resourceOf(resources: Resources, logger: Logger) {
  const fromAttributes = resources.resourceAttributesEnvDetector.detect().attributes ?? {};
  if (process.env.OTEL_RESOURCE_ATTRIBUTES?.trim() && Object.keys(fromAttributes).length === 0) {
    logger.warn(
      'OTEL_RESOURCE_ATTRIBUTES is not key=value pairs, comma-separated (a "," or "=" in a key ' +
        'or value percent-encoded), so none of its attributes is used',
    );
  }
  const fromServiceName = resources.serviceNameEnvDetector.detect().attributes ?? {};
  return resources
    .resourceFromAttributes({ 'service.name': SERVICE_NAME, 'service.version': BUILD.version })
    .merge(resources.resourceFromAttributes(fromAttributes))
    .merge(resources.resourceFromAttributes(fromServiceName));
}

/** The samplers the specification names that the installed SDK has; the first is its default. */
const SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
type SamplerName = (typeof SAMPLERS)[number];
const isSamplerName = (value: string): value is SamplerName => SAMPLERS.some((n) => n === value);

/** Which traces are kept: OTEL_TRACES_SAMPLER, and OTEL_TRACES_SAMPLER_ARG for a ratio. */
function samplerOf(sdk: TraceSdk, logger: Logger) {
  const value = process.env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || SAMPLERS[0];
  let name: SamplerName = SAMPLERS[0];
  if (isSamplerName(value)) name = value;
  else {
    logger.warn(
      { value },
      `OTEL_TRACES_SAMPLER is none of ${SAMPLERS.join(', ')}, so traces are sampled by the default, ${SAMPLERS[0]}`,
    );
  }
  // `parentbased_x`: a span with a parent follows it, a root span is sampled by `x`.
  const rule = name.replace(/^parentbased_/, '');
  let root: Sampler;
  if (rule === 'always_on') root = new sdk.AlwaysOnSampler();
  else if (rule === 'always_off') root = new sdk.AlwaysOffSampler();
  else root = new sdk.TraceIdRatioBasedSampler(samplingRatio(logger));
  const sampler = name === rule ? root : new sdk.ParentBasedSampler({ root });
  return { sampler, name };
}

/** OTEL_TRACES_SAMPLER_ARG for a ratio sampler: from 0 to 1; unset or unreadable, 1. */
function samplingRatio(logger: Logger): number {
  const value = process.env.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (!value) return 1;
  const ratio = Number(value);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  logger.warn(
    { value },
    'OTEL_TRACES_SAMPLER_ARG is not a number from 0 to 1, so every trace is sampled (1)',
  );
  return 1;
}

function originOf(address: string): string {
  try {
    return new URL(address).origin;
  } catch {
    return '[redacted]';
  }
}

/** What failed, as a span's status says it: the error's class and code, never its message. */
function failureKind(error: unknown): string {
  if (!(error instanceof Error)) return 'error';
  const code = 'code' in error && typeof error.code === 'string' ? ` ${error.code}` : '';
  return `${error.name}${code}`;
}
