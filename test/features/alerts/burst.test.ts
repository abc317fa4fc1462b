import { describe, expect, it } from 'vitest';
import {
  type CountMessage,
  createBurstGate,
  createCountMessage,
  POSTS_PER_WINDOW,
  WINDOW_MS,
} from '../../../src/features/alerts/burst.ts';

/** A count message that is never sent: the gate's tests only look at which step comes. */
const idle = (): CountMessage => ({ add: () => Promise.resolve() });

describe('a burst of alerts in one channel', () => {
  it('posts a few, then counts the rest in one message, per channel and per minute', () => {
    const gate = createBurstGate();
    const steps = Array.from({ length: 6 }, (_, i) => gate.next('C1', 1_000 + i, idle));
    expect(steps.slice(0, POSTS_PER_WINDOW)).toEqual(
      Array(POSTS_PER_WINDOW).fill({ kind: 'post' }),
    );
    const counts = steps.slice(POSTS_PER_WINDOW);
    expect(counts.map((step) => step.kind)).toEqual(['count', 'count', 'count']);
    // One count message for the window, whichever alert asks.
    const [first, ...rest] = counts;
    for (const step of rest) expect(step).toStrictEqual(first);
    // Another channel has its own window; a minute later the first starts again.
    expect(gate.next('C2', 1_010, idle)).toEqual({ kind: 'post' });
    expect(gate.next('C1', 1_000 + WINDOW_MS, idle)).toEqual({ kind: 'post' });
  });

  it('forgets the oldest channel past its bound', () => {
    const gate = createBurstGate(2);
    for (let i = 0; i < 4; i += 1) gate.next('C1', 0, idle);
    expect(gate.next('C1', 0, idle)).toMatchObject({ kind: 'count' });
    gate.next('C2', 1, idle);
    gate.next('C3', 1, idle);
    // C1 was forgotten: its window starts again, so it is posted one by one once more.
    expect(gate.next('C1', 2, idle)).toEqual({ kind: 'post' });
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
