import type { PermissionMap } from '../cometchat/schemas.ts';

/** The last full permission map CometChat returned for a role (from an update's response). */
export interface KnownPermissions {
  role: string;
  permissions: PermissionMap;
  /** Unix milliseconds when it was seen. */
  seenAt: number;
}

/**
 * The app's small durable state, behind one interface so that a single process can keep it in
 * memory and several replicas can share it.
 */
export interface Store {
  getKnownPermissions(role: string): Promise<KnownPermissions | undefined>;
  setKnownPermissions(known: KnownPermissions): Promise<void>;
  /**
   * Takes the claim `id` if nobody holds it; true for exactly one caller. This is what makes a
   * confirmation apply once, however often it is submitted.
   */
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  release(id: string): Promise<void>;
  close(): Promise<void>;
}

/** A store for one process: the default until a durable backend is configured. */
export function createMemoryStore(now: () => number = Date.now): Store {
  const known = new Map<string, KnownPermissions>();
  const claims = new Map<string, number>();
  return {
    async getKnownPermissions(role) {
      return known.get(role);
    },
    async setKnownPermissions(entry) {
      known.set(entry.role, structuredClone(entry));
    },
    async claim(id, ttlSeconds) {
      const expires = claims.get(id);
      if (expires !== undefined && expires > now()) return false;
      claims.set(id, now() + ttlSeconds * 1000);
      return true;
    },
    async release(id) {
      claims.delete(id);
    },
    async close() {},
  };
}
