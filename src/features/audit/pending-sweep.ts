import type { Logger } from 'pino';
import type { AuditTrail } from '../../changes/index.ts';
import type { Store } from '../../store/store.ts';

// An update is never sent without its intent stored first (see applyChange); the answer's record
// ends the intent. An intent still there long after the answer's latest time belongs to an app
// that stopped while the update was in flight: it becomes its record, outcome `unknown`, so that
// no crash loses the record of a change that may have reached CometChat.

/** How long a claim on an intent is held: one replica records it, the others leave it. */
const SWEEP_CLAIM_SECONDS = 60 * 60;

export interface SweepDeps {
  store: Pick<Store, 'listPending' | 'claim' | 'release'>;
  audit: AuditTrail;
  now: () => number;
  /**
   * An intent older than this has outlived its request: the client gives up within its budget
   * and the record follows at once, so twice the budget leaves the answer a whole budget's room.
   */
  afterMs: number;
  log: Logger;
}

/** Turns every intent that outlived its request into its record. Returns how many it recorded. */
export async function sweepPending(deps: SweepDeps): Promise<number> {
  const stale = await deps.store.listPending(deps.now() - deps.afterMs);
  let recorded = 0;
  for (const intent of stale) {
    // Several replicas may sweep at once: the claim picks the one that records it.
    if (!(await deps.store.claim(`intent:${intent.ref}`, SWEEP_CLAIM_SECONDS))) continue;
    deps.log.warn(
      { ref: intent.ref, app: intent.app, role: intent.role, user: intent.userId },
      'an update was in flight when the app stopped: recorded with an unknown outcome',
    );
    const { stored } = await deps.audit.record(intent, deps.log);
    if (stored) recorded += 1;
    // Not stored: the intent is still there; the next sweep tries again.
    else await deps.store.release(`intent:${intent.ref}`);
  }
  return recorded;
}
