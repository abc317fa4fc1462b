import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/log.ts';
import { startPeriodic } from '../src/periodic.ts';
import { LogCapture } from './log-capture.ts';

// The sweeps every replica runs each minute: a slow one must not have a second start beside it.

/** A sweep that lasts until the test ends it, counting its starts and how many run at once. */
function slowSweeps() {
  const ends: (() => void)[] = [];
  const state = { starts: 0, running: 0, most: 0 };
  const task = () => {
    state.starts += 1;
    state.running += 1;
    state.most = Math.max(state.most, state.running);
    return new Promise<void>((resolve) => {
      ends.push(() => {
        state.running -= 1;
        resolve();
      });
    });
  };
  /** Ends the oldest run still going. */
  const endOne = async () => {
    ends.shift()?.();
    // Lets the run's promise chain settle (no timer involved).
    await vi.advanceTimersByTimeAsync(0);
  };
  return { task, state, endOne };
}

describe('startPeriodic', () => {
  const EVERY_MS = 60_000;
  let logs: LogCapture;
  beforeEach(() => {
    vi.useFakeTimers();
    logs = new LogCapture();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const log = () => createLogger({ level: 'debug', destination: logs });

  it('skips the ticks that come while a slow sweep still runs, then runs again', async () => {
    const sweeps = slowSweeps();
    const periodic = startPeriodic(sweeps.task, log(), EVERY_MS);
    expect(sweeps.state.starts).toBe(1);
    // Three ticks while the first sweep goes on: none starts a second one.
    await vi.advanceTimersByTimeAsync(3 * EVERY_MS);
    expect(sweeps.state).toMatchObject({ starts: 1, running: 1 });
    expect(logs.records().filter((r) => r.message.includes('still runs'))).toHaveLength(3);
    await sweeps.endOne();
    // The next tick after it ended starts the next sweep.
    await vi.advanceTimersByTimeAsync(EVERY_MS);
    expect(sweeps.state).toMatchObject({ starts: 2, running: 1, most: 1 });
    await sweeps.endOne();
    await periodic.stop();
  });

  it('runs each tick when each sweep ends in time', async () => {
    let starts = 0;
    const task = async () => {
      starts += 1;
    };
    const periodic = startPeriodic(task, log(), EVERY_MS);
    await vi.advanceTimersByTimeAsync(3 * EVERY_MS);
    expect(starts).toBe(4);
    expect(logs.lines.filter((line) => line.includes('still runs'))).toEqual([]);
    await periodic.stop();
  });

  it('logs a failed sweep, even one that throws before its promise, and runs the next', async () => {
    let starts = 0;
    const task = () => {
      starts += 1;
      if (starts === 1) throw new Error('store unreachable');
      return Promise.reject(new Error('store still unreachable'));
    };
    const periodic = startPeriodic(task, log(), EVERY_MS);
    await vi.advanceTimersByTimeAsync(2 * EVERY_MS);
    expect(starts).toBe(3);
    const failed = logs.errors().map((r) => r.error?.message);
    expect(failed).toEqual([
      'store unreachable',
      'store still unreachable',
      'store still unreachable',
    ]);
    await periodic.stop();
  });

  it('stop waits for the sweep in flight, and no sweep starts after it', async () => {
    const sweeps = slowSweeps();
    const periodic = startPeriodic(sweeps.task, log(), EVERY_MS);
    let stopped = false;
    const stopping = periodic.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    await sweeps.endOne();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(5 * EVERY_MS);
    expect(sweeps.state.starts).toBe(1);
  });
});
