import type { Logger } from 'pino';
import { type CallOperations, CallRequests } from './calls.ts';
import type { CometChatObserver } from './observer.ts';
import { type RoleOperations, RoleRequests } from './roles.ts';
import { createSender } from './send.ts';
import { type UsageOperations, UsageRequests } from './usage.ts';
import { type UserOperations, UserRequests } from './users.ts';

// The CometChat REST API through ky. Each operation is one ky call and the zod schema of its
// answer (roles.ts, users.ts, calls.ts, usage.ts); the rules every request follows (its time
// budget, its retries, the waits a service asks for, the cap on an answer) are ky's options and
// hooks on each host's instance (ky-instance.ts); send.ts runs each request under the running
// request's reference and turns its failure into a CometChatError.

export type { RequestOptions } from './send.ts';

export interface CometChatClientOptions {
  /** Role API address without `/v3`. */
  apiUrl: string;
  /** Call API address without `/v3`. */
  callApiUrl: string;
  apiKey: string;
  /**
   * Every secret the app holds (Config.secrets, the logger's list): taken out of the service's
   * words with the key, whichever one it echoes back.
   */
  secrets?: readonly string[] | undefined;
  /** Per attempt. */
  timeoutMs: number;
  /** All attempts and back-off waits together. */
  budgetMs: number;
  /** For a request made outside any request (the running request's logger otherwise). */
  logger: Logger;
  /** Retries after the first attempt (default 3). */
  retryLimit?: number;
  /** What ky sends with (default: the global fetch). */
  fetch?: typeof fetch;
  /** For a request made outside any request (the running request's reference otherwise). */
  newRef?: () => string;
  /** The clock the time budget and server-given waits are judged by (default `Date.now`). */
  now?: () => number;
  /** A number in [0, 1) for the back-off jitter (default `Math.random`). */
  random?: () => number;
  /** Told of every request's duration and status, each retry and each 429 (metrics). */
  observe?: CometChatObserver;
}

export interface CometChatClient
  extends RoleOperations,
    CallOperations,
    UsageOperations,
    UserOperations {}

export function createCometChatClient(options: CometChatClientOptions): CometChatClient {
  const sender = createSender(options);
  return {
    ...new RoleRequests(sender),
    ...new CallRequests(sender),
    ...new UsageRequests(sender),
    ...new UserRequests(sender),
  };
}
