import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisStore } from '../src/store/redis-store.ts';
import { createSqliteStore } from '../src/store/sqlite-store.ts';
import type { AuditRecord, Store, Subscription } from '../src/store/store.ts';
import { onPath, REDIS_INSTALL_HINT, startRedis } from './redis.ts';
import { type Budget, budgetLines, machine, ms, ratio, table } from './report.ts';
import { median } from './stats.ts';

// `npm run bench:growth`: what a page of the audit trail (the `/cometchat audit` page, by role
// too, and the Home tab's recent changes) and the subscription listings cost with a small store
// and a large one, on SQLite and on Redis (when redis-server is on PATH). Each figure is the
// median of ROUNDS calls after a warm-up; the budget is the large store's cost at most 2× the
// small one's. The role list reads CometChat, not the store: nothing of it grows here.

const ROUNDS = Number(process.env.GROWTH_ROUNDS ?? 300);
const SMALL = { records: 100, subscriptions: 100 };
const LARGE = {
  records: Number(process.env.GROWTH_RECORDS ?? 100_000),
  subscriptions: Number(process.env.GROWTH_SUBSCRIPTIONS ?? 1_000),
};
const APPS = ['default', 'staging', 'eu'];
// Three roles, so that the small store too has a full page of a role in an app.
const ROLES = ['moderator', 'member', 'guest'];

function record(i: number): AuditRecord {
  return {
    ref: `ref-${String(i).padStart(7, '0')}`,
    at: 1_700_000_000_000 + i * 1_000,
    app: APPS[i % APPS.length] ?? 'default',
    teamId: 'T1',
    userId: `U${i % 50}`,
    role: ROLES[Math.floor(i / APPS.length) % ROLES.length] ?? 'member',
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    beforeSource: 'last-update',
    outcome: 'applied',
  };
}

function subscription(i: number): Subscription {
  return {
    id: `sub-${i}`,
    app: APPS[i % APPS.length] ?? 'default',
    channel: `C${String(i % 400).padStart(6, '0')}`,
    kind: 'calls',
    filters: ['status:unanswered'],
    createdBy: 'U0OPERATOR',
    createdAt: 1_700_000_000_000 + i,
  };
}

async function fill(store: Store, size: typeof SMALL): Promise<void> {
  const BATCH = 500;
  for (let i = 0; i < size.records; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, size.records - i) }, (_, j) => i + j);
    await Promise.all(batch.map((n) => store.appendAudit(record(n))));
  }
  await Promise.all(
    Array.from({ length: size.subscriptions }, (_, i) => store.putSubscription(subscription(i))),
  );
}

/**
 * The reads measured, by what the person sees. A page has a budget; a listing of every
 * subscription (of an app, or all of them for the Home's alerts) returns ten times as many with
 * the large store, so it is shown without one.
 */
const READS: [string, (store: Store) => Promise<unknown>, budget: boolean][] = [
  ['audit page 1 (app)', (s) => s.listAudit({ app: 'default', offset: 0, limit: 10 }), true],
  ['audit page 3 (app)', (s) => s.listAudit({ app: 'default', offset: 20, limit: 10 }), true],
  [
    'audit page 1 (app, role)',
    (s) => s.listAudit({ app: 'default', role: 'guest', offset: 0, limit: 10 }),
    true,
  ],
  ['Home recent changes', (s) => s.listAudit({ offset: 0, limit: 5 }), true],
  ['subscriptions of a channel', (s) => s.listSubscriptions({ channel: 'C000007' }), true],
  ['subscriptions of an app', (s) => s.listSubscriptions({ app: 'staging' }), false],
  ['Home: every subscription', (s) => s.listSubscriptions({}), false],
];

/** Median time of each read on each store, the two stores' calls alternating. */
async function costs(stores: readonly Store[]): Promise<number[][]> {
  const figures = stores.map((): number[] => []);
  for (const [, read] of READS) {
    const times = stores.map((): number[] => []);
    for (let i = 0; i < ROUNDS + 50; i += 1) {
      for (const [j, store] of stores.entries()) {
        const started = performance.now();
        await read(store);
        // The first 50 rounds warm up.
        if (i >= 50) times[j]?.push(performance.now() - started);
      }
    }
    for (const [j, list] of times.entries()) figures[j]?.push(median(list));
  }
  return figures;
}

async function measure(name: string, open: (size: string) => Promise<Store>) {
  const small = await open('small');
  const large = await open('large');
  let figures: number[][];
  try {
    for (const [store, size] of [
      [small, SMALL],
      [large, LARGE],
    ] as const) {
      const started = performance.now();
      await fill(store, size);
      console.error(
        `${name}: ${size.records} records filled in ${ms(performance.now() - started, 0)}`,
      );
    }
    figures = await costs([small, large]);
  } finally {
    await small.close();
    await large.close();
  }
  return report(name, figures);
}

function report(name: string, [small = [], large = []]: number[][]): Budget[] {
  const rows = READS.map(([read], i) => [
    read,
    ms(small[i] ?? Number.NaN, 3),
    ms(large[i] ?? Number.NaN, 3),
    ratio(large[i] ?? Number.NaN, small[i] ?? Number.NaN),
  ]);
  console.log(`\n${name}\n`);
  console.log(
    table(
      [
        'read',
        `${SMALL.records} records, ${SMALL.subscriptions} subs`,
        `${LARGE.records} records, ${LARGE.subscriptions} subs`,
        'ratio',
      ],
      rows,
    ),
  );
  return READS.flatMap(([read, , budget], i): Budget[] =>
    budget
      ? [
          {
            name: `${name}: ${read}`,
            measured: ratio(large[i] ?? Number.NaN, small[i] ?? Number.NaN),
            limit: '≤ 2×',
            pass: (large[i] ?? Number.NaN) <= 2 * (small[i] ?? Number.NaN),
          },
        ]
      : [],
  );
}

async function main(): Promise<void> {
  console.log(`growth with data · ${machine()} · median of ${ROUNDS} calls`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-growth-'));
  const budgets: Budget[] = [];
  try {
    budgets.push(
      ...(await measure('SQLite', async (size) => createSqliteStore(join(dir, `${size}.db`)))),
    );
    if (onPath('redis-server')) {
      const redis = await startRedis();
      try {
        budgets.push(
          ...(await measure('Redis', (size) =>
            createRedisStore(redis.url, { keyPrefix: `growth:${size}:` }),
          )),
        );
      } finally {
        await redis.stop();
      }
    } else console.log(`\nRedis: not measured, redis-server is not on PATH: ${REDIS_INSTALL_HINT}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(budgetLines(budgets));
}

await main();
