import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
import type { AuditRecord, Store } from '../../src/store/store.ts';
import { applyOne, freePort, KEY, kill, startApp, waitFor } from './child-app.ts';

// `npm run test:crash`: the real app in a child process applies permission changes against the
// sandbox, whose updates are slowed, and is killed with SIGKILL at a random moment of each
// change, ROUNDS times on SQLite and on Redis. After a last restart (whose intent sweep runs at
// start-up), every update the sandbox received must have exactly one audit record (applied,
// failed or unknown), and no record may claim as applied an update the sandbox never received.
// Each change sets a MIME type no other change uses, so a record and an update are matched by it.
//
// Not part of `npm test` (it takes minutes); `.ci/run` runs it. Redis needs `redis-server` on
// PATH: without it that half is reported as not run, and fails the run under CI.

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 50);
const BUDGET_MS = 1_000;
/** How long the sandbox holds every update before answering: the window a kill can hit. */
const UPDATE_DELAY_MS = 250;

interface Counts {
  backend: string;
  rounds: number;
  received: number;
  applied: number;
  failed: number;
  unknown: number;
  unsent: number;
  problems: string[];
}

const markerOf = (value: unknown): string | undefined =>
  Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;

async function allRecords(store: Store): Promise<AuditRecord[]> {
  const { records } = await store.listAudit({ offset: 0, limit: 100_000 });
  return records;
}

async function run(backend: 'sqlite' | 'redis', storeUrl: string): Promise<Counts> {
  const sandbox: Sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
  sandbox.inject({
    kind: 'delay',
    method: 'PUT',
    delayMs: UPDATE_DELAY_MS,
    times: Number.POSITIVE_INFINITY,
  });
  const slack: SlackStandIn = await startSlackStandIn();
  const port = await freePort();
  const env = {
    ...offlineEnv(sandbox, slack, 'http'),
    STORE_URL: storeUrl,
    EDITORS: OFFLINE_OPERATOR,
    LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'error',
    COMETCHAT_TIMEOUT_MS: '800',
    COMETCHAT_BUDGET_MS: String(BUDGET_MS),
    COMETCHAT_ROLE_CACHE_SECONDS: '0',
  };
  const driver = createSlackDriver({
    appUrl: `http://127.0.0.1:${port}/slack/events`,
    signingSecret: OFFLINE_SECRETS.signingSecret,
    standIn: slack,
  });
  const stack = { driver, slack, sandbox } as unknown as OfflineStack;
  let child: ChildProcess | undefined;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      child = await startApp(env, port);
      const acked = await applyOne(stack, `image/x-crash-${round}`).then(
        () => true,
        (error: unknown) => {
          process.stdout.write(
            `\nround ${round}: the change did not reach "Apply": ${String(error)} (last reply: ${JSON.stringify(slack.responses.at(-1)?.body ?? null).slice(0, 300)})\n`,
          );
          return false;
        },
      );
      // From the moment "Apply" is acknowledged (the intent and the update follow it) to well
      // after the update's answer.
      if (acked) await sleep(Math.random() * (UPDATE_DELAY_MS + 500));
      await kill(child, 'SIGKILL');
      process.stdout.write(round % 10 === 0 ? `${round}\n` : '.');
    }
    // Every intent is now older than twice the budget: the next start records them.
    await sleep(2 * BUDGET_MS + 500);
    child = await startApp(env, port);
    const store = await openStore(storeUrl);
    try {
      await waitFor('the intent sweep', 10_000, async () =>
        (await store.listPending(Number.POSITIVE_INFINITY)).length === 0 ? true : undefined,
      );
      await kill(child, 'SIGTERM');
      return check(backend, sandbox, await allRecords(store));
    } finally {
      await store.close();
    }
  } finally {
    if (child) await kill(child, 'SIGKILL');
    await sandbox.close();
    await slack.close();
  }
}

function check(backend: string, sandbox: Sandbox, records: AuditRecord[]): Counts {
  const received = sandbox.requests
    .filter((r) => r.method === 'PUT')
    .map((r) =>
      markerOf((r.body as { permissions?: Record<string, unknown> })?.permissions?.[KEY]),
    );
  const byMarker = new Map<string, AuditRecord[]>();
  for (const record of records) {
    const marker = markerOf(record.changes.find((c) => c.key === KEY)?.after);
    if (!marker) continue;
    byMarker.set(marker, [...(byMarker.get(marker) ?? []), record]);
  }
  const problems: string[] = [];
  for (const marker of received) {
    const found = marker ? (byMarker.get(marker) ?? []) : [];
    if (found.length !== 1) problems.push(`${marker}: received, with ${found.length} records`);
  }
  for (const [marker, found] of byMarker) {
    if (found.length > 1) problems.push(`${marker}: ${found.length} records`);
    if (found.some((r) => r.outcome === 'applied') && !received.includes(marker)) {
      problems.push(`${marker}: recorded as applied, never received`);
    }
  }
  const count = (outcome: AuditRecord['outcome']) =>
    records.filter((r) => r.outcome === outcome).length;
  return {
    backend,
    rounds: ROUNDS,
    received: received.length,
    applied: count('applied'),
    failed: count('failed'),
    unknown: count('unknown'),
    unsent: [...byMarker.keys()].filter((m) => !received.includes(m)).length,
    problems,
  };
}

async function startRedis(): Promise<{ url: string; stop: () => Promise<void> } | undefined> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(true));
    setTimeout(() => resolve(false), 300);
  });
  if (failed) return undefined;
  const url = `redis://127.0.0.1:${port}`;
  await waitFor('redis-server', 5_000, async () => {
    const store = await openStore(url);
    await store.close();
    return true;
  });
  return { url, stop: () => kill(child, 'SIGTERM') };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cometchat-crash-'));
  const results: Counts[] = [];
  let notRun = false;
  try {
    results.push(await run('sqlite', join(dir, 'state.sqlite')));
    const redis = await startRedis();
    if (redis) {
      try {
        results.push(await run('redis', redis.url));
      } finally {
        await redis.stop();
      }
    } else notRun = true;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write('\n');
  for (const r of results) {
    process.stdout.write(
      `${r.backend}: ${r.rounds} kills; ${r.received} updates received by the sandbox; records: ${r.applied} applied, ${r.failed} failed, ${r.unknown} unknown (${r.unsent} of them for an update that never left); ${r.problems.length} problems\n`,
    );
    for (const problem of r.problems) process.stdout.write(`  PROBLEM ${problem}\n`);
  }
  if (notRun) {
    process.stdout.write(
      `\n!!! The Redis half did NOT run: redis-server is not on PATH.${process.env.CI ? ' CI requires it.' : ''}\n`,
    );
  }
  const failed = results.some((r) => r.problems.length > 0) || (notRun && Boolean(process.env.CI));
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`crash test failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
