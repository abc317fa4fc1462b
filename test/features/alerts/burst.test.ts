import { describe, expect, it } from 'vitest';
import {
  type BurstGate,
  type BurstStep,
  createBurstGate,
  createCountMessage,
  POSTS_PER_WINDOW,
  type SlackCountSend,
  UPDATE_EVERY_MS,
  WINDOW_MS,
} from '../../../src/features/alerts/burst.ts';
import { createMemoryStore } from '../../../src/store/store.ts';

/** A send that is never made: the gate's tests only look at which step comes. */
const idle = (): Promise<string | undefined> => Promise.resolve(undefined);

describe('a burst of alerts in one channel', () => {
  it('posts a few, then counts the rest in one message, per channel and per minute', async () => {
    const gate = createBurstGate(createMemoryStore());
    const steps: BurstStep[] = [];
    for (let i = 0; i < 6; i += 1) steps.push(await gate.next('C1', 1_000 + i, idle));
    expect(steps.slice(0, POSTS_PER_WINDOW)).toEqual(
      Array(POSTS_PER_WINDOW).fill({ kind: 'post' }),
    );
    const counts = steps.slice(POSTS_PER_WINDOW);
    expect(counts.map((step) => step.kind)).toEqual(['count', 'count', 'count']);
    // One count message for the window, whichever alert asks.
    const [first, ...rest] = counts;
    for (const step of rest) expect(step).toStrictEqual(first);
    // Another channel has its own window; a minute later the first starts again.
    expect(await gate.next('C2', 1_010, idle)).toEqual({ kind: 'post' });
    expect(await gate.next('C1', 1_000 + WINDOW_MS, idle)).toEqual({ kind: 'post' });
  });

  it('forgets the oldest count message past its bound, but not the count, which the store keeps', async () => {
    const gate = createBurstGate(createMemoryStore(), { maxChannels: 2 });
    for (let i = 0; i < 4; i += 1) await gate.next('C1', 0, idle);
    const kept = await gate.next('C1', 0, idle);
    if (kept.kind !== 'count') throw new Error('not counted');
    // Two more channels with count messages of their own.
    for (let i = 0; i < 4; i += 1) {
      await gate.next('C2', 1, idle);
      await gate.next('C3', 1, idle);
    }
    // C1's window goes on in the store: still counted, in a message handle made again.
    const again = await gate.next('C1', 2, idle);
    if (again.kind !== 'count') throw new Error('not counted');
    expect(again.message).not.toBe(kept.message);
  });
});

/** A Slack channel that keeps what its count messages say, and fails the calls asked to. */
function countingSlack() {
  const messages = new Map<string, number>();
  const calls: { count: number; ts: string | undefined }[] = [];
  let refuse = 0;
  const send = async (count: number, ts: string | undefined) => {
    calls.push({ count, ts });
    if (refuse > 0) {
      refuse -= 1;
      throw new Error('slack said no');
    }
    const at = ts ?? `171.${messages.size + 1}`;
    messages.set(at, count);
    return at;
  };
  return { messages, calls, send, refuseNext: (n: number) => (refuse = n) };
}

/**
 * Two or three replicas' gates on one store, their timers run at once: the store's clock moves
 * on by each timer's wait instead (the claims between updates expire by it).
 */
function replicas(n: number) {
  return replicasWithClock(n).gates;
}

function replicasWithClock(n: number) {
  let clock = 0;
  const store = createMemoryStore(() => clock);
  const gates = Array.from({ length: n }, (_, i) =>
    createBurstGate(store, {
      replica: `r${i}`,
      schedule: (run, ms) => {
        clock += ms;
        queueMicrotask(run);
      },
      pause: () => new Promise((resolve) => setImmediate(resolve)),
    }),
  );
  return { gates, now: () => clock };
}

/** A burst of `alerts` spread across the gates in turn; answers what each alert became. */
async function burst(gates: BurstGate[], alerts: number, send: SlackCountSend) {
  return Promise.allSettled(
    Array.from({ length: alerts }, async (_, i) => {
      const gate = gates[i % gates.length];
      if (!gate) throw new Error('no gate');
      const step = await gate.next('C1', 1_000 + i, send);
      if (step.kind === 'count') await step.message.add();
      return step.kind;
    }),
  );
}

