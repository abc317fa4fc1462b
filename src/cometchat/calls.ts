import { CometChatError } from './errors.ts';
import { type Call, type CallPage, type CallQuery, toCall, toCallPage } from './model.ts';
import { onBehalfOf, segment } from './refusals.ts';
import {
  CallListResponseSchema,
  CallMessageResponseSchema,
  CallResponseSchema,
} from './schemas.ts';
import type { RequestOptions, Send, Sender } from './send.ts';

// Calls, on the calls' host (`/v3/calls`), and the message a call rang for, on the REST API's.

/** A request made as one of the app's users (the `onBehalfOf` header), when asked. */
type OnBehalf = RequestOptions & { onBehalfOf?: string | undefined };

export interface CallOperations {
  getCall(sessionId: string, options?: OnBehalf): Promise<Call>;
  /**
   * The session a call's message rang for (`GET /v3/messages/{id}` on the API host): how a
   * ringing outcome, which names its message, finds its call. Undefined when the message names
   * none (it is not a call's).
   */
  getCallMessageSession(messageId: string, options?: RequestOptions): Promise<string | undefined>;
  /** One page of the calls that match, newest first. */
  listCalls(query: CallQuery, options?: OnBehalf): Promise<CallPage>;
}

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class CallRequests implements CallOperations {
  readonly #send: Send;
  readonly #oneRef: Sender['oneRef'];

  constructor({ send, oneRef }: Sender) {
    this.#send = send;
    this.#oneRef = oneRef;
  }

  getCall = async (sessionId: string, request?: OnBehalf) => {
    const shared = this.#oneRef(request);
    const { data } = await this.#send(
      'getCall',
      ({ calls }) =>
        calls
          .get(`calls/${segment(sessionId, 'session id')}`, {
            headers: onBehalfOf(request?.onBehalfOf),
          })
          .json(CallResponseSchema),
      shared,
    );
    // Documented both as a record and as a list of one (schemas.ts); an empty list is no call.
    const record = Array.isArray(data) ? data[0] : data;
    if (!record) {
      throw new CometChatError({
        kind: 'not_found',
        ref: shared.ref,
        operation: 'getCall',
        status: 200,
        detail: 'the service answered with no call record',
      });
    }
    return toCall(record);
  };

  getCallMessageSession = async (messageId: string, request?: RequestOptions) => {
    const { data } = await this.#send(
      'getCallMessage',
      ({ api }) =>
        api.get(`messages/${segment(messageId, 'message id')}`).json(CallMessageResponseSchema),
      request,
    );
    return data.data?.entities.on.entity.sessionid;
  };

  listCalls = async (query: CallQuery, request?: OnBehalf) => {
    const searchParams = callSearchParams(query);
    const body = await this.#send(
      'listCalls',
      ({ calls }) =>
        calls
          .get('calls', { headers: onBehalfOf(request?.onBehalfOf), searchParams })
          .json(CallListResponseSchema),
      request,
    );
    return toCallPage(body, query);
  };
}

/** The list's filters as query parameters: only those asked for, booleans as `true`/`false`. */
function callSearchParams(query: CallQuery): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const key of ['uid', 'status', 'type', 'mode', 'receiverType'] as const) {
    const value = query[key];
    if (value !== undefined) params[key] = value;
  }
  for (const key of ['hasRecording', 'hasTranscription'] as const) {
    const value = query[key];
    if (value !== undefined) params[key] = String(value);
  }
  if (query.startedAt !== undefined) params.startedAt = query.startedAt;
  if (query.endedAt !== undefined) params.endedAt = query.endedAt;
  params.page = query.page;
  params.perPage = query.perPage;
  return params;
}
