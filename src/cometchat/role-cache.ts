import { createTtlCache } from '../ttl-cache.ts';
import type { CometChatClient } from './client.ts';
import type { Role, RolePage } from './model.ts';

/**
 * A short-lived cache of the role list in front of the client. Roles change rarely (an app has
 * at most 25), while the list is asked for on every page click and every editor opening;
 * caching it makes those cost what `help` costs. Calls are never cached: a live call changes
 * by the second. A change applied through the editor clears the cache at once; another
 * replica's cache may show the old list for up to `ttlMs`.
 *
 * How many users hold a role is kept as briefly: the role list and the editor's review show it
 * for every role they name, and a person reading "about 40 users" needs no fresher figure. A
 * change of a user's role or account clears the counts.
 */
export interface CachedCometChatClient extends CometChatClient {
  invalidateRoles(): void;
}

/**
 * Pages and whole lists kept at once. An app has at most 25 roles, so a handful of pages per
 * page size; the bound only matters if callers vary the page size.
 */
const MAX_ENTRIES = 50;

export function withRoleCache(
  client: CometChatClient,
  options: { ttlMs: number; now?: () => number },
): CachedCometChatClient {
  const settings = { max: MAX_ENTRIES, ttlMs: options.ttlMs, now: options.now };
  // Concurrent asks share one request; a failure is never cached (see createTtlCache).
  const pages = createTtlCache<RolePage>(settings);
  const lists = createTtlCache<Role[]>(settings);
  const counts = createTtlCache<number>(settings);
  const clear = () => {
    pages.clear();
    lists.clear();
  };
  // A change to roles clears the lists, one to users the counts: whatever its outcome.
  const clearingRoles = clearingAfter(clear);
  const clearingCounts = clearingAfter(() => counts.clear());

  return {
    // What is not cached goes straight to the client (its methods are arrows: they travel).
    ...client,
    listRoles: (query = {}) =>
      pages.get(`${query.page ?? 1}:${query.perPage ?? ''}`, () => client.listRoles(query)),
    listAllRoles: (options) => {
      if (options?.fresh) clear();
      return lists.get(`${options?.perPage ?? ''}`, () => client.listAllRoles(options));
    },
    setRolePermissions: clearingRoles(client.setRolePermissions),
    unsetRolePermission: clearingRoles(client.unsetRolePermission),
    createRole: clearingRoles(client.createRole),
    updateRole: clearingRoles(client.updateRole),
    // Its users now hold another role: their counts go too.
    deleteRole: clearingRoles(clearingCounts(client.deleteRole)),
    countUsersWithRole: (role, options) =>
      counts.get(`${role}:${options?.withDeactivated ?? false}`, () =>
        client.countUsersWithRole(role, options),
      ),
    setUserRole: clearingCounts(client.setUserRole),
    deactivateUsers: clearingCounts(client.deactivateUsers),
    reactivateUsers: clearingCounts(client.reactivateUsers),
    invalidateRoles: clear,
  };
}

/** `send`, followed by `clear` once it settled, whatever its outcome. */
function clearingAfter(clear: () => void) {
  return <A extends unknown[], R>(send: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await send(...args);
      } finally {
        clear();
      }
    };
}
