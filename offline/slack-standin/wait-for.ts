const POLL_INTERVAL_MS = 10;

/**
 * Resolves with the first value `pick` returns that is not `undefined`, polling, because what a
 * test waits for (a reply, a call) arrives from another process-level actor: the app under test.
 * Rejects after `timeoutMs` with a message naming `what` was awaited (a function is asked only
 * then, so it can describe what did arrive instead).
 */
export function waitFor<T>(
  pick: () => T | undefined,
  timeoutMs = 5000,
  what: string | (() => string) = 'the awaited value',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  return new Promise<T>((resolve, reject) => {
    const attempt = (): void => {
      let value: T | undefined;
      try {
        value = pick();
      } catch (error) {
        reject(error);
        return;
      }
      if (value !== undefined) {
        resolve(value);
      } else if (Date.now() >= deadline) {
        const described = typeof what === 'function' ? what() : what;
        reject(new Error(`waitFor: ${described} did not arrive within ${timeoutMs} ms`));
      } else {
        setTimeout(attempt, POLL_INTERVAL_MS);
      }
    };
    attempt();
  });
}
