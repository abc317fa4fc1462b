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

const untraced: SpanRunner = (_name, _kind, _attributes, work) => work();
let runner: SpanRunner = untraced;

/** Runs `work` in a span named `name`, a child of the span it is called in, when tracing is on. */
export function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: SpanAttributes,
  work: () => Promise<T>,
): Promise<T> {
  return runner(name, kind, attributes, work);
}

/** Tracing's switch: a runner that records spans, or undefined for none. */
export function useSpanRunner(next: SpanRunner | undefined): void {
  runner = next ?? untraced;
}
