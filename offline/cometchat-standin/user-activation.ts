import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState, User } from './state.ts';

// DELETE /v3/users with `uidsToDeactivate` and PUT /v3/users with `uidsToActivate`: a
// deactivated user is suspended, its data kept (never deleted: the app never asks for that).
// Both name the known uids they now hold in that state, already there or not, so a request
// repeated after a lost answer answers the same; unknown uids are left out.

export interface ActivationRequest {
  contentType: string | undefined;
  body: RequestBody;
  /** Unix seconds, for `deactivatedAt` and `updatedAt`. */
  now: number;
}

/** The known users a body's list names, each once, in the order given; or the 400. */
function namedUsers(
  state: SandboxState,
  request: ActivationRequest,
  field: 'uidsToDeactivate' | 'uidsToActivate',
): User[] | SandboxResponse {
  const body = jsonBody(request.contentType, request.body);
  if (!body.ok) return body.response;
  const uids = isObject(body.value) ? body.value[field] : undefined;
  const valid =
    Array.isArray(uids) &&
    uids.length > 0 &&
    uids.every((uid) => typeof uid === 'string' && uid !== '');
  if (!valid) return badRequest(field, `The ${field} must be a non-empty list of uids.`);
  const users = [...new Set<string>(uids)].map((uid) => state.users.get(uid));
  return users.filter((user): user is User => user !== undefined);
}

export function deactivateUsers(state: SandboxState, request: ActivationRequest): SandboxResponse {
  const users = namedUsers(state, request, 'uidsToDeactivate');
  if (!Array.isArray(users)) return users;
  for (const user of users) {
    if (user.deactivatedAt !== undefined) continue;
    user.deactivatedAt = request.now;
    // A suspended user is signed out.
    user.status = 'offline';
    user.updatedAt = Math.max(request.now, user.createdAt);
  }
  return ok({ data: { success: true, deactivatedUids: users.map((user) => user.uid) } });
}

export function reactivateUsers(state: SandboxState, request: ActivationRequest): SandboxResponse {
  const users = namedUsers(state, request, 'uidsToActivate');
  if (!Array.isArray(users)) return users;
  for (const user of users) {
    if (user.deactivatedAt === undefined) continue;
    delete user.deactivatedAt;
    user.updatedAt = Math.max(request.now, user.createdAt);
  }
  return ok({ data: { success: true, nonDeactivatedUids: users.map((user) => user.uid) } });
}
