import type { Logger } from 'pino';

/**
 * Runs `task` now and then every `everyMs`, until stopped; a failed run is logged and the next
 * one tries again. For the sweeps every replica runs (their claims pick who acts).
 */
export function startPeriodic(
  task: () => Promise<unknown>,
  log: Logger,
  everyMs = 60_000,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = task().catch((error: unknown) => {
      log.error({ err: error }, 'sweep failed; it runs again later');
    });
  };
  run();
  const timer = setInterval(run, everyMs);
  // A sweep must not keep the process alive on its own.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
