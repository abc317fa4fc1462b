import { describe, expect, it } from 'vitest';
import { createSlackApp } from '../../src/app.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { openStore } from '../../src/store/open-store.ts';
import { type ApprovalRequest, createMemoryStore, type Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { CHANNEL, dmTo, ENV, request } from './approval-steps.ts';
import { type Harness, textOf } from './harness.ts';
import { useHarnessStarter } from './support.ts';

// A request nobody decides, through the real app: its approvers are reminded once in its thread
// (APPROVAL_REMINDER_MINUTES, an hour by default), by whichever replica's sweep comes first;
// when it expires, the requester is told by direct message. The sweeps are those of more
// instances of the app on the same store, their clocks set past the reminder or the expiry.

const MINUTE = 60_000;

/** The replies posted in the approval channel's threads. */
function reminders(h: Harness) {
  return h.slack.calls.filter(
    (c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL && c.args.thread_ts,
  );
}

/** Another instance of the app on `store`, its clock at `now`, for its periodic work. */
function replica(h: Harness, store: Store, now: number) {
  return createSlackApp({
    config: h.config,
    logger: h.logger,
    store,
    metrics: createMetrics({ defaultMetrics: false }),
    now: () => now,
  });
}

/** The one open request, as stored. */
async function openRequest(store: Store): Promise<ApprovalRequest> {
  const [open] = await store.listOpenApprovals();
  if (!open) throw new Error('no open request');
  return open;
}

describe('approval reminders', () => {
  const start = useHarnessStarter();

  it('reminds the approvers once in the thread, then tells the requester of the expiry', async () => {
    const store = createMemoryStore();
    const h = await start({ store, env: ENV });
    await request(h);
    const open = await openRequest(store);
    const log = h.logger.child({ component: 'sweep' });
    const sweepAt = (ms: number) => replica(h, store, open.requestedAt + ms).features.periodic(log);

    await sweepAt(59 * MINUTE);
    expect(reminders(h)).toEqual([]);
    for (const minute of [61, 62, 90]) await sweepAt(minute * MINUTE);
    const sent = reminders(h);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.args.thread_ts).toBe(open.ts);
    const text = textOf(sent[0]?.args);
    // The editors but the one who asked.
    expect(text).toContain(':bell: <@U0LEAD> <@U0LEAD2>: this request still waits');
    expect(text).not.toContain('<@U0OPERATOR> <@U0LEAD>');
    expect((await store.getApproval(open.id))?.remindedAt).toBe(open.requestedAt + 61 * MINUTE);

    await replica(h, store, open.expiresAt + MINUTE).features.periodic(log);
    expect((await store.getApproval(open.id))?.status).toBe('expired');
    const notice = await dmTo(h, 'U0OPERATOR', 'Expired');
    expect(notice).toContain(`Expired <!date^${Math.floor(open.expiresAt / 1000)}^`);
    expect(notice).toContain('nothing was sent. Ask again from the editor.');
    expect(reminders(h)).toHaveLength(1);
  });

  it('reminds no one of a request decided before its time', async () => {
    const store = createMemoryStore();
    const h = await start({ store, env: ENV });
    await request(h);
    const open = await openRequest(store);
    await store.putApproval({ ...open, status: 'rejected', decidedBy: 'U0LEAD' });
    await replica(h, store, open.requestedAt + 61 * MINUTE).features.periodic(h.logger);
    expect(reminders(h)).toEqual([]);
  });
});

describe.skipIf(skipRedisSuites)(
  'approval reminders on two replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const start = useHarnessStarter();

    it('reminds once when two replicas sweep at the same moment, and again', async () => {
      const h = await start({ env: { ...ENV, STORE_URL: redis().url } });
      await request(h);
      const stores = [await openStore(redis().url), await openStore(redis().url)];
      try {
        const open = await openRequest(stores[0] as Store);
        const at = open.requestedAt + 61 * MINUTE;
        const log = h.logger.child({ component: 'sweep' });
        const [a, b] = stores.map((store) => replica(h, store, at));
        await Promise.all([a?.features.periodic(log), b?.features.periodic(log)]);
        await Promise.all([a?.features.periodic(log), b?.features.periodic(log)]);
        expect(reminders(h)).toHaveLength(1);
        expect((await stores[1]?.getApproval(open.id))?.remindedAt).toBe(at);
      } finally {
        for (const store of stores) await store.close();
      }
    });
  },
);
