import { errorResponse } from './errors.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState } from './state.ts';

/**
 * GET /v3/calls/{sessionId}. The record is wrapped the way its seed entry says: a one-element
 * array (the reference) or a single object (current documentation); the live service has
 * served both, so clients must accept both.
 */
export function getCall(state: SandboxState, sessionId: string | undefined): SandboxResponse {
  const call = sessionId === undefined ? undefined : state.calls.get(sessionId);
  if (call === undefined) return errorResponse('ERR_CALL_SESSION_NOT_FOUND');
  // Served as it is: the server serialises the answer at once (see call-list.ts).
  const { record } = call;
  return ok({ data: call.shape === 'array' ? [record] : record });
}
