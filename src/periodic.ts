import type { Logger } from 'pino';

/**
 * Runs `task` now and then every `everyMs`, until stopped; a failed run is logged and the next
 * one tries again. For the sweeps every replica runs (their claims pick who acts).
 *
 * A run never overlaps the one before it: a tick that comes while the last run still goes is
 * skipped, and the next tick after it ends starts the next run. Two sweeps at once in one
 * replica would race each other for the same records, and pile up behind a slow store.
 */
export function startPeriodic(
  task: () => Promise<unknown>,
  log: Logger,
  everyMs = 60_000,
): { stop(): Promise<void> } {
  let inFlight: Promise<void> | undefined;
  const sweep = async () => {
    try {
      await task();
    } catch (error) {
      log.error({ err: error }, 'sweep failed; it runs again later');
    }
  };
  const run = () => {
    if (inFlight !== undefined) {
      log.warn({ everyMs }, 'the last sweep still runs; this one is skipped');
      return;
    }
    inFlight = sweep();
    // A `then` runs later, so this clears `inFlight` only after it is set, even when the task
    // fails at once.
    void inFlight.then(() => {
      inFlight = undefined;
    });
  };
  run();
  const timer = setInterval(run, everyMs);
  // A sweep must not keep the process alive on its own.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
