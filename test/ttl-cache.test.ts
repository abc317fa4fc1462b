import { describe, expect, it } from 'vitest';
import { createTtlCache } from '../src/ttl-cache.ts';

// The contract both caches (access answers, the role list) rely on, checked against lru-cache
// itself rather than assumed from its documentation.

/** A load the test answers by hand, counting how often it was started. */
function manualLoads<V>() {
  const pending: { resolve: (value: V) => void; reject: (error: Error) => void }[] = [];
  return {
    started: () => pending.length,
    load: () => new Promise<V>((resolve, reject) => pending.push({ resolve, reject })),
    resolve: (index: number, value: V) => pending[index]?.resolve(value),
    reject: (index: number, error: Error) => pending[index]?.reject(error),
  };
}

describe('createTtlCache', () => {
  it('keeps an answer for ttlMs, counting from a clock that starts at 0', async () => {
    let clock = 0;
    const cache = createTtlCache<string>({ max: 10, ttlMs: 1_000, now: () => clock });
    let loads = 0;
    const load = async () => `answer ${++loads}`;
    expect(await cache.get('k', load)).toBe('answer 1');
    clock = 1_000;
    expect(await cache.get('k', load)).toBe('answer 1');
    clock = 1_001;
    expect(await cache.get('k', load)).toBe('answer 2');
  });

  it('shares one load between concurrent asks', async () => {
    const cache = createTtlCache<string>({ max: 10, ttlMs: 1_000 });
    const loads = manualLoads<string>();
    const asks = Promise.all([cache.get('k', loads.load), cache.get('k', loads.load)]);
    expect(loads.started()).toBe(1);
    loads.resolve(0, 'shared');
    expect(await asks).toEqual(['shared', 'shared']);
  });

  it('never keeps a failure: everyone waiting gets it, the next ask loads again', async () => {
    const cache = createTtlCache<string>({ max: 10, ttlMs: 60_000 });
    const loads = manualLoads<string>();
    const first = cache.get('k', loads.load);
    const second = cache.get('k', loads.load);
    loads.reject(0, new Error('upstream down'));
    await expect(first).rejects.toThrow('upstream down');
    await expect(second).rejects.toThrow('upstream down');
    expect(cache.size).toBe(0);
    const third = cache.get('k', loads.load);
    expect(loads.started()).toBe(2);
    loads.resolve(1, 'recovered');
    expect(await third).toBe('recovered');
  });

  it('answers those waiting when cleared mid-load, and does not keep that answer', async () => {
    const cache = createTtlCache<string>({ max: 10, ttlMs: 60_000 });
    const loads = manualLoads<string>();
    const waiting = cache.get('k', loads.load);
    cache.clear();
    loads.resolve(0, 'from before the clear');
    expect(await waiting).toBe('from before the clear');
    const after = cache.get('k', loads.load);
    expect(loads.started()).toBe(2);
    loads.resolve(1, 'fresh');
    expect(await after).toBe('fresh');
  });

  it('holds at most max entries, dropping the least recently used', async () => {
    const cache = createTtlCache<number>({ max: 2, ttlMs: 60_000 });
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('a', load);
    await cache.get('c', load);
    expect(cache.size).toBe(2);
    expect(loads).toBe(3);
    await cache.get('a', load);
    expect(loads).toBe(3);
    await cache.get('b', load);
    expect(loads).toBe(4);
  });

  it('answers a load evicted mid-flight by a full cache', async () => {
    const cache = createTtlCache<string>({ max: 1, ttlMs: 60_000 });
    const loads = manualLoads<string>();
    const evicted = cache.get('a', loads.load);
    const other = cache.get('b', loads.load);
    loads.resolve(0, 'a');
    loads.resolve(1, 'b');
    expect(await evicted).toBe('a');
    expect(await other).toBe('b');
  });
});
