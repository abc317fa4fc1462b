import type { Logger } from 'pino';
import type { AuditTrail } from '../../changes/index.ts';
import { currentRequest } from '../../request-context.ts';
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
  store: Pick<Store, 'claim' | 'release' | 'pruneAudit'>;
  audit: AuditTrail;
  now: () => number;
  /** AUDIT_RETENTION_DAYS; undefined: kept for ever. */
  days: number | undefined;
  log: Logger;
}

/** The record of a prune of one app's records. Pure. */
export function retentionRecord(fields: {
  ref: string;
  at: number;
  app: string;
  before: number;
  days: number;
  removed: number;
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
    outcome: 'applied',
    subject: { kind: 'retention', before, days, removed },
  };
}

/**
 * Removes the records older than `days` once per UTC day across replicas (the day's claim), and
 * records what went. Returns how many were removed (0 when it was not this replica's turn).
 */
export async function pruneTrail(deps: RetentionDeps): Promise<number> {
  const { days, log } = deps;
  if (days === undefined) return 0;
  const now = deps.now();
  const claim = `audit-retention:${Math.floor(now / DAY_MS)}`;
  if (!(await deps.store.claim(claim, CLAIM_SECONDS))) return 0;
  const before = now - days * DAY_MS;
  let removed: Map<string, number>;
  try {
    removed = await deps.store.pruneAudit(before);
  } catch (error) {
    // Another minute, or another replica, tries again today.
    await deps.store.release(claim);
    throw error;
  }
  let total = 0;
  for (const [app, count] of removed) {
    total += count;
    const ref = `${currentRequest().ref}-${app}`;
    await deps.audit.record(
      retentionRecord({ ref, at: now, app, before, days, removed: count }),
      log,
    );
  }
  log.info(
    { event: 'audit_retention', removed: total, before: new Date(before).toISOString(), days },
    `audit records older than ${days} days removed: ${total}`,
  );
  return total;
}
