import { ErrorCode, type WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import {
  FIRST_RETRY_MS,
  LONGEST_RETRY_MS,
  retryDelayMs,
} from '../../../src/features/audit/audit-posts.ts';
import { createAuditTrail } from '../../../src/features/audit/audit-trail.ts';
import { createLogger } from '../../../src/log.ts';
import { type AuditRecord, createMemoryStore, type Store } from '../../../src/store/store.ts';
import { textOf } from '../../integration/harness.ts';
import { LogCapture } from '../../log-capture.ts';

// The audit channel's posts without Slack: kept with their records in a memory store, tried at
// once, then by the sweep when due, against a Slack the test answers and a clock it moves.

const START = 1_800_000_000_000;
const CHANNEL = 'C0AUDIT';

const change = (ref: string, at = START): AuditRecord => ({
  ref,
  at,
  app: 'prod',
  teamId: 'T1',
  userId: 'U1',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'defaults',
  outcome: 'applied',
});

const platformError = (error: string) =>
  Object.assign(new Error(error), { code: ErrorCode.PlatformError, data: { ok: false, error } });
const rateLimited = (retryAfter: number) =>
  Object.assign(new Error('rate limited'), { code: ErrorCode.RateLimitedError, retryAfter });
const httpError = (statusCode: number) =>
  Object.assign(new Error(`status ${statusCode}`), { code: ErrorCode.HTTPError, statusCode });

/** A Slack that answers each post with the next of `answers` (an error to throw), then ok. */
function slackAnswering(answers: Error[] = []) {
  const tried: { channel: string; text: string }[] = [];
  const posted: string[] = [];
  const client = {
    chat: {
      postMessage: async (args: { channel: string; text?: string }) => {
        tried.push({ channel: args.channel, text: textOf(args) });
        const answer = answers.shift();
        if (answer) throw answer;
        posted.push(textOf(args));
        return { ok: true, ts: '1.0' };
      },
    },
  };
  return { client, tried, posted, answers };
}

/** One replica's trail over `store`, with the shared clock. */
function trailOver(store: Store, slack: ReturnType<typeof slackAnswering>, now: () => number) {
  const logs = new LogCapture();
  let failures = 0;
  const trail = createAuditTrail({
    store,
    client: slack.client as unknown as WebClient,
    channel: CHANNEL,
    now,
    metrics: {
      permissionUpdate: () => {},
      auditWrite: () => {},
      auditPostFailure: () => {
        failures += 1;
      },
    },
  });
  const log = createLogger({ level: 'debug', destination: logs });
  return { trail, log, logs, failures: () => failures };
}

function setup(answers: Error[] = []) {
  let time = START;
  const now = () => time;
  const store = createMemoryStore(now);
  const slack = slackAnswering(answers);
  return {
    store,
    slack,
    ...trailOver(store, slack, now),
    now,
    replica: () => trailOver(store, slack, now),
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('retryDelayMs', () => {
  it('doubles from a minute to an hour at most', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => retryDelayMs(n) / 60_000)).toEqual([
      1, 2, 4, 8, 16, 32, 60, 60,
    ]);
    expect(retryDelayMs(1)).toBe(FIRST_RETRY_MS);
    expect(retryDelayMs(1_000)).toBe(LONGEST_RETRY_MS);
  });

  it("waits at least Slack's Retry-After", () => {
    expect(retryDelayMs(1, 30)).toBe(FIRST_RETRY_MS);
    expect(retryDelayMs(1, 300)).toBe(300_000);
    expect(retryDelayMs(7, 7_200)).toBe(7_200_000);
  });
});

