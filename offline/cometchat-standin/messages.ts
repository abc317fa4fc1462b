import { errorResponse } from './errors.ts';
import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState } from './state.ts';
import { callMessage } from './webhook-payloads.ts';

/**
 * GET /v3/messages/{id}: a chat message (a soft-deleted one too, with its `deletedAt`), or the
 * call message of a ringing call, with its session in `data.entities.on.entity`, as
 * live-api-notes.md ("Webhooks") says `call_initiated` carries it.
 */
export function getMessage(state: SandboxState, id: string | undefined): SandboxResponse {
  const chat = id === undefined ? undefined : state.accounts.messages.get(id);
  if (chat !== undefined) return ok({ data: chat });
  if (id === undefined || !state.callMessages.has(id)) return errorResponse('ERR_MSG_NOT_FOUND');
  return ok({ data: callMessage(state, id) });
}

export interface MessageDeletion {
  id: string | undefined;
  contentType: string | undefined;
  body: RequestBody;
  /** Unix seconds, for `deletedAt`. */
  now: number;
  /** The `onBehalfOf` header: who deleted it (`app_system` without one). */
  onBehalfOf: string | undefined;
}

/**
 * DELETE /v3/messages/{id}: `{"permanent": true}` removes the message for good; without a body,
 * or with `false`, a soft delete keeps it, marked deleted (a second one changes nothing). The
 * answer is the stand-in's own: the documented example is wrong (live-api-notes.md).
 */
export function deleteMessage(state: SandboxState, request: MessageDeletion): SandboxResponse {
  const message = request.id === undefined ? undefined : state.accounts.messages.get(request.id);
  if (message === undefined) return errorResponse('ERR_MSG_NOT_FOUND');
  let permanent = false;
  if (request.body.kind !== 'empty') {
    const body = jsonBody(request.contentType, request.body);
    if (!body.ok) return body.response;
    const value = isObject(body.value) ? body.value.permanent : undefined;
    if (value !== undefined && typeof value !== 'boolean') {
      return badRequest('permanent', 'The permanent must be true or false.');
    }
    permanent = value === true;
  }
  if (permanent) {
    state.accounts.messages.delete(message.id);
    return ok({ data: { id: message.id, success: true, message: 'Message deleted permanently.' } });
  }
  if (message.deletedAt === undefined) {
    message.deletedAt = request.now;
    message.deletedBy = request.onBehalfOf ?? 'app_system';
    message.updatedAt = request.now;
  }
  return ok({ data: message });
}
