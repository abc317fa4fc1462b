import { errorResponse } from './errors.ts';
import { pageOf, readPaging } from './paging.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState, User } from './state.ts';
import { byUid, listed, matchesSearch } from './user-list.ts';
import { findUser } from './users.ts';

// GET /v3/users/{uid}/friends and GET /v3/users/{uid}/blockedusers: the users a friendship or
// a block ties to one user, in uid order, a page at a time. A deactivated friend is still a
// friend (and a block still stands), so these lists hold them too, with their `deactivatedAt`.

function relatedPage(
  state: SandboxState,
  uid: string | undefined,
  related: ReadonlyMap<string, ReadonlySet<string>>,
  query: Record<string, string>,
): SandboxResponse {
  const user = findUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  const details: Record<string, string[]> = {};
  const paging = readPaging(query, details);
  if (paging === undefined) return errorResponse('ERR_BAD_REQUEST', { details });
  const key = query.searchKey;
  const users = [...(related.get(user.uid) ?? [])]
    .map((other) => state.users.get(other))
    .filter((other): other is User => other !== undefined)
    .filter((other) => !key || matchesSearch(other, key))
    .sort(byUid)
    .map((other) => listed(other));
  return ok(pageOf(users, paging));
}

/** The user's friends; `searchKey` narrows them as it narrows the user list. */
export function listFriends(
  state: SandboxState,
  uid: string | undefined,
  query: Record<string, string>,
): SandboxResponse {
  return relatedPage(state, uid, state.friends, query);
}

/**
 * The users this user blocked (not those who blocked them). The notes document only the page
 * parameters here; a `searchKey` narrows it as it does the friends.
 */
export function listBlockedUsers(
  state: SandboxState,
  uid: string | undefined,
  query: Record<string, string>,
): SandboxResponse {
  return relatedPage(state, uid, state.blocked, query);
}
