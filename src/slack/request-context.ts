import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import { newReference } from '../reference.ts';
import { type RequestContext, runInRequest } from '../request-context.ts';
import { factsOf } from './body-facts.ts';

/**
 * What `promise` resolves to if it does within `ms`, else undefined (it runs on either way, for
 * the caller to await later). The promise must not reject: give it its outcome as a value.
 */
export async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return (await eachSettledWithin([promise], ms))[0];
}

/** {@link settledWithin} for each of `promises`, against one timer (a roles page waits on ten). */
export async function eachSettledWithin<T>(
  promises: readonly Promise<T>[],
  ms: number,
): Promise<(T | undefined)[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.all(promises.map((promise) => Promise.race([promise, late])));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Global middleware, the first: gives each incoming request a short reference id (shown to the
 * user with any failure) and a child logger that carries it with team, user and what was
 * invoked. The rest of the request runs as that reference's work (runInRequest), so a line that
 * Bolt, a Web API client or a CometChat client logs meanwhile carries the reference too
 * (createLogger adds it), and code reads the request's context with currentRequest().
 */
export function requestContext(
  logger: Logger,
  now: () => number = Date.now,
): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const receivedAt = now();
    const ref = newReference();
    const facts = factsOf(body);
    const log = logger.child({
      ref,
      team: facts.team,
      user: facts.userId,
      type: facts.kind,
      command: facts.command,
      subcommand: facts.subcommand,
      action: facts.action,
      callback: facts.callback,
    });
    const request: RequestContext = { ref, log, receivedAt };
    // Kept on Bolt's `context` too, for what runs after the request has left the run below
    // (Bolt's error handler).
    context.requestContext = request;
    await runInRequest(request, next);
  };
}

/**
 * The request's context as the first middleware left it on Bolt's `context`: for Bolt's error
 * handler, which Bolt calls once the request has left its AsyncLocalStorage run, so that its
 * reply and its lines still belong to the request. Everywhere else: currentRequest().
 */
export function requestContextOf(context: Context): RequestContext | undefined {
  const request: RequestContext | undefined = context.requestContext;
  return request;
}
