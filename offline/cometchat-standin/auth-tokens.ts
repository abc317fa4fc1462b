import { errorResponse } from './errors.ts';
import { pageOf, readPaging } from './paging.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState, User } from './state.ts';

// A user's sessions (live-api-notes.md, "Sessions: auth tokens"): `GET` and `DELETE
// /v3/users/{uid}/auth_tokens`, and `DELETE /v3/users/{uid}/auth_tokens/{authToken}`. Like the
// service, a deactivated user's uid is answered `ERR_UID_NOT_FOUND` here.

/**
 * The user a route named by uid acts for: unknown and deactivated ones alike are not found, as
 * the live service answers them on these routes (auth tokens, bans, `onBehalfOf`).
 */
export function activeUser(state: SandboxState, uid: string | undefined): User | undefined {
  const user = uid === undefined ? undefined : state.users.get(uid);
  return user?.deactivatedAt === undefined ? user : undefined;
}

/** The user's tokens, oldest first (the order they were made), paged. */
export function listAuthTokens(
  state: SandboxState,
  uid: string | undefined,
  query: Record<string, string>,
): SandboxResponse {
  const user = activeUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  const details: Record<string, string[]> = {};
  const paging = readPaging(query, details);
  if (paging === undefined) return errorResponse('ERR_BAD_REQUEST', { details });
  return ok(pageOf(state.accounts.authTokens.get(user.uid) ?? [], paging));
}

/** Revokes every token of the user; a user without any is answered the same. */
export function revokeAuthTokens(state: SandboxState, uid: string | undefined): SandboxResponse {
  const user = activeUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  state.accounts.authTokens.delete(user.uid);
  const message = `Cleared Auth Tokens successfully for uid ${user.uid}.`;
  return ok({ data: { success: true, message } });
}

/** Revokes one token; one the user does not hold (now) is `ERR_AUTH_TOKEN_NOT_FOUND`. */
export function revokeAuthToken(
  state: SandboxState,
  uid: string | undefined,
  token: string | undefined,
): SandboxResponse {
  const user = activeUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  const tokens = state.accounts.authTokens.get(user.uid) ?? [];
  const left = tokens.filter((held) => held.authToken !== token);
  if (left.length === tokens.length) return errorResponse('ERR_AUTH_TOKEN_NOT_FOUND');
  state.accounts.authTokens.set(user.uid, left);
  // The answer does not repeat the token: it is a credential.
  const message = `Deleted the Auth Token successfully for uid ${user.uid}.`;
  return ok({ data: { success: true, message } });
}
