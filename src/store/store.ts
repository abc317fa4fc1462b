import type { PermissionMap, PermissionValue } from '../cometchat/schemas.ts';

/**
 * The CometChat app of every record written before the store knew of apps, and the app of a
 * configuration that names none.
 */
export const DEFAULT_APP = 'default';

/** The last full permission map an app's CometChat returned for a role (from an update). */
export interface KnownPermissions {
  /** The CometChat app's configured name. */
  app: string;
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
  /** The CometChat app's configured name. */
  app: string;
  teamId: string;
  userId: string;
  role: string;
  changes: AuditChange[];
  /** Where the "before" values came from: the last update response seen, or the defaults. */
  beforeSource: 'last-update' | 'defaults';
  /** `unknown`: the app stopped while the update was in flight (from an intent; see putIntent). */
  outcome: 'applied' | 'failed' | 'unknown';
  /** The service's per-key messages (applied) or its error message (failed). */
  serviceMessage?: string | undefined;
  /** The failure kind (`unavailable`, `timeout`, ...) when the outcome is `failed`. */
  errorKind?: string | undefined;
  /** For a change promoted from another app: the `ref` of that app's record of the change. */
  promotedFrom?: string | undefined;
  /** For a change approved by a second person: who, when, and the request's reason and time. */
  approval?: AuditApproval | undefined;
}

/** The approval behind a change (`userId` of its record is the person who asked). */
export interface AuditApproval {
  approvedBy: string;
  /** Unix milliseconds. */
  approvedAt: number;
  requestedAt: number;
  reason?: string | undefined;
}

/** Where an approval request stands; only `open` can still be approved or rejected. */
export type ApprovalStatus =
  | 'open'
  | 'applied'
  | 'failed'
  | 'unknown'
  | 'rejected'
  | 'expired'
  | 'stale';

/**
 * A change waiting for a second person (APPROVAL_CHANNEL): exactly what will be sent, against
 * which last known permissions it was reviewed, who asked and why, and what became of it.
 */
export interface ApprovalRequest {
  /** The change's id (as a confirmation's): its claim makes the approval apply at most once. */
  id: string;
  app: string;
  role: string;
  changes: AuditChange[];
  /** When the "before" values were seen; a newer update of the role makes the request stale. */
  seenAt?: number | undefined;
  /** The ref of the change this one was promoted from, if any. */
  promotedFrom?: string | undefined;
  teamId: string;
  requester: string;
  reason?: string | undefined;
  /** Unix milliseconds. */
  requestedAt: number;
  expiresAt: number;
  /** Where the request was posted, and its message (`ts`) once posted. */
  channel: string;
  ts?: string | undefined;
  status: ApprovalStatus;
  /** Who approved (applied, failed) or rejected it, when, and why (a rejection). */
  decidedBy?: string | undefined;
  decidedAt?: number | undefined;
  rejectReason?: string | undefined;
  /** The ref of the attempt that applied it (its audit record's). */
  ref?: string | undefined;
}

export interface AuditPage {
  records: AuditRecord[];
  total: number;
}

/**
 * The app's small durable state, behind one interface so that a single process can keep it in
 * memory or a file, and several replicas can share it (Redis). Known permissions and audit
 * records belong to one CometChat app (its configured name: lower-case letters, digits and `-`);
 * what an earlier version stored reads as `DEFAULT_APP`.
 */
export interface Store {
  getKnownPermissions(app: string, role: string): Promise<KnownPermissions | undefined>;
  /** Replaces what is known of `known.role` in `known.app`. */
  setKnownPermissions(known: KnownPermissions): Promise<void>;
  /**
   * Takes the claim `id` if nobody holds it; true for exactly one caller, across replicas too.
   * This is what makes a confirmation apply once, however often it is submitted. Ids are opaque
   * and shared by every app: a caller makes them unique per app (by hashing the app into them).
   */
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  release(id: string): Promise<void>;
  /**
   * Adds a record; a record with a `ref` already stored replaces nothing and is ignored. Either
   * way the intent of that `ref` is gone with it, in the same step.
   */
  appendAudit(record: AuditRecord): Promise<void>;
  /**
   * Keeps, before an update is sent, the record it becomes if the app stops before the answer
   * (outcome `unknown`), under the attempt's `ref`. The answer's record replaces it (appendAudit);
   * one left behind is turned into its record by the intent sweep.
   */
  putIntent(record: AuditRecord): Promise<void>;
  /** Intents whose `at` (Unix ms) is before `before`, oldest first. */
  listIntents(before: number): Promise<AuditRecord[]>;
  /** Creates or replaces an approval request (by `id`). */
  putApproval(request: ApprovalRequest): Promise<void>;
  getApproval(id: string): Promise<ApprovalRequest | undefined>;
  /** Requests still `open` (expired ones included until marked), oldest first. */
  listOpenApprovals(): Promise<ApprovalRequest[]>;
  /** Newest first; `app` narrows to one app, `role` to one role (of every app, or of `app`). */
  listAudit(query: {
    app?: string | undefined;
    role?: string | undefined;
    offset: number;
    limit: number;
  }): Promise<AuditPage>;
  /**
   * Rejects unless the store can be written now (readiness): a small write on SQLite, a PING on
   * Redis. Cheap enough for every /readyz.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A store for one process, kept in memory (tests, and the offline try). */
export function createMemoryStore(now: () => number = Date.now): Store {
  // Keyed by [app, role] as JSON: no separator can be confused with part of a name.
  const known = new Map<string, KnownPermissions>();
  const knownKey = (app: string, role: string) => JSON.stringify([app, role]);
  const claims = new Map<string, number>();
  const audit: AuditRecord[] = [];
  const intents = new Map<string, AuditRecord>();
  const approvals = new Map<string, ApprovalRequest>();
  return {
    async getKnownPermissions(app, role) {
      const entry = known.get(knownKey(app, role));
      return entry ? structuredClone(entry) : undefined;
    },
    async setKnownPermissions(entry) {
      known.set(knownKey(entry.app, entry.role), structuredClone(entry));
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
      intents.delete(record.ref);
      if (audit.some((r) => r.ref === record.ref)) return;
      audit.push(structuredClone(record));
    },
    async putIntent(record) {
      intents.set(record.ref, structuredClone(record));
    },
    async listIntents(before) {
      return structuredClone(
        [...intents.values()].filter((r) => r.at < before).sort((a, b) => a.at - b.at),
      );
    },
    async putApproval(request) {
      approvals.set(request.id, structuredClone(request));
    },
    async getApproval(id) {
      const request = approvals.get(id);
      return request ? structuredClone(request) : undefined;
    },
    async listOpenApprovals() {
      return structuredClone(
        [...approvals.values()]
          .filter((r) => r.status === 'open')
          .sort((a, b) => a.requestedAt - b.requestedAt),
      );
    },
    async listAudit({ app, role, offset, limit }) {
      const matching = audit
        .filter(
          (r) => (app === undefined || r.app === app) && (role === undefined || r.role === role),
        )
        .sort((a, b) => b.at - a.at || b.ref.localeCompare(a.ref));
      return {
        records: structuredClone(matching.slice(offset, offset + limit)),
        total: matching.length,
      };
    },
    async ping() {},
    async close() {},
  };
}
