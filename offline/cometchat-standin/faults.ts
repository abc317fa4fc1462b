import { errorCodeForStatus, errorResponse } from './errors.ts';

// Faults stand in for what goes wrong between a client and the live service: an error status
// (often from a proxy, with an HTML or empty body), a slow answer, a body that is not JSON, JSON
// of the wrong shape, a dropped connection. Tests queue them; each matching request uses one.

export interface FaultSpec {
  /** Which requests it applies to; omitted = any request. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Substring of the raw request path, e.g. '/roles', '/calls/' or '/users'. */
  pathIncludes?: string;
  /** How many matching requests it affects; default 1; Infinity allowed. */
  times?: number;
  kind: 'status' | 'delay' | 'malformed' | 'schema' | 'reset';
  /** For 'status' (required there); also used by 'malformed' (default 200). */
  status?: number;
  /**
   * For 'status': the JSON error body; undefined = a realistic CometChat error body; null = an
   * empty body. For 'schema': the JSON to send instead of `{"data":"oops"}`.
   */
  body?: unknown;
  /** For 'status'/'malformed': a literal body, e.g. '<html>Bad gateway</html>'. */
  rawBody?: string;
  /** Sent with the fault's answer, e.g. { 'retry-after': '1' }. */
  headers?: Record<string, string>;
  /** For 'delay': wait this long, then answer normally (or drop it if the client went away). */
  delayMs?: number;
}

interface QueuedFault {
  spec: FaultSpec;
  remaining: number;
}

const KINDS: ReadonlySet<string> = new Set(['status', 'delay', 'malformed', 'schema', 'reset']);

/** Throws on a spec that could only be a mistake in a test, so the test fails where it is written. */
export function assertValidFault(spec: FaultSpec): void {
  if (!KINDS.has(spec.kind)) {
    throw new TypeError(`fault: unknown kind ${JSON.stringify(spec.kind)}`);
  }
  const times = spec.times ?? 1;
  if (!(times === Number.POSITIVE_INFINITY || (Number.isInteger(times) && times > 0))) {
    throw new TypeError('fault: times must be a positive integer or Infinity');
  }
  if (spec.kind === 'status' && spec.status === undefined) {
    throw new TypeError("fault: kind 'status' needs a status");
  }
  if (
    spec.status !== undefined &&
    !(Number.isInteger(spec.status) && spec.status >= 100 && spec.status <= 599)
  ) {
    throw new TypeError('fault: status must be an HTTP status code (100-599)');
  }
  if (spec.kind === 'delay' && !(typeof spec.delayMs === 'number' && spec.delayMs >= 0)) {
    throw new TypeError("fault: kind 'delay' needs a delayMs >= 0");
  }
}

function matches(spec: FaultSpec, method: string, path: string): boolean {
  if (spec.method !== undefined && spec.method !== method) return false;
  return spec.pathIncludes === undefined || path.includes(spec.pathIncludes);
}

export interface FaultQueue {
  add(spec: FaultSpec): void;
  clear(): void;
  /** The first queued fault that matches, used up by one; undefined when none matches. */
  take(method: string, rawPath: string): FaultSpec | undefined;
}

export function createFaultQueue(): FaultQueue {
  let queue: QueuedFault[] = [];
  return {
    add(spec) {
      assertValidFault(spec);
      queue.push({ spec: { ...spec }, remaining: spec.times ?? 1 });
    },
    clear() {
      queue = [];
    },
    take(method, rawPath) {
      const found = queue.find((fault) => matches(fault.spec, method, rawPath));
      if (found === undefined) return undefined;
      found.remaining -= 1;
      if (found.remaining <= 0) queue = queue.filter((fault) => fault !== found);
      return found.spec;
    },
  };
}

/** A response as bytes on the wire, for answers that are deliberately not the service's. */
export interface RawAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** What a 'malformed' fault sends by default: JSON cut off mid-record, the sneakiest non-JSON. */
const TRUNCATED_JSON =
  '{"data":[{"sessionId":"v1.us.sandbox-app.1700000000abcdef0001","participants":[{"uid":';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * What a fault answers with. Undefined for 'reset' (the connection is dropped, no answer) and
 * for 'delay' (the normal answer, once the delay has passed). The fault's headers win. `path`
 * (raw) picks the realistic error of a 404.
 */
export function faultAnswer(
  fault: FaultSpec,
  host: 'api' | 'call',
  path = '',
): RawAnswer | undefined {
  const headers = fault.headers ?? {};
  const json = (status: number, body: unknown): RawAnswer => ({
    status,
    text: JSON.stringify(body),
    headers: { 'content-type': JSON_TYPE, ...headers },
  });
  switch (fault.kind) {
    case 'reset':
    case 'delay':
      return undefined;
    case 'malformed':
      return {
        status: fault.status ?? 200,
        text: fault.rawBody ?? TRUNCATED_JSON,
        headers: { 'content-type': JSON_TYPE, ...headers },
      };
    case 'schema':
      return json(200, fault.body ?? { data: 'oops' });
    case 'status': {
      const status = fault.status ?? 500;
      if (fault.rawBody !== undefined) {
        // A literal body stands for a proxy's page, hence HTML unless the test says otherwise.
        const type = { 'content-type': 'text/html; charset=utf-8' };
        return { status, text: fault.rawBody, headers: { ...type, ...headers } };
      }
      if (fault.body === null) return { status, text: '', headers };
      return json(status, fault.body ?? errorResponse(errorCodeForStatus(status, host, path)).body);
    }
  }
}
