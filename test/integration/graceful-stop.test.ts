import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../offline/cometchat-standin/server.ts';
import { createSlackDriver } from '../../offline/slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../../offline/slack-standin/server.ts';
import {
  OFFLINE_OPERATOR,
  OFFLINE_SECRETS,
  type OfflineStack,
  offlineEnv,
} from '../../offline/stack/offline-stack.ts';
import { openStore } from '../../src/store/open-store.ts';
import { applyOne, freePort, KEY, kill, startApp, waitFor } from '../crash/child-app.ts';
import { textOf } from './harness.ts';

// SIGTERM while an update is in flight: the app, started as production starts it, turns /readyz
// to 503 and serves on for SHUTDOWN_DELAY_MS, then stops taking requests, lets the apply finish
// (update, audit record, the person's result), and exits 0.

const UPDATE_DELAY_MS = 1_500;

describe('a stop on SIGTERM', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it('finishes the apply in flight, then exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'graceful-'));
    const sandbox: Sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
    const slack: SlackStandIn = await startSlackStandIn();
    cleanup.push(
      () => rm(dir, { recursive: true, force: true }),
      () => sandbox.close(),
      () => slack.close(),
    );
    sandbox.inject({ kind: 'delay', method: 'PUT', delayMs: UPDATE_DELAY_MS });
    const port = await freePort();
    const storeUrl = join(dir, 'state.sqlite');
    const child: ChildProcess = await startApp(
      {
        ...offlineEnv(sandbox, slack, 'http'),
        STORE_URL: storeUrl,
        EDITORS: OFFLINE_OPERATOR,
        LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'error',
        SHUTDOWN_DELAY_MS: '2000',
        SHUTDOWN_GRACE_MS: '10000',
      },
      port,
    );
    cleanup.push(() => kill(child, 'SIGKILL'));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const driver = createSlackDriver({
      appUrl: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: OFFLINE_SECRETS.signingSecret,
      standIn: slack,
    });
    const stack = { driver, slack, sandbox } as unknown as OfflineStack;

    await applyOne(stack, 'image/x-graceful');
    // The update has reached CometChat, whose answer takes 1.5 s: stop now.
    await waitFor('the update to reach the sandbox', 5_000, async () =>
      sandbox.requests.some((r) => r.method === 'PUT') ? true : undefined,
    );
    const signalled = Date.now();
    child.kill('SIGTERM');
    // Not ready at once, and still serving while SHUTDOWN_DELAY_MS runs.
    await waitFor('/readyz to answer 503', 1_500, async () => {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      return ready.status === 503 ? true : undefined;
    });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThan(UPDATE_DELAY_MS / 2);

    expect(sandbox.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    const results = slack.calls
      .filter((c) => c.method === 'views.update')
      .map((c) => textOf(c.args.view));
    expect(results.at(-1)).toMatch(/applied|Permission sendMessage/i);
    const store = await openStore(storeUrl);
    try {
      const { records } = await store.listAudit({ offset: 0, limit: 10 });
      expect(records.map((r) => [r.outcome, r.changes.find((c) => c.key === KEY)?.after])).toEqual([
        ['applied', ['image/x-graceful']],
      ]);
      expect(await store.listPending(Number.POSITIVE_INFINITY)).toEqual([]);
    } finally {
      await store.close();
    }
  }, 40_000);
});
