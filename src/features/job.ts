import type { Logger } from 'pino';
import { newReference } from '../reference.ts';
import { runInRequest } from '../request-context.ts';

// Work no Slack request starts (a periodic sweep, a check at start, a webhook's event) runs as a
// request of its own, as a Slack request runs from the first middleware on: its lines, and the
// CometChat requests it makes, carry one reference and a logger that names the job.

/**
 * Runs `work` with a fresh reference and `log`'s child bound to it and to `job` (what names the
 * job: `{ task: 'digest' }`), as the running request (runInRequest). `work` is given that logger.
 */
export function asJob<T>(
  log: Logger,
  job: Record<string, unknown>,
  work: (log: Logger) => Promise<T>,
  now: () => number = Date.now,
): Promise<T> {
  const ref = newReference();
  const jobLog = log.child({ ...job, ref });
  return runInRequest({ ref, log: jobLog, receivedAt: now() }, () => work(jobLog));
}
