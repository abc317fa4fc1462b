import { AsyncLocalStorage } from 'node:async_hooks';

// Which request a log line belongs to, whoever writes it: the app's request logger carries the
// reference in its bindings, but Bolt, its Web API clients and a CometChat client made before
// the request log through loggers of their own. The reference is kept with the request's
// asynchronous work instead, and the root logger adds it to every line written meanwhile.

const requests = new AsyncLocalStorage<string>();

/** Runs `work` as the request `ref`: what it starts, awaited or not, stays that request's. */
export function withRequestRef<T>(ref: string, work: () => T): T {
  return requests.run(ref, work);
}

/** The reference of the request whose work is running, if any. */
export function currentRequestRef(): string | undefined {
  return requests.getStore();
}
