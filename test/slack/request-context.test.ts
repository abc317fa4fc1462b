import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { msLeft, runInRequest } from '../../src/request-context.ts';
import { eachSettledWithin, settledWithin } from '../../src/slack/request-context.ts';

describe('msLeft', () => {
  it('counts a deadline from when the request arrived', () => {
    const request = { ref: 'r1', log: pino({ enabled: false }), receivedAt: 1_000 };
    runInRequest(request, () => {
      expect(msLeft(2_000, () => 1_600)).toBe(1_400);
      expect(msLeft(2_000, () => 3_500)).toBe(-500);
    });
  });
});

describe('settledWithin', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives the value when the promise settles in time, and leaves no timer behind', async () => {
    const result = settledWithin(
      new Promise<string>((resolve) => setTimeout(() => resolve('ready'), 100)),
      400,
    );
    await vi.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toBe('ready');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives undefined when the time is up first; the promise still settles for a later await', async () => {
    const slow = new Promise<string>((resolve) => setTimeout(() => resolve('late'), 1_000));
    const result = settledWithin(slow, 400);
    await vi.advanceTimersByTimeAsync(400);
    await expect(result).resolves.toBeUndefined();
    await vi.advanceTimersByTimeAsync(600);
    await expect(slow).resolves.toBe('late');
  });

  it('does not wait at all for a time already past', async () => {
    const result = settledWithin(new Promise<string>(() => {}), -50);
    await vi.advanceTimersByTimeAsync(0);
    await expect(result).resolves.toBeUndefined();
  });
});

describe('eachSettledWithin', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives each value settled in time and undefined for the rest, on one timer', async () => {
    const settling = (ms: number, value: string) =>
      new Promise<string>((resolve) => setTimeout(() => resolve(value), ms));
    const result = eachSettledWithin(
      [settling(100, 'a'), settling(900, 'b'), settling(300, 'c')],
      400,
    );
    expect(vi.getTimerCount()).toBe(4);
    await vi.advanceTimersByTimeAsync(400);
    await expect(result).resolves.toEqual(['a', undefined, 'c']);
    expect(vi.getTimerCount()).toBe(1);
  });
});
