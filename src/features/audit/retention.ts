import type { Logger } from 'pino';
import type { AuditTrail } from '../../changes/index.ts';
import type { AuditRecord, Store } from '../../store/store.ts';

// AUDIT_RETENTION_DAYS: once a day, on one replica, the audit records older than the setting are
// removed, of every app; each app that lost some gets a record saying how many, and the cut-off
// (so the trail says itself what was taken from it). Unset, nothing is ever removed.

const DAY_MS = 86_400_000;
/** How often a prune under way stores its pending records again (as a long change does). */
export const KEEP_ALIVE_MS = 5_000;
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
    const pending = (await appsWithRecordsBefore(deps, before)).map((app) =>
      retentionRecord({ ref: refOf(app), at: now, app, before, days }),
    );
    for (const record of pending) await deps.store.putPending(record);
    removed = await whileKeptAlive(deps, pending, () => deps.store.pruneAudit(before));
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

/**
 * Runs the prune with its pending records stored again every KEEP_ALIVE_MS, with the time of
 * now: a long prune (Redis removes in batches) is not taken by the pending-record sweep for one a
 * stopped replica left, which would record it as unknown before its own record could be stored.
 */
async function whileKeptAlive<T>(
  deps: RetentionDeps,
  pending: readonly AuditRecord[],
  prune: () => Promise<T>,
): Promise<T> {
  let renewing: Promise<unknown> = Promise.resolve();
  const renew = () => {
    const renewals = pending.map((record) => deps.store.putPending({ ...record, at: deps.now() }));
    renewing = Promise.all(renewals).catch((error: unknown) => {
      deps.log.error({ err: error }, 'a long prune could not be kept alive');
    });
  };
  const timer = setInterval(renew, KEEP_ALIVE_MS);
  try {
    return await prune();
  } finally {
    clearInterval(timer);
    // Settled before the records replace the pending ones, so none is stored again after them.
    await renewing;
  }
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
