import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { type SpanResume, type SpanRunner, useSpanRunner } from '../spans.ts';
import { BUILD, SERVICE_NAME } from './build.ts';

// Traces, opt-in. With an OTLP endpoint configured (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces after it), each Slack request the app handles is
// a span, and the CometChat and Slack calls made for it are spans under it (with the HTTP
// requests of `fetch`, ky's and `respond`'s, under those), exported over OTLP/HTTP. Without an
// endpoint no OpenTelemetry module is even loaded, and `inSpan` (spans.ts) runs the work and
// nothing else.
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

/** Turns tracing on when an endpoint is configured; loads OpenTelemetry only then. */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const endpoint = settings.tracesEndpoint;
  if (endpoint === undefined) return { shutdown: async () => {} };
  const [api, sdk, hooks, otlp, resources, undici] = await loadOpenTelemetry();
  // Parent and child spans find each other through the async context.
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': SERVICE_NAME,
      'service.version': BUILD.version,
    }),
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
  logger.info({ collector: new URL(endpoint).host }, 'traces are exported over OTLP');
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
  const current = () => {
    const context = api.trace.getActiveSpan()?.spanContext();
    return context && api.isSpanContextValid(context)
      ? { traceId: context.traceId, spanId: context.spanId }
      : undefined;
  };
  const resume = (): SpanResume => {
    const context = api.context.active();
    return (work) => api.context.with(context, work);
  };
  return { run, current, resume };
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
