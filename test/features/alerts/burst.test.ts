import { describe, expect, it } from 'vitest';
import {
  createBurstGate,
  createThrottle,
  POSTS_PER_WINDOW,
  WINDOW_MS,
} from '../../../src/features/alerts/burst.ts';

describe('a burst of alerts in one channel', () => {
  it('posts a few, then counts the rest in one message, per channel and per minute', () => {
    const gate = createBurstGate();
    const steps = Array.from({ length: 6 }, (_, i) => gate.next('C1', 1_000 + i));
    expect(steps.slice(0, POSTS_PER_WINDOW)).toEqual(
      Array(POSTS_PER_WINDOW).fill({ kind: 'post' }),
    );
    expect(steps[3]).toEqual({ kind: 'start-count', count: 1 });
    gate.started('C1', '171.1');
    expect(gate.next('C1', 1_010)).toEqual({ kind: 'count', count: 4, ts: '171.1' });
    // Another channel has its own window; a minute later the first starts again.
    expect(gate.next('C2', 1_010)).toEqual({ kind: 'post' });
    expect(gate.next('C1', 1_000 + WINDOW_MS)).toEqual({ kind: 'post' });
    expect(gate.countMessage('C1')).toBeUndefined();
  });

  it('forgets the oldest channel past its bound', () => {
    const gate = createBurstGate(2);
    for (let i = 0; i < 4; i += 1) gate.next('C1', 0);
    expect(gate.next('C1', 0)).toMatchObject({ kind: 'count' });
    gate.next('C2', 1);
    gate.next('C3', 1);
    // C1 was forgotten: its window starts again, so it is posted one by one once more.
    expect(gate.next('C1', 2)).toEqual({ kind: 'post' });
  });
});

describe('the count message, throttled', () => {
  it('sends the latest text once per wait, whatever came meanwhile', async () => {
    const sent: string[] = [];
    const waits: (() => void)[] = [];
    const update = createThrottle(
      async (text) => {
        sent.push(text);
      },
      2_000,
      (run) => waits.push(run),
    );
    update('2 more');
    update('3 more');
    update('4 more');
    expect(waits).toHaveLength(1);
    waits.shift()?.();
    update('5 more');
    waits.shift()?.();
    expect(sent).toEqual(['4 more', '5 more']);
  });
});
