import { describe, expect, it } from 'vitest';
import { asJob } from '../../src/features/job.ts';
import { createLogger } from '../../src/log.ts';
import { currentRequest, currentRequestIfAny } from '../../src/request-context.ts';
import { LogCapture } from '../log-capture.ts';

// Work no Slack request starts runs as a request of its own: a fresh reference, the job's
// logger, and the reference on each of its lines once.

describe('asJob', () => {
  it('runs the work as a request with a fresh reference and a logger naming the job', async () => {
    const logs = new LogCapture();
    const log = createLogger({ level: 'info', destination: logs });
    const seen = await asJob(
      log,
      { task: 'digest' },
      async (jobLog) => {
        jobLog.info('working');
        const { ref, receivedAt } = currentRequest();
        return { ref, receivedAt, same: currentRequest().log === jobLog };
      },
      () => 1_234,
    );
    expect(seen.ref).toMatch(/^[0-9a-f]{10}$/);
    expect(seen).toMatchObject({ receivedAt: 1_234, same: true });
    expect(currentRequestIfAny()).toBeUndefined();
    expect(logs.records()[0]?.cometchat_ops).toMatchObject({ task: 'digest', ref: seen.ref });
  });

  it('gives a job run within another its own reference, written once on each line', async () => {
    const logs = new LogCapture();
    const log = createLogger({ level: 'info', destination: logs });
    const refs = await asJob(log, { task: 'digest' }, (outer) =>
      asJob(outer, { subscription: 's1' }, async (inner) => {
        inner.info('one digest');
        // A line naming a reference of its own (a record's) keeps that one.
        inner.warn({ ref: 'crashed0001' }, 'a record');
        return currentRequest().ref;
      }),
    );
    const [first, second] = logs.lines;
    expect(first?.match(/"cometchat_ops\.ref"/g)).toHaveLength(1);
    expect(second?.match(/"cometchat_ops\.ref"/g)).toHaveLength(1);
    expect(logs.records().map((r) => r.cometchat_ops.ref)).toEqual([refs, 'crashed0001']);
    expect(logs.records()[0]?.cometchat_ops).toMatchObject({ task: 'digest', subscription: 's1' });
  });
});
