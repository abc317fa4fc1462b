import { describe, expect, it } from 'vitest';
import { confirm } from '../../offline/stack/editor-steps.ts';
import { NOT_SENT } from '../../src/changes/apply.ts';
import { UNKNOWN_OUTCOME } from '../../src/changes/record.ts';
import { type AuditRecord, createMemoryStore } from '../../src/store/store.ts';
import { textOf } from './harness.ts';
import { puts, reviewFlip, useHarnessStarter } from './support.ts';

// The audit trail no crash can lose, through the real app: an update is sent only after its
// intent is stored, and an intent left by a run that stopped becomes a record at the next start.

const pendingOf = (ref: string, at: number): AuditRecord => ({
  ref,
  at,
  app: 'default',
  teamId: 'T0STANDIN',
  userId: 'U0OPERATOR',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'defaults',
  outcome: 'unknown',
  serviceMessage: UNKNOWN_OUTCOME,
});

describe('audit intents', () => {
  const start = useHarnessStarter();

  it('records, at start-up, an update that was in flight when the last run stopped, and posts it', async () => {
    const store = createMemoryStore();
    // Older than twice the CometChat budget (8 s): its request is long over.
    await store.putPending(pendingOf('crashed0001', Date.now() - 60_000));
    // Younger: another replica's update may still be in flight; it is left alone.
    await store.putPending(pendingOf('inflight001', Date.now() - 1_000));
    const h = await start({ store, env: { AUDIT_CHANNEL: 'C0AUDIT' } });
    const post = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0AUDIT'),
    );
    expect(textOf(post.args)).toContain('outcome unknown');
    expect(textOf(post.args)).toContain('crashed0001');
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records.map((r) => [r.ref, r.outcome])).toEqual([['crashed0001', 'unknown']]);
    expect((await store.listPending(Number.POSITIVE_INFINITY)).map((r) => r.ref)).toEqual([
      'inflight001',
    ]);
  });

  it('sends nothing, and says so, when the intent cannot be stored', async () => {
    const store = createMemoryStore();
    store.putPending = async () => {
      throw new Error('store unreachable');
    };
    const h = await start({ store });
    const { confirmation } = await reviewFlip(h);
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain(NOT_SENT.slice(0, 40));
    expect(textOf(outcome)).toMatch(/ref [0-9a-f]{10}/);
    expect(puts(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
  });

  it('leaves no intent behind an answered update', async () => {
    const store = createMemoryStore();
    const h = await start({ store });
    const { confirmation } = await reviewFlip(h);
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(puts(h)).toHaveLength(1);
    expect(await store.listPending(Number.POSITIVE_INFINITY)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).records[0]?.outcome).toBe('applied');
  });
});
