import type { Store } from '../store/store.ts';
import type { Metrics } from './metrics.ts';

// The store with each failed operation counted (by the operation's name, a fixed set): the
// errors themselves are handled, and logged, where they happen.

export function observedStore(store: Store, metrics: Pick<Metrics, 'storeError'>): Store {
  const observed = {} as Record<string, unknown>;
  for (const name of Object.keys(store) as (keyof Store)[]) {
    const operation = store[name] as (...args: unknown[]) => Promise<unknown>;
    observed[name] = (...args: unknown[]) =>
      operation.apply(store, args).catch((error: unknown) => {
        metrics.storeError(name);
        throw error;
      });
  }
  return observed as unknown as Store;
}
