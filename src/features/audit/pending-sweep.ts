import type { Logger } from 'pino';
import type { AuditTrail } from '../../changes/index.ts';
import type { Store } from '../../store/store.ts';

// An update is never sent without its pending record stored first (see applyChange); the answer's record
// ends the pending record. A pending record still there long after the answer's latest time belongs to an app
// that stopped while the update was in flight: it becomes its record, outcome `unknown`, so that
// no crash loses the record of a change that may have reached CometChat.

/** How long a claim on a pending record is held: one replica records it, the others leave it. */
const SWEEP_CLAIM_SECONDS = 60 * 60;

export interface SweepDeps {
  store: Pick<Store, 'listPending' | 'claim' | 'release'>;
  audit: AuditTrail;
  now: () => number;
  /**
   * A pending record older than this has outlived its request: the client gives up within its budget
   * and the record follows at once, so twice the budget leaves the answer a whole budget's room.
   */
  afterMs: number;
  log: Logger;
}

/** Turns every pending record that outlived its request into its record. Returns how many it recorded. */
export async function sweepPending(deps: SweepDeps): Promise<number> {
  const stale = await deps.store.listPending(deps.now() - deps.afterMs);
  let recorded = 0;
  for (const pending of stale) {
    // Several replicas may sweep at once: the claim picks the one that records it.
    if (!(await deps.store.claim(`intent:${pending.ref}`, SWEEP_CLAIM_SECONDS))) continue;
    deps.log.warn(
      { ref: pending.ref, app: pending.app, role: pending.role, user: pending.userId },
      'an update was in flight when the app stopped: recorded with an unknown outcome',
    );
    const { stored } = await deps.audit.record(pending, deps.log);
    if (stored) recorded += 1;
    // Not stored: the pending record is still there; the next sweep tries again.
    else await deps.store.release(`intent:${pending.ref}`);
  }
  return recorded;
}
