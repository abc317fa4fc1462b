import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSlackApp } from '../../src/app.ts';
import { UNKNOWN_OUTCOME } from '../../src/changes/record.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { type Harness, startHarness, textOf } from './harness.ts';
import { applyChange } from './support.ts';

// The audit channel's posts through the real app on a SQLite file: a post Slack refuses is kept
// with its record and made by the minute sweep once due, exactly once however many instances
// sweep, and one left by an app that stopped is made by the next one on the same file.

const AUDIT_CHANNEL = 'C0AUDIT';
const MINUTE = 60_000;

/** The posts to the audit channel: those Slack took, and every attempt. */
function auditPosts(h: Harness) {
  const tried = h.slack.calls.filter(
    (c) => c.method === 'chat.postMessage' && c.args.channel === AUDIT_CHANNEL,
  );
  return { tried, taken: tried.filter((c) => c.answer?.ok === true) };
}

describe('audit channel posts kept in the store', () => {
  let dir: string;
  const running: Harness[] = [];
  const opened: Store[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-posts-'));
  });
  afterEach(async () => {
    for (const h of running.splice(0)) {
      h.checkAllPayloads();
      await h.stop();
    }
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (file: string) => {
    const h = await startHarness({
      env: { STORE_URL: join(dir, file), AUDIT_CHANNEL },
    });
    running.push(h);
    return h;
  };
  /** Another instance of the app on the same file, whose clock reads `now()`. */
  const instance = (h: Harness, file: string, now: () => number) => {
    const store = createSqliteStore(join(dir, file));
    opened.push(store);
    const app = createSlackApp({
      config: h.config,
      logger: h.logger,
      store,
      metrics: createMetrics({ defaultMetrics: false }),
      now,
    });
    return { store, sweep: () => app.features.periodic(h.logger.child({ component: 'sweep' })) };
  };

  it('Slack answers 500, then 429, then 200: the post lands exactly once, two instances sweeping', async () => {
    const h = await start('refused.sqlite');
    h.slack.fail('chat.postMessage', { status: 500 });
    h.slack.fail('chat.postMessage', { retryAfter: 1 });
    const { outcome } = await applyChange(h, { key: 'sendMessage', value: 'deny' });
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(auditPosts(h).tried).toHaveLength(1);
    expect(auditPosts(h).taken).toEqual([]);

    let time = Date.now();
    const [a, b] = [
      instance(h, 'refused.sqlite', () => time),
      instance(h, 'refused.sqlite', () => time),
    ];
    const [kept] = await a.store.listAuditPosts(Number.MAX_SAFE_INTEGER);
    expect(kept).toMatchObject({ channel: AUDIT_CHANNEL, attempts: 1 });
    const ref = kept?.record.ref ?? '';

    // Due a minute after the 500: both instances sweep at once; one tries, Slack rate limits it.
    time += MINUTE + 1_000;
    await Promise.all([a.sweep(), b.sweep()]);
    expect(auditPosts(h).tried).toHaveLength(2);
    expect(await a.store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toMatchObject([
      { record: { ref }, attempts: 2 },
    ]);
    // Not due again before the second wait (two minutes): nothing is tried.
    await Promise.all([a.sweep(), b.sweep()]);
    expect(auditPosts(h).tried).toHaveLength(2);

    time += 2 * MINUTE + 1_000;
    await Promise.all([a.sweep(), b.sweep()]);
    const { tried, taken } = auditPosts(h);
    expect(tried).toHaveLength(3);
    expect(taken).toHaveLength(1);
    expect(textOf(taken[0]?.args)).toContain(ref);
    expect(await a.store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);

    // Taken: never posted again, by any sweep, however late.
    time += 24 * 60 * MINUTE;
    await Promise.all([a.sweep(), b.sweep()]);
    expect(auditPosts(h).tried).toHaveLength(3);
    const failures = h.logs
      .records()
      .filter((r) => r.message === 'audit post failed; kept in the store and tried again later');
    expect(failures.map((r) => r.cometchat_ops.retryInSeconds)).toEqual([60, 120]);
    expect(
      h.logs.records().find((r) => r.message === 'audit post made')?.cometchat_ops,
    ).toMatchObject({ ref, attempts: 2 });
  });

  it('a post refused before a stop is made by a new instance on the same file', async () => {
    const first = await start('restart.sqlite');
    first.slack.fail('chat.postMessage', { status: 503 });
    await applyChange(first, { key: 'sendMessage', value: 'deny' });
    expect(auditPosts(first).taken).toEqual([]);
    // The app stops (its store closed); Slack's stand-in stays for the next instance.
    await first.app.stop();

    const later = Date.now() + 2 * MINUTE;
    const next = instance(first, 'restart.sqlite', () => later);
    const [kept] = await next.store.listAuditPosts(Number.MAX_SAFE_INTEGER);
    expect(kept?.attempts).toBe(1);
    await next.sweep();
    const { taken } = auditPosts(first);
    expect(taken).toHaveLength(1);
    expect(textOf(taken[0]?.args)).toContain(kept?.record.ref ?? 'no ref');
    expect(await next.store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('a post kept with its record just before a stop is made when the app starts again', async () => {
    // What an app that stopped right after keeping the record leaves in the file.
    const before = createSqliteStore(join(dir, 'stopped.sqlite'));
    await before.appendAudit(
      {
        ref: 'stopped0001',
        at: Date.now() - 1_000,
        app: 'default',
        teamId: 'T0STANDIN',
        userId: 'U0OPERATOR',
        role: 'default',
        changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
        beforeSource: 'defaults',
        outcome: 'unknown',
        serviceMessage: UNKNOWN_OUTCOME,
      },
      AUDIT_CHANNEL,
    );
    await before.close();
    const h = await start('stopped.sqlite');
    // The sweep runs as the app starts.
    const post = await h.slack.waitFor(() => auditPosts(h).taken[0]);
    expect(textOf(post.args)).toContain('stopped0001');
    const store = createSqliteStore(join(dir, 'stopped.sqlite'));
    opened.push(store);
    await expect
      .poll(() => store.listAuditPosts(Number.MAX_SAFE_INTEGER), { timeout: 5_000 })
      .toEqual([]);
    expect(auditPosts(h).tried).toHaveLength(1);
  });
});
