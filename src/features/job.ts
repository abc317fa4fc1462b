import type { Logger } from 'pino';
import { newReference } from '../reference.ts';
import { runInRequest } from '../request-context.ts';

// Work no Slack request starts (a periodic sweep, a check at start, a webhook's event) runs as a
// request of its own, as a Slack request runs from the first middleware on: its lines, and the
// CometChat requests it makes, carry one reference and a logger that names the job.

/**
 * Runs `work` with a fresh reference, as the running request (runInRequest), and gives it `log`'s
 * child bound to `job` (what names the job: `{ task: 'digest' }`). The reference is not bound on
 * that logger: the root logger adds the running request's to each line (log.ts), so that a job
 * run within another, or a line naming a reference of its own (a record's), carries one `ref`.
 */
export function asJob<T>(
  log: Logger,
  job: Record<string, unknown>,
  work: (log: Logger) => Promise<T>,
  now: () => number = Date.now,
): Promise<T> {
  const jobLog = log.child(job);
  return runInRequest({ ref: newReference(), log: jobLog, receivedAt: now() }, () => work(jobLog));
}
