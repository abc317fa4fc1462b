import type { Logger } from 'pino';
import type { AuditTrail } from '../../changes/index.ts';
import type { AuditRecord, Store } from '../../store/store.ts';

// AUDIT_RETENTION_DAYS: once a day, on one replica, the audit records older than the setting are
// removed, of every app; each app that lost some gets a record saying how many, and the cut-off
// (so the trail says itself what was taken from it). Unset, nothing is ever removed.

const DAY_MS = 86_400_000;
/** A day's claim outlives the day: a replica whose clock is a little behind does not prune twice. */
const CLAIM_SECONDS = 2 * 86_400;
/** Who a retention record names as the requester: the setting, since no person asked. */
export const RETENTION_REQUESTER = 'AUDIT_RETENTION_DAYS';

export interface RetentionDeps {
  store: Pick<Store, 'claim' | 'release' | 'pruneAudit' | 'listAuditBetween' | 'putPending'>;
  audit: AuditTrail;
  now: () => number;
  /** AUDIT_RETENTION_DAYS; undefined: kept for ever. */
  days: number | undefined;
  /** The configured apps' names: each with records to remove gets a pending record first. */
  appNames: readonly string[];
  log: Logger;
}

/**
 * The record of a prune of one app's records; `removed` undefined while it is pending (the record
 * a prune the app stopped in becomes: how many went is not known). Pure.
 */
export function retentionRecord(fields: {
  ref: string;
  at: number;
  app: string;
  before: number;
  days: number;
  removed?: number | undefined;
}): AuditRecord {
  const { ref, at, app, before, days, removed } = fields;
  return {
    ref,
    at,
    app,
    teamId: '',
    userId: RETENTION_REQUESTER,
    role: '',
    changes: [],
    beforeSource: 'service',
    outcome: removed === undefined ? 'unknown' : 'applied',
    subject: { kind: 'retention', before, days, ...(removed === undefined ? {} : { removed }) },
  };
}

/**
 * Removes the records older than `days` once per UTC day across replicas (the day's claim), and
 * records what went. As every change does, it keeps a pending record of each app it is about to
 * prune before it removes anything, so that a stop in the middle (a Redis prune goes in batches)
 * still leaves the trail saying records may have gone. Returns how many were removed (0 when it
 * was not this replica's turn).
 */
export async function pruneTrail(deps: RetentionDeps): Promise<number> {
  const { days, log } = deps;
  if (days === undefined) return 0;
  const now = deps.now();
  const claim = `audit-retention:${Math.floor(now / DAY_MS)}`;
  if (!(await deps.store.claim(claim, CLAIM_SECONDS))) return 0;
  const before = now - days * DAY_MS;
  // One ref per app and day, not the job's: a prune tried again that day replaces the pending
  // record of the attempt that stopped, rather than leaving it to be swept as unknown.
  const day = new Date(now).toISOString().slice(0, 10);
  const refOf = (app: string) => `retention-${day}-${app}`;
  let removed: Map<string, number>;
  try {
    for (const app of await appsWithRecordsBefore(deps, before)) {
      await deps.store.putPending(retentionRecord({ ref: refOf(app), at: now, app, before, days }));
    }
    removed = await deps.store.pruneAudit(before);
  } catch (error) {
    // Another minute, or another replica, tries again today; a pending record left is swept.
    await deps.store.release(claim);
    throw error;
  }
  let total = 0;
  for (const [app, count] of removed) {
    total += count;
    const record = retentionRecord({ ref: refOf(app), at: now, app, before, days, removed: count });
    await deps.audit.record(record, log);
  }
  log.info(
    { event: 'audit_retention', removed: total, before: new Date(before).toISOString(), days },
    `audit records older than ${days} days removed: ${total}`,
  );
  return total;
}

/** The configured apps that have a record older than `before`: one record read each. */
async function appsWithRecordsBefore(deps: RetentionDeps, before: number): Promise<string[]> {
  const found: string[] = [];
  for (const app of deps.appNames) {
    const [oldest] = await deps.store.listAuditBetween({ app, from: 0, to: before, limit: 1 });
    if (oldest) found.push(app);
  }
  return found;
}
