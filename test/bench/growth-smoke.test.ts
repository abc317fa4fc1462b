import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  fillStore,
  GROWTH_READS,
  type GrowthRead,
  type GrowthSize,
  growthSubject,
  medianCosts,
} from '../../bench/growth.ts';
import { createRedisStore } from '../../src/store/redis-store.ts';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';

/*
 * `npm run bench:growth` in small, for CI: every budgeted read behind `/cometchat audit`, the
 * Home tab and `/cometchat roles`, on a store of 10,000 records and 1,000 subscriptions against
 * one of 100 and 10, costs at most twice as much. A ratio of medians over many calls, the two
 * stores called in turn, not a time: a read that walks the trail or every subscription costs
 * tens of times more on the large store, and a busy machine slows both stores alike.
 */

const SMALL: GrowthSize = { records: 100, subscriptions: 10 };
const LARGE: GrowthSize = { records: 10_000, subscriptions: 1_000 };
const ROUNDS = { kept: 101, warmUp: 20 };
const BUDGETED = GROWTH_READS.filter((read) => read.budget);

interface Over {
  read: string;
  small: string;
  large: string;
  ratio: number;
}

/** The reads whose large store cost more than twice the small one's, over `rounds`. */
async function overBudget(
  subjects: Parameters<typeof medianCosts>[0],
  reads: readonly GrowthRead[],
  rounds: typeof ROUNDS,
): Promise<{ read: GrowthRead; over: Over }[]> {
  const costs = await medianCosts(subjects, reads, rounds);
  return reads.flatMap((read, i) => {
    const [small = Number.NaN, large = Number.NaN] = costs[i] ?? [];
    const ratio = large / small;
    const over = {
      read: read.name,
      small: `${(small * 1000).toFixed(0)} µs`,
      large: `${(large * 1000).toFixed(0)} µs`,
      ratio: Number(ratio.toFixed(2)),
    };
    return ratio <= 2 ? [] : [{ read, over }];
  });
}

async function expectFlatGrowth(small: Store, large: Store): Promise<void> {
  await fillStore(small, SMALL);
  await fillStore(large, LARGE);
  const subjects = [growthSubject(small), growthSubject(large)];
  // The person's Home shows the same ten lines from either store.
  const shown = await Promise.all(subjects.map((s) => s.alerts('U0CHECK')));
  expect(shown[0]?.lines).toHaveLength(10);
  expect(shown[1]).toEqual(shown[0]);

  const first = await overBudget(subjects, BUDGETED, ROUNDS);
  // A read over budget is timed once more, twice as long, before it fails: a spell of other
  // work on a shared machine does not last that long, a walk of the whole store always does.
  const again = await overBudget(
    subjects,
    first.map(({ read }) => read),
    { kept: 2 * ROUNDS.kept, warmUp: ROUNDS.warmUp },
  );
  expect(
    again.map(({ over }) => over),
    'reads costing more than twice as much with 10,000 records and 1,000 subscriptions',
  ).toEqual([]);
  // The role list reads nothing from the store: nothing of it can grow with the data.
  expect(subjects.map((s) => s.roleListStoreReads())).toEqual([0, 0]);
}

describe('growth with data (CI smoke of bench:growth)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'growth-smoke-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: every read costs at most twice as much on a store 100 times larger', async () => {
    const small = createSqliteStore(join(dir, 'small.db'));
    const large = createSqliteStore(join(dir, 'large.db'));
    try {
      await expectFlatGrowth(small, large);
    } finally {
      await small.close();
      await large.close();
    }
  }, 60_000);
});

describe.skipIf(skipRedisSuites)('growth with data on Redis', { tags: ['redis'] }, () => {
  const server = useRedisServer();

  it('Redis: every read costs at most twice as much on a store 100 times larger', async () => {
    const prefix = `growth:${randomUUID()}`;
    const small = await createRedisStore(server().url, { keyPrefix: `${prefix}:small:` });
    const large = await createRedisStore(server().url, { keyPrefix: `${prefix}:large:` });
    try {
      await expectFlatGrowth(small, large);
    } finally {
      await small.close();
      await large.close();
    }
  }, 60_000);
});
