import { describe, expect, it } from 'vitest';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { currentView } from '../../offline/stack/editor-steps.ts';
import { openStore } from '../../src/store/open-store.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { type Harness, textOf } from './harness.ts';
import { applied, EDITORS, LEAD, OPERATOR, revertReview, writes } from './revert-steps.ts';
import { driverAs, useReplicas } from './support.ts';

// Two replicas of the app on one Redis store: the same record reverted from both at the same
// moment is put back once, one write and one applied record; whoever comes second is told.

const UID = 'cometchat-uid-4';

/** Each review submitted ("Apply") at once, on its replica: the text each shows afterwards. */
async function applyAtOnce(
  reviews: readonly { h: Harness; view: StoredView; user: string }[],
): Promise<string[]> {
  const [first] = reviews;
  if (!first) return [];
  const mark = first.h.slack.calls.length;
  await Promise.all(
    reviews.map(({ h, view, user }) => {
      const driver = driverAs(h, user);
      return driver.interaction(driver.viewSubmission({ view, values: {} }));
    }),
  );
  return Promise.all(
    reviews.map(async ({ h, view }) => {
      await h.slack.waitFor(
        () =>
          h.slack.calls
            .slice(mark)
            .find((c) => c.method === 'views.update' && c.args.view_id === view.id && c.answer),
        15_000,
      );
      return textOf(currentView(h, view.id));
    }),
  );
}

describe.skipIf(skipRedisSuites)(
  'Revert on two replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const replicas = useReplicas();

    it('puts a change back once when it is reverted on both replicas at the same moment', async () => {
      const [a, b] = await replicas({ ...EDITORS, STORE_URL: redis().url });
      const shared = await openStore(redis().url);
      try {
        const was = a.sandbox.state.users.get(UID)?.role;
        const moved = await applied(a, shared, `user ${UID} role vip`);
        // Each replica reads the record from the shared store, and opens its own review of it.
        const onA = await revertReview(a, moved.ref, OPERATOR);
        const onB = await revertReview(b, moved.ref, LEAD);
        for (const review of [onA, onB]) {
          expect(textOf(review)).toContain(`give \`${UID}\` the role \`${was}\` again`);
        }
        a.sandbox.setLatency(300);
        const outcomes = await applyAtOnce([
          { h: a, view: onA, user: OPERATOR },
          { h: b, view: onB, user: LEAD },
        ]);
        const winners = outcomes.filter((text) => text.includes(`role is now \`${was}\``));
        expect(winners, outcomes.join('\n---\n')).toHaveLength(1);
        const loser = outcomes.find((text) => !winners.includes(text)) ?? '';
        expect(loser).toMatch(/already submitted once|changed in CometChat since the review/);
        expect(writes(a)).toEqual(Array(2).fill(`PUT /v3/users/${UID}`));
        expect(a.sandbox.state.users.get(UID)?.role).toBe(was);
        const records = (await shared.listAudit({ offset: 0, limit: 10 })).records;
        expect(records.filter((r) => r.reverts === moved.ref).map((r) => r.outcome)).toEqual([
          'applied',
        ]);
      } finally {
        await shared.close();
      }
    });

    it('creates a deleted role again once when both replicas revert the deletion at once', async () => {
      const [a, b] = await replicas({ ...EDITORS, STORE_URL: redis().url });
      const shared = await openStore(redis().url);
      try {
        const deletion = await applied(a, shared, 'role delete premium');
        const onA = await revertReview(a, deletion.ref, OPERATOR);
        const onB = await revertReview(b, deletion.ref, LEAD);
        a.sandbox.setLatency(300);
        const outcomes = await applyAtOnce([
          { h: a, view: onA, user: OPERATOR },
          { h: b, view: onB, user: LEAD },
        ]);
        const winners = outcomes.filter((text) => text.includes('Applied to role `premium` (new)'));
        expect(winners, outcomes.join('\n---\n')).toHaveLength(1);
        expect(writes(a).filter((w) => w === 'POST /v3/roles')).toHaveLength(1);
        expect(a.sandbox.state.roles.filter((r) => r.role === 'premium')).toHaveLength(1);
        const records = (await shared.listAudit({ offset: 0, limit: 10 })).records;
        expect(records.filter((r) => r.reverts === deletion.ref).map((r) => r.outcome)).toEqual([
          'applied',
        ]);
      } finally {
        await shared.close();
      }
    });
  },
);