describe('a burst across replicas sharing a store', () => {
  it.each([1, 2, 3])(
    'posts what one replica would, with %i replicas: a few, then one count',
    async (n) => {
      const slack = countingSlack();
      const results = await burst(replicas(n), 30, slack.send);
      const kinds = results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'));
      expect(kinds.filter((k) => k === 'post')).toHaveLength(POSTS_PER_WINDOW);
      expect(kinds.filter((k) => k === 'count')).toHaveLength(30 - POSTS_PER_WINDOW);
      // One count message, posted once, that ends saying every alert it counts.
      expect(slack.calls.filter((c) => c.ts === undefined)).toHaveLength(1);
      expect([...slack.messages.values()]).toEqual([30 - POSTS_PER_WINDOW]);
    },
  );

  it('updates the one message at most once per wait among all replicas', async () => {
    const { gates, now } = replicasWithClock(3);
    const updatedAt: number[] = [];
    const slack = countingSlack();
    const send: SlackCountSend = (count, ts) => {
      if (ts !== undefined) updatedAt.push(now());
      return slack.send(count, ts);
    };
    await burst(gates, 30, send);
    expect([...slack.messages.values()]).toEqual([30 - POSTS_PER_WINDOW]);
    expect(updatedAt.length).toBeGreaterThan(1);
    for (let i = 1; i < updatedAt.length; i += 1) {
      expect((updatedAt[i] ?? 0) - (updatedAt[i - 1] ?? 0)).toBeGreaterThanOrEqual(UPDATE_EVERY_MS);
    }
  });

  it("never shows another replica's alert before that replica's update was accepted", async () => {
    const slack = countingSlack();
    const [one, two] = replicas(2);
    if (!one || !two) throw new Error('no gates');
    for (let i = 0; i < POSTS_PER_WINDOW; i += 1) await one.next('C1', i, slack.send);
    const first = await one.next('C1', 10, slack.send);
    if (first.kind !== 'count') throw new Error('not counted');
    await first.message.add();
    expect([...slack.messages.values()]).toEqual([1]);
    // The second replica's update is refused: its alert fails, to be tried again, and the
    // message keeps saying 1 (the first replica's next update says 2, not 3).
    const refused = await two.next('C1', 11, slack.send);
    if (refused.kind !== 'count') throw new Error('not counted');
    slack.refuseNext(1);
    await expect(refused.message.add()).rejects.toThrow('slack said no');
    expect([...slack.messages.values()]).toEqual([1]);
    await first.message.add();
    expect([...slack.messages.values()]).toEqual([2]);
  });

  it('posts the count message again on another replica when its first post was refused', async () => {
    const slack = countingSlack();
    const [one, two] = replicas(2);
    if (!one || !two) throw new Error('no gates');
    for (let i = 0; i < POSTS_PER_WINDOW; i += 1) await one.next('C1', i, slack.send);
    const lost = await one.next('C1', 10, slack.send);
    if (lost.kind !== 'count') throw new Error('not counted');
    slack.refuseNext(1);
    await expect(lost.message.add()).rejects.toThrow('slack said no');
    const again = await two.next('C1', 11, slack.send);
    if (again.kind !== 'count') throw new Error('not counted');
    await again.message.add();
    expect(slack.calls.map((c) => c.ts)).toEqual([undefined, undefined]);
    expect([...slack.messages.values()]).toEqual([1]);
  });
});

/** A count message whose sends the test answers, and whose timer the test runs. */
function handCount() {
  const sends: { count: number; ts: string | undefined; answer: (ok: boolean) => void }[] = [];
  const timers: (() => void)[] = [];
  const message = createCountMessage({
    send: (count, ts) =>
      new Promise((resolve, reject) => {
        sends.push({
          count,
          ts,
          answer: (ok) => (ok ? resolve(ts ?? '171.1') : reject(new Error('slack said no'))),
        });
      }),
    schedule: (run) => timers.push(run),
  });
  return { message, sends, timers };
}

/** Settled state of each promise, without waiting for the unsettled ones. */
async function states(promises: Promise<void>[]): Promise<string[]> {
  const seen = promises.map(() => 'waiting');
  promises.forEach((p, i) => {
    p.then(
      () => {
        seen[i] = 'done';
      },
      () => {
        seen[i] = 'failed';
      },
    );
  });
  await new Promise((resolve) => setImmediate(resolve));
  return seen;
}

describe('the count message', () => {
  it('posts at once, then updates once per wait with the latest count; each alert is done once shown', async () => {
    const { message, sends, timers } = handCount();
    const first = message.add();
    expect(sends.map((s) => [s.count, s.ts])).toEqual([[1, undefined]]);
    const more = [message.add(), message.add()];
    sends[0]?.answer(true);
    expect(await states([first, ...more])).toEqual(['done', 'waiting', 'waiting']);
    // The two that came meanwhile go in one update, after the wait.
    expect(timers).toHaveLength(1);
    more.push(message.add());
    timers.shift()?.();
    expect(sends.map((s) => [s.count, s.ts])).toEqual([
      [1, undefined],
      [4, '171.1'],
    ]);
    sends[1]?.answer(true);
    expect(await states(more)).toEqual(['done', 'done', 'done']);
  });

  it('fails the alerts an update was to count when Slack refuses it, and counts only what Slack shows', async () => {
    const { message, sends, timers } = handCount();
    const first = message.add();
    sends[0]?.answer(true);
    expect(await states([first])).toEqual(['done']);
    const lost = [message.add(), message.add()];
    timers.shift()?.();
    expect(sends[1]?.count).toBe(3);
    sends[1]?.answer(false);
    expect(await states(lost)).toEqual(['failed', 'failed']);
    // The next alert is counted after what Slack shows (1), not after the refused 3.
    const next = message.add();
    timers.shift()?.();
    expect(sends[2]?.count).toBe(2);
    sends[2]?.answer(true);
    expect(await states([next])).toEqual(['done']);
  });

  it('posts the message again when its first post was refused', async () => {
    const { message, sends } = handCount();
    const first = message.add();
    sends[0]?.answer(false);
    expect(await states([first])).toEqual(['failed']);
    const again = message.add();
    expect(sends[1]).toMatchObject({ count: 1, ts: undefined });
    sends[1]?.answer(true);
    expect(await states([again])).toEqual(['done']);
  });
});
