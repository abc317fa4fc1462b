// Spans around work: where the app's code marks a Slack request, a CometChat operation or a
// Slack call, for the traces that observe/tracing.ts exports when they are turned on. Until
// then (and always, without an OTLP endpoint) a span is nothing: the work runs as it is.
//
// Like OpenTelemetry's own API, which this stands in front of so that nothing of it is loaded
// while tracing is off, the runner is one per process: a span's parent is the span its work
// was started in, whichever module started that.

export type SpanKind = 'server' | 'client';
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;
export type SpanRunner = <T>(
  name: string,
  kind: SpanKind,
  attributes: SpanAttributes,
  work: () => Promise<T>,
) => Promise<T>;

/** The span work runs in, as a log line names it to join the trace (ECS `trace.id`, `span.id`). */
export interface SpanIds {
  traceId: string;
  spanId: string;
}

/** Runs work in the span that was current when it was made. */
export type SpanResume = <T>(work: () => T) => T;

const untraced: SpanRunner = (_name, _kind, _attributes, work) => work();
const noSpan = (): SpanIds | undefined => undefined;
const noResume = (): SpanResume => (work) => work();
let runner: SpanRunner = untraced;
let current = noSpan;
let resume = noResume;

/** Runs `work` in a span named `name`, a child of the span it is called in, when tracing is on. */
export function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: SpanAttributes,
  work: () => Promise<T>,
): Promise<T> {
  return runner(name, kind, attributes, work);
}

/** The span the calling work runs in, when tracing is on and there is one. */
export function currentSpan(): SpanIds | undefined {
  return current();
}

/**
 * A way back into the span current now, for work that runs after it has left it (Bolt calls its
 * error handler outside the middleware): the work's spans and log lines join that trace.
 */
export function resumeCurrentSpan(): SpanResume {
  return resume();
}

/** Tracing's switch: a runner that records spans and says which is current, or none. */
export function useSpanRunner(
  next:
    | { run: SpanRunner; current: () => SpanIds | undefined; resume: () => SpanResume }
    | undefined,
): void {
  runner = next?.run ?? untraced;
  current = next?.current ?? noSpan;
  resume = next?.resume ?? noResume;
}
