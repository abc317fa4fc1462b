import { errorResponse } from './errors.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState } from './state.ts';
import { callMessage } from './webhook-payloads.ts';

/**
 * GET /v3/messages/{id}: the call messages of ringing calls only (the stand-in keeps no chat),
 * each with its session in `data.entities.on.entity`, as live-api-notes.md ("Webhooks") says
 * `call_initiated` carries it.
 */
export function getMessage(state: SandboxState, id: string | undefined): SandboxResponse {
  if (id === undefined || !state.callMessages.has(id)) return errorResponse('ERR_MSG_NOT_FOUND');
  return ok({ data: callMessage(state, id) });
}
