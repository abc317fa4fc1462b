import { describe, expect, it } from 'vitest';
import type { AuditTrail } from '../../../src/changes/record.ts';
import { sweepPending } from '../../../src/features/audit/pending-sweep.ts';
import { createLogger } from '../../../src/log.ts';
import { type AuditRecord, createMemoryStore } from '../../../src/store/store.ts';
import { LogCapture } from '../../log-capture.ts';

// The sweep on its own: a memory store, a recording audit trail, a fixed clock.

const NOW = 1_800_000_000_000;

const intent = (ref: string, at: number): AuditRecord => ({
  ref,
  at,
  app: 'prod',
  teamId: 'T1',
  userId: 'U1',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'defaults',
  outcome: 'unknown',
  serviceMessage: 'unknown: the app stopped while the update was in flight; check the role',
});

function setup(stored = true) {
  const store = createMemoryStore(() => NOW);
  const recorded: AuditRecord[] = [];
  const audit: AuditTrail = {
    async record(record) {
      recorded.push(record);
      if (stored) await store.appendAudit(record);
      return { stored };
    },
  };
  const logs = new LogCapture();
  const deps = {
    store,
    audit,
    now: () => NOW,
    afterMs: 16_000,
    log: createLogger({ level: 'debug', destination: logs }),
  };
  return { store, recorded, deps, logs };
}

describe('sweepPending', () => {
  it('records the intents that outlived their request, and leaves younger ones', async () => {
    const { store, recorded, deps, logs } = setup();
    await store.putPending(intent('old', NOW - 20_000));
    await store.putPending(intent('young', NOW - 5_000));
    expect(await sweepPending(deps)).toBe(1);
    expect(recorded.map((r) => [r.ref, r.outcome])).toEqual([['old', 'unknown']]);
    expect((await store.listPending(Number.POSITIVE_INFINITY)).map((r) => r.ref)).toEqual([
      'young',
    ]);
    expect(
      logs.records().some((r) => r.cometchat_ops.ref === 'old' && r.log.level === 'warn'),
    ).toBe(true);
    // Nothing left to do: a second sweep records nothing twice.
    expect(await sweepPending(deps)).toBe(0);
  });

  it('records an intent once when two replicas sweep at the same moment', async () => {
    const { store, recorded, deps } = setup();
    await store.putPending(intent('old', NOW - 60_000));
    await Promise.all([sweepPending(deps), sweepPending(deps)]);
    expect(recorded).toHaveLength(1);
  });

  it('tries again next time when the record could not be stored', async () => {
    const failing = setup(false);
    await failing.store.putPending(intent('old', NOW - 60_000));
    expect(await sweepPending(failing.deps)).toBe(0);
    expect(await failing.store.listPending(NOW)).toHaveLength(1);
    // The claim was let go: a later sweep (here one whose store works again) records it.
    failing.deps.audit = {
      async record(record) {
        await failing.store.appendAudit(record);
        return { stored: true };
      },
    };
    expect(await sweepPending(failing.deps)).toBe(1);
  });
});
