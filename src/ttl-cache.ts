import { LRUCache } from 'lru-cache';

/**
 * A small cache of answers from a remote service: at most `max` entries (the least recently
 * used goes first), each kept for `ttlMs` from when it arrived. Concurrent asks for a key share
 * one request; a failed request is never kept, so the next ask tries again.
 */
export interface TtlCache<V> {
  /** The cached answer for `key`, or the one `load` brings (shared with concurrent asks). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Forgets every answer; a request under way still answers those waiting for it. */
  clear(): void;
  readonly size: number;
}

export interface TtlCacheOptions {
  max: number;
  ttlMs: number;
  /** Milliseconds on any monotonic scale; tests pass a clock they move themselves. */
  now?: (() => number) | undefined;
}

// `V extends {}`: lru-cache keeps no undefined or null values.
export function createTtlCache<V extends {}>(options: TtlCacheOptions): TtlCache<V> {
  const now = options.now ?? (() => performance.now());
  // lru-cache takes an entry whose start time is 0 for one that never expires, so its clock
  // counts from 1 at creation, whatever scale `now` uses.
  const origin = now() - 1;
  const cache = new LRUCache<string, V, () => Promise<V>>({
    max: options.max,
    ttl: options.ttlMs,
    perf: { now: () => now() - origin },
    // By default lru-cache reuses a reading of its clock for a millisecond (through a timer);
    // a clock moved by a test would then go unseen.
    ttlResolution: 0,
    // lru-cache's defaults, stated because they are this cache's contract (lru-cache 11's
    // #backgroundFetch): a rejected load deletes its entry and rejects everyone waiting on it,
    // and an expired answer is never served.
    noDeleteOnFetchRejection: false,
    allowStaleOnFetchRejection: false,
    allowStale: false,
    // clear() and eviction abort a load under way. Without this, those waiting on it would get
    // the abort as their error; with it they get the answer, which is then not kept.
    ignoreFetchAbort: true,
    fetchMethod: (_key, _stale, { context }) => context(),
  });
  return {
    async get(key, load) {
      const value = await cache.fetch(key, { context: load });
      // Only a load that resolves undefined (which V excludes) or an abort without
      // ignoreFetchAbort would leave fetch() with nothing.
      if (value === undefined) throw new Error(`the cache lost its answer for ${key}`);
      return value;
    },
    clear: () => cache.clear(),
    get size() {
      return cache.size;
    },
  };
}
