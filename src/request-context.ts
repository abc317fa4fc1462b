import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { SpanResume } from './spans.ts';

// The request a piece of work belongs to, kept with its asynchronous work by Node's
// AsyncLocalStorage: set once by the first middleware (slack/request-context.ts) or by the
// periodic runner, and read wherever it is needed (a log line, a CometChat request, a deadline)
// instead of being passed from function to function.

/** What the app knows of the request whose work is running. */
export interface RequestContext {
  /** Short reference id, shown to the person with any failure and on every log line. */
  ref: string;
  /** A logger bound to the request (its reference, team, user, what was invoked). */
  log: Logger;
  /** When the request reached the app (Unix ms): Slack's deadlines count from about then. */
  receivedAt: number;
  /**
   * Runs work in the request's span (when traces are on), for what runs after the request has
   * left it: Bolt's error handler, whose reply then belongs to the request's trace.
   */
  resumeSpan?: SpanResume | undefined;
}

const requests = new AsyncLocalStorage<RequestContext>();

/** Runs `work` as the request `context`: what it starts, awaited or not, stays that request's. */
export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return requests.run(context, work);
}

/** The request whose work is running; an error where no request is (a mistake in the app). */
export function currentRequest(): RequestContext {
  const context = requests.getStore();
  if (!context) throw new Error('no request is running: start the work with runInRequest');
  return context;
}

/** The request whose work is running, if any: for code that also runs outside one (logging). */
export function currentRequestIfAny(): RequestContext | undefined {
  return requests.getStore();
}

/**
 * What is left of a deadline counted from the request's arrival. Slack allows three seconds
 * for an acknowledgement or a `views.open`, from the click, and every check before it (the
 * viewer check, the editor check, the store) takes its share of that one budget.
 */
export function msLeft(deadlineMs: number, now: () => number = Date.now): number {
  return deadlineMs - (now() - currentRequest().receivedAt);
}
