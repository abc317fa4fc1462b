import type { CometChatClient } from './client.ts';
import type { Role, RolePage } from './model.ts';

/**
 * A short-lived cache of the role list in front of the client. Roles change rarely (an app has
 * at most 25), while the list is asked for on every page click and every editor opening;
 * caching it makes those cost what `help` costs. Calls are never cached: a live call changes
 * by the second. A change applied through the editor clears the cache at once; another
 * replica's cache may show the old list for up to `ttlMs`.
 */
export interface CachedCometChatClient extends CometChatClient {
  invalidateRoles(): void;
}

export function withRoleCache(
  client: CometChatClient,
  options: { ttlMs: number; now?: () => number },
): CachedCometChatClient {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: Promise<RolePage | Role[]>; expires: number }>();

  // Concurrent asks share one request; a failure is never cached.
  function cached<T extends RolePage | Role[]>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = entries.get(key);
    if (hit && hit.expires > now()) return hit.value as Promise<T>;
    const value = load();
    entries.set(key, { value, expires: now() + options.ttlMs });
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    return value;
  }

  return {
    listRoles: (query = {}, request) =>
      cached(`page:${query.page ?? 1}:${query.perPage ?? ''}`, () =>
        client.listRoles(query, request),
      ),
    listAllRoles: (request) =>
      cached(`all:${request?.perPage ?? ''}`, () => client.listAllRoles(request)),
    setRolePermissions: async (role, permissions, request) => {
      try {
        return await client.setRolePermissions(role, permissions, request);
      } finally {
        entries.clear();
      }
    },
    getCall: (sessionId, request) => client.getCall(sessionId, request),
    invalidateRoles: () => entries.clear(),
  };
}