describe('audit channel posts', () => {
  it('posts at once and keeps nothing once Slack took the post', async () => {
    const { trail, log, store, slack } = setup();
    expect(await trail.record(change('r1'), log)).toEqual({ stored: true });
    expect(slack.posted).toHaveLength(1);
    expect(slack.posted[0]).toContain('r1');
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(await trail.retryPosts(log)).toBe(0);
    expect(slack.tried).toHaveLength(1);
  });

  it('keeps a refused post and makes it once it is due: 500, then 429 with Retry-After, then taken', async () => {
    const { trail, log, logs, store, slack, advance, failures } = setup([
      httpError(500),
      rateLimited(300),
    ]);
    await trail.record(change('r1'), log);
    expect(slack.posted).toEqual([]);
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toMatchObject([
      { record: { ref: 'r1' }, channel: CHANNEL, attempts: 1, dueAt: START + FIRST_RETRY_MS },
    ]);
    // Not due yet: the sweep leaves it.
    advance(FIRST_RETRY_MS - 1);
    expect(await trail.retryPosts(log)).toBe(0);
    expect(slack.tried).toHaveLength(1);
    advance(1);
    expect(await trail.retryPosts(log)).toBe(0);
    // Rate limited: Retry-After (five minutes) is longer than the second wait (two).
    const [limited] = await store.listAuditPosts(Number.MAX_SAFE_INTEGER);
    expect(limited).toMatchObject({ attempts: 2, dueAt: START + FIRST_RETRY_MS + 300_000 });
    advance(299_999);
    expect(await trail.retryPosts(log)).toBe(0);
    expect(slack.tried).toHaveLength(2);
    advance(1);
    expect(await trail.retryPosts(log)).toBe(1);
    expect(slack.posted).toHaveLength(1);
    expect(slack.tried).toHaveLength(3);
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(failures()).toBe(2);
    const warned = logs.records().filter((r) => r.log.level === 'warn');
    expect(warned.map((r) => r.cometchat_ops.retryInSeconds)).toEqual([60, 300]);
    expect(warned.map((r) => r.cometchat_ops.cause)).toEqual([
      ErrorCode.HTTPError,
      ErrorCode.RateLimitedError,
    ]);
    // Taken: never again, however often the sweep runs.
    advance(LONGEST_RETRY_MS * 2);
    expect(await trail.retryPosts(log)).toBe(0);
    expect(slack.tried).toHaveLength(3);
  });

  it('gives up, with a warning, on a channel the app is not in', async () => {
    for (const error of ['not_in_channel', 'channel_not_found', 'is_archived']) {
      const { trail, log, logs, store, slack, advance } = setup([platformError(error)]);
      await trail.record(change('r1'), log);
      expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
      advance(LONGEST_RETRY_MS);
      expect(await trail.retryPosts(log)).toBe(0);
      expect(slack.tried).toHaveLength(1);
      const [given] = logs.records().filter((r) => r.log.level === 'warn');
      expect(given?.message).toMatch(
        /^audit post failed; the app cannot post in the audit channel/,
      );
      expect(given?.cometchat_ops).toMatchObject({ cause: error, channel: CHANNEL, ref: 'r1' });
      // The record is kept all the same.
      expect((await store.listAudit({ offset: 0, limit: 1 })).total).toBe(1);
    }
  });

  it('posts each one once when two replicas sweep at the same moment', async () => {
    const { trail, log, store, slack, advance, replica } = setup([
      httpError(503),
      httpError(503),
      httpError(503),
    ]);
    for (const ref of ['r1', 'r2', 'r3']) await trail.record(change(ref), log);
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toHaveLength(3);
    advance(FIRST_RETRY_MS);
    const other = replica();
    const made = await Promise.all([trail.retryPosts(log), other.trail.retryPosts(other.log)]);
    expect(made[0] + made[1]).toBe(3);
    expect(slack.posted).toHaveLength(3);
    expect(new Set(slack.posted).size).toBe(3);
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('stops a sweep at an outage or a rate limit, and goes past a post Slack refused alone', async () => {
    const { trail, log, store, slack, advance } = setup([
      httpError(500),
      httpError(500),
      httpError(500),
    ]);
    for (const [i, ref] of ['r1', 'r2', 'r3'].entries()) {
      await trail.record(change(ref, START + i), log);
    }
    advance(FIRST_RETRY_MS + 10);
    // Slack is rate limiting: the first due post is tried, the others wait for the next sweep.
    slack.answers.push(rateLimited(1));
    expect(await trail.retryPosts(log)).toBe(0);
    expect(slack.tried.map((t) => t.text).slice(3)).toHaveLength(1);
    // A post Slack refuses on its own (too long, say) does not hold the others back.
    advance(FIRST_RETRY_MS * 2);
    slack.answers.push(platformError('msg_too_long'));
    expect(await trail.retryPosts(log)).toBe(2);
    const left = await store.listAuditPosts(Number.MAX_SAFE_INTEGER);
    expect(left).toHaveLength(1);
    expect(left[0]?.attempts).toBe(2);
  });

  it('tries the post once when the store cannot keep the record, and says so', async () => {
    const { store, slack, advance } = setup([httpError(500)]);
    const failing: Store = {
      ...store,
      appendAudit: async () => {
        throw new Error('store unreachable');
      },
    };
    const { trail, log, logs } = trailOver(failing, slack, () => START);
    expect(await trail.record(change('r1'), log)).toEqual({ stored: false });
    expect(slack.tried).toHaveLength(1);
    expect(logs.text()).toContain('the record is not in the store, so the post is not tried again');
    advance(LONGEST_RETRY_MS);
    expect(await trail.retryPosts(log)).toBe(0);
    expect(slack.tried).toHaveLength(1);
  });

  it('keeps the post for the sweep when the store fails as it is first tried', async () => {
    const { store, slack, now } = setup();
    let claims = 0;
    const flaky: Store = {
      ...store,
      claim: async (id, ttl) => {
        claims += 1;
        if (claims === 1) throw new Error('store unreachable');
        return store.claim(id, ttl);
      },
    };
    const { trail, log, logs } = trailOver(flaky, slack, now);
    expect(await trail.record(change('r1'), log)).toEqual({ stored: true });
    expect(slack.tried).toEqual([]);
    expect(logs.text()).toContain('the sweep tries the post again');
    expect(await trail.retryPosts(log)).toBe(1);
    expect(slack.posted).toHaveLength(1);
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});
