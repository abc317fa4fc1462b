import type { KyInstance } from 'ky';
import type { Logger } from 'pino';
import { scrub } from '../log.ts';
import { newReference } from '../reference.ts';
import { currentRequestIfAny } from '../request-context.ts';
import { inSpan } from '../spans.ts';
import { CometChatError } from './errors.ts';
import { toCometChatError } from './ky-failure.ts';
import { createHostKy } from './ky-instance.ts';
import { type CometChatObserver, statusClassOf } from './observer.ts';
import { Refused } from './refusals.ts';
import { RequestRecord } from './request-record.ts';

export interface RequestOptions {
  /** Reference id shared with the user-facing reply and the logs; the running request's if absent. */
  ref?: string | undefined;
  /** The running request's logger if absent. */
  logger?: Logger | undefined;
}

/** The app's two CometChat hosts, as ky instances. */
export interface Hosts {
  /** The REST API's: roles, permissions, users, messages, usage. */
  api: KyInstance;
  /** The calls'. */
  calls: KyInstance;
}

/**
 * One CometChat request: `call` makes it with ky, on one of the hosts, and reads its answer. Its
 * reference and logger are the running request's (or the caller's `request`, while callers still
 * give one); any failure is thrown as a CometChatError.
 */
export type Send = <T>(
  operation: string,
  call: (hosts: Hosts) => Promise<T>,
  request?: RequestOptions,
) => Promise<T>;

export interface Sender {
  send: Send;
  /**
   * `request` with the reference several requests share: the caller's, the running request's,
   * or one made now (a request made outside any request, such as a test's).
   */
  oneRef(request?: RequestOptions): RequestOptions & { ref: string };
}

export interface SenderOptions {
  apiUrl: string;
  callApiUrl: string;
  apiKey: string;
  /** Every secret the app holds: taken out of the service's words with the key. */
  secrets?: readonly string[] | undefined;
  timeoutMs: number;
  budgetMs: number;
  /** For a request made outside any request. */
  logger: Logger;
  retryLimit?: number | undefined;
  fetch?: typeof fetch | undefined;
  newRef?: (() => string) | undefined;
  now?: (() => number) | undefined;
  random?: (() => number) | undefined;
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
  const withoutSecrets = (text: string) => scrub(text, secrets);
  const oneRef = (request?: RequestOptions) => ({
    ...request,
    ref: request?.ref ?? currentRequestIfAny()?.ref ?? newRef(),
  });

  const send: Send = (operation, call, request) => {
    const record = new RequestRecord(
      oneRef(request).ref,
      operation,
      now() + options.budgetMs,
      request?.logger ?? currentRequestIfAny()?.log ?? options.logger,
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
        const failure = toCometChatError(error, record, withoutSecrets, now);
        failed(record, failure, options.observe);
        throw failure;
      }
    });
  };
  return { send, oneRef };
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
