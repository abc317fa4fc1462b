import type { PermissionMap, PermissionValue } from '../cometchat/schemas.ts';

/** The last full permission map CometChat returned for a role (from an update's response). */
export interface KnownPermissions {
  role: string;
  permissions: PermissionMap;
  /** Unix milliseconds when it was seen. */
  seenAt: number;
}

export interface AuditChange {
  key: string;
  /** The value before, as far as known (see `beforeSource`); null when not set. */
  before: PermissionValue;
  after: PermissionValue;
  /** Sent although it equals the shown value, because the user asked to state it. */
  explicit: boolean;
}

/** One attempted permission change, applied or not. */
export interface AuditRecord {
  /** The request's reference id: unique, shown to the user, in every log line of the attempt. */
  ref: string;
  /** Unix milliseconds. */
  at: number;
  teamId: string;
  userId: string;
  role: string;
  changes: AuditChange[];
  /** Where the "before" values came from: the last update response seen, or the defaults. */
  beforeSource: 'last-update' | 'defaults';
  outcome: 'applied' | 'failed';
  /** The service's per-key messages (applied) or its error message (failed). */
  serviceMessage?: string | undefined;
  /** The failure kind (`unavailable`, `timeout`, ...) when the outcome is `failed`. */
  errorKind?: string | undefined;
}

export interface AuditPage {
  records: AuditRecord[];
  total: number;
}

/**
 * The app's small durable state, behind one interface so that a single process can keep it in
 * memory or a file, and several replicas can share it (Redis).
 */
export interface Store {
  getKnownPermissions(role: string): Promise<KnownPermissions | undefined>;
  setKnownPermissions(known: KnownPermissions): Promise<void>;
  /**
   * Takes the claim `id` if nobody holds it; true for exactly one caller, across replicas too.
   * This is what makes a confirmation apply once, however often it is submitted.
   */
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  release(id: string): Promise<void>;
  /** Adds a record; a record with a `ref` already stored replaces nothing and is ignored. */
  appendAudit(record: AuditRecord): Promise<void>;
  /** Newest first; `role` narrows to one role. */
  listAudit(query: {
    role?: string | undefined;
    offset: number;
    limit: number;
  }): Promise<AuditPage>;
  close(): Promise<void>;
}

/** A store for one process, kept in memory (tests, and the offline try). */
export function createMemoryStore(now: () => number = Date.now): Store {
  const known = new Map<string, KnownPermissions>();
  const claims = new Map<string, number>();
  const audit: AuditRecord[] = [];
  return {
    async getKnownPermissions(role) {
      const entry = known.get(role);
      return entry ? structuredClone(entry) : undefined;
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
    async appendAudit(record) {
      if (audit.some((r) => r.ref === record.ref)) return;
      audit.push(structuredClone(record));
    },
    async listAudit({ role, offset, limit }) {
      const matching = audit
        .filter((r) => role === undefined || r.role === role)
        .sort((a, b) => b.at - a.at || b.ref.localeCompare(a.ref));
      return {
        records: structuredClone(matching.slice(offset, offset + limit)),
        total: matching.length,
      };
    },
    async close() {},
  };
}
