import type { Store } from '../store/store.ts';
import type { Metrics } from './metrics.ts';

// The store with each failed operation counted (by the operation's name, a fixed set): the
// errors themselves are handled, and logged, where they happen.

export function observedStore(store: Store, metrics: Pick<Metrics, 'storeError'>): Store {
  // A proxy, so that every operation of the interface is counted without being listed here.
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) =>
        value.apply(target, args).catch((error: unknown) => {
          metrics.storeError(name);
          throw error;
        });
    },
  });
}
