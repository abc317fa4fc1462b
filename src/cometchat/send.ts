import type { KyInstance } from 'ky';
import type { Logger } from 'pino';
import { newReference } from '../reference.ts';
import { currentRequestIfAny, runInRequest } from '../request-context.ts';
import { scrub } from '../scrub.ts';
import { inSpan } from '../spans.ts';
import { CometChatError } from './errors.ts';
import { toCometChatError } from './ky-failure.ts';
import { createHostKy } from './ky-instance.ts';
import { type CometChatObserver, statusClassOf } from './observer.ts';
import { Refused } from './refusals.ts';
import { RequestRecord } from './request-record.ts';

/** The app's two CometChat hosts, as ky instances. */
export interface Hosts {
  /** The REST API's: roles, permissions, users, messages, usage. */
  api: KyInstance;
  /** The calls'. */
  calls: KyInstance;
}

/**
 * One CometChat request: `call` makes it with ky, on one of the hosts, and reads its answer. Its
 * reference and logger are the running request's (outside any request, a reference made for it
 * and the client's logger); any failure is thrown as a CometChatError.
 */
export type Send = <T>(
  operation: string,
  call: (hosts: Hosts) => Promise<T>,
  options?: SendOptions,
) => Promise<T>;

export interface SendOptions {
  /**
   * Values this one request carries that are credentials (an auth token in its path): kept out
   * of its failure, and so of the log, the reply and the audit record, however the service
   * echoes them.
   */
  mask?: readonly string[] | undefined;
}

export interface Sender {
  send: Send;
  /**
   * Runs `work`, several requests (a list's pages), under one reference, which it is given: the
   * running request's, or outside any request one made now, run as a request of its own.
   */
  underOneRef<T>(work: (ref: string) => Promise<T>): Promise<T>;
}

/** What the client is made with (createCometChatClient): the hosts, the key, the rules, the clock. */
export interface SenderOptions {
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
  retryLimit?: number | undefined;
  /** What ky sends with (default: the global fetch). */
  fetch?: typeof fetch | undefined;
  /** For a request made outside any request (the running request's reference otherwise). */
  newRef?: (() => string) | undefined;
  /** The clock the time budget and server-given waits are judged by (default `Date.now`). */
  now?: (() => number) | undefined;
  /** A number in [0, 1) for the back-off jitter (default `Math.random`). */
  random?: (() => number) | undefined;
  /** Told of every request's duration and status, each retry and each 429 (metrics). */
  observe?: CometChatObserver | undefined;
}

/**
 * The client's one way to the service: a ky instance per host, holding the app's rules
 * (ky-instance.ts), and around each request what ky does not do: a span, the end of a request
 * told to the metrics and the log once its body is read and checked, and any failure turned
 * into a CometChatError (ky-failure.ts says why not in ky's `beforeError`).
 */
export function createSender(options: SenderOptions): Sender {
  const now = options.now ?? Date.now;
  const newRef = options.newRef ?? newReference;
  const host = (url: string, address: 'api' | 'call') =>
    createHostKy({
      url,
      address,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      budgetMs: options.budgetMs,
      retryLimit: options.retryLimit ?? 3,
      fetch: options.fetch,
      now,
      random: options.random ?? Math.random,
      observe: options.observe,
    });
  const hosts: Hosts = {
    api: host(options.apiUrl, 'api'),
    calls: host(options.callApiUrl, 'call'),
  };
  // A service may echo what it was sent (`the apikey ... is not valid`), or any other secret: its
  // words are shown to people, kept in the audit trail and logged, so every secret goes first.
  const secrets = [options.apiKey, ...(options.secrets ?? [])];
  const withoutSecrets = (text: string, mask: readonly string[] = []) =>
    scrub(text, [...secrets, ...mask]);
  const underOneRef = <T>(work: (ref: string) => Promise<T>): Promise<T> => {
    const running = currentRequestIfAny();
    if (running) return work(running.ref);
    const ref = newRef();
    return runInRequest({ ref, log: options.logger, receivedAt: now() }, () => work(ref));
  };

  const send: Send = (operation, call, sendOptions) => {
    const running = currentRequestIfAny();
    const record = new RequestRecord(
      running?.ref ?? newRef(),
      operation,
      now() + options.budgetMs,
      running?.log ?? options.logger,
    );
    const attributes = { 'cometchat.operation': operation, 'cometchat_ops.ref': record.ref };
    return inSpan(`CometChat ${operation}`, 'client', attributes, async () => {
      const context = { context: { record } };
      try {
        const body = await call({
          api: hosts.api.extend(context),
          calls: hosts.calls.extend(context),
        });
        succeeded(record, options.observe);
        return body;
      } catch (error) {
        if (error instanceof Refused) throw refusal(record, error);
        const mask = sendOptions?.mask;
        const failure = toCometChatError(error, record, (text) => withoutSecrets(text, mask), now);
        failed(record, failure, options.observe);
        throw failure;
      }
    });
  };
  return { send, underOneRef };
}

/** Nothing was sent: no metrics, no log line; the person is told why. */
function refusal({ ref, operation }: RequestRecord, refused: Refused): CometChatError {
  return new CometChatError({ kind: 'bad_request', ref, operation, detail: refused.message });
}

function succeeded(record: RequestRecord, observe: CometChatObserver | undefined): void {
  const ms = record.elapsedMs();
  observe?.cometchatRequest(record.operation, statusClassOf(record.status), ms / 1000);
  if (record.debugging) {
    record.log.debug({ status: record.status, ms }, 'CometChat request done');
  }
}

function failed(
  record: RequestRecord,
  failure: CometChatError,
  observe: CometChatObserver | undefined,
): void {
  const { kind, status } = failure;
  const ms = record.elapsedMs();
  observe?.cometchatRequest(record.operation, statusClassOf(status, kind), ms / 1000);
  if (status === 429) observe?.cometchatRateLimited(record.operation);
  record.log.warn(
    { kind, status, code: failure.serviceCode, cause: failure.detail, ms },
    kind === 'invalid_response' ? 'CometChat response rejected' : 'CometChat request failed',
  );
}
