import { describe, expect, it } from 'vitest';
import { failureSentence } from '../../src/replies/failure.ts';
import { failure, only, useSandboxClient } from './client-harness.ts';

/** What the failure sentences are given: the budget they mention, and no secrets. */
const SENTENCE_DEPS = { budgetSeconds: 8, secrets: [] };

// The client's usage read (GET /v3/stats) against the stand-in over real HTTP on loopback, as
// role-management.test.ts does for the role operations.

const { sandbox: standIn, client: clientOf } = useSandboxClient();
const client = () => clientOf({ retryLimit: 0 });

describe('usage', () => {
  it('reads the figures of a range, sent as Unix seconds on the API host', async () => {
    const usage = await client().getUsage({ fromDate: 1_700_000_000, toDate: 1_700_009_999 });
    expect(usage).toEqual({
      audioMinutes: 25.07,
      videoMinutes: 0.86,
      recordedMinutes: 0,
      activeUsers: 5,
      concurrentUsers: 2,
    });
    const request = only(standIn().requests);
    expect(request.path).toBe('/v3/stats');
    expect(request.query).toEqual({ fromDate: '1700000000', toDate: '1700009999' });
  });

  it('takes a figure the service leaves out, or sends as null, as not given', async () => {
    standIn().inject({
      kind: 'schema',
      pathIncludes: '/stats',
      body: {
        data: {
          metrics: { audio_minutes: 3.5, video_minutes: null, active_users: 2, extra: 'x' },
          time_range: { fromDate: '1700000000000', toDate: 1_700_009_999_000 },
        },
      },
    });
    const usage = await client().getUsage({ fromDate: 1_700_000_000, toDate: 1_700_009_999 });
    expect(usage).toEqual({
      audioMinutes: 3.5,
      videoMinutes: undefined,
      recordedMinutes: undefined,
      activeUsers: 2,
      concurrentUsers: undefined,
    });
  });

  it('reads an answer without metrics as no figures, and one of another shape as a failure', async () => {
    standIn().inject({ kind: 'schema', pathIncludes: '/stats', body: { data: {} } });
    expect(await client().getUsage({ fromDate: 1, toDate: 2 })).toEqual({
      audioMinutes: undefined,
      videoMinutes: undefined,
      recordedMinutes: undefined,
      activeUsers: undefined,
      concurrentUsers: undefined,
    });
    standIn().inject({
      kind: 'schema',
      pathIncludes: '/stats',
      body: { data: { metrics: { audio_minutes: 'lots' } } },
    });
    const error = await failure(client().getUsage({ fromDate: 1, toDate: 2 }));
    expect(error).toMatchObject({ kind: 'invalid_response', operation: 'getUsage' });
    expect(failureSentence(error, SENTENCE_DEPS)).toContain('the usage figures');
  });

  it("passes on the service's refusal of a range, in one sentence", async () => {
    const error = await failure(
      client().getUsage({ fromDate: 1_700_009_999, toDate: 1_700_000_000 }),
    );
    expect(error).toMatchObject({ kind: 'bad_request', operation: 'getUsage' });
    expect(failureSentence(error, SENTENCE_DEPS)).toMatch(/^CometChat refused the usage figures/);
  });

  it('names the usage figures when CometChat is down', async () => {
    standIn().inject({ kind: 'status', status: 503, pathIncludes: '/stats' });
    const error = await failure(client().getUsage({ fromDate: 1, toDate: 2 }));
    expect(failureSentence(error, SENTENCE_DEPS)).toContain(
      'CometChat is not answering the usage figures',
    );
  });
});
