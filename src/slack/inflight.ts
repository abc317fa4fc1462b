import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';

// The requests being handled now, from arrival to the end of their listeners (an apply's update,
// audit record and result included), and CometChat's webhooks until answered, so that a stop
// can wait for them.

export interface Inflight {
  middleware: Middleware<AnyMiddlewareArgs>;
  /** One request outside Bolt (a CometChat webhook) begins; call what it returns when it ends. */
  begin(): () => void;
  count(): number;
  /** Resolves true once nothing is in flight, or false when `withinMs` ran out first. */
  idle(withinMs: number): Promise<boolean>;
}

export function createInflight(): Inflight {
  let count = 0;
  const waiting = new Set<() => void>();
  const begin = () => {
    count += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      count -= 1;
      if (count === 0) for (const wake of waiting) wake();
    };
  };
  return {
    middleware: async ({ next }) => {
      const end = begin();
      try {
        await next();
      } finally {
        end();
      }
    },
    begin,
    count: () => count,
    idle(withinMs) {
      if (count === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiting.delete(wake);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiting.delete(wake);
          resolve(false);
        }, withinMs);
        waiting.add(wake);
      });
    },
  };
}
