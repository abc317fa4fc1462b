import { describe, expect, it } from 'vitest';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { commandReply, textOf } from './harness.ts';
import { alertsIn, click, ENV, moderator, send, sendBurst } from './moderation-alerts-steps.ts';
import { useReplicas } from './support.ts';

// Moderation alerts on two replicas sharing one Redis: a delivery each replica receives is
// posted once, two moderators claiming one alert at once on different replicas give it one
// claimant, and a burst is folded as one replica folds it.

describe.skipIf(skipRedisSuites)(
  'moderation alerts on replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const replicas = useReplicas();

    it('names one moderator when two claim one alert at once on two replicas', async () => {
      const [a, b] = await replicas({ ...ENV, STORE_URL: `${redis().url}/1` });
      await commandReply(a, 'subscribe moderation blocked', a.driver, { channel_id: 'C0ALL' });
      // The same delivery to each replica: posted once.
      expect(await send(a, 'moderation_engine_blocked')).toBe(200);
      expect(await send(b, 'moderation_engine_blocked', undefined, a)).toBe(200);
      const post = await a.slack.waitFor(() => alertsIn(a, 'C0ALL')[0]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(alertsIn(a, 'C0ALL')).toHaveLength(1);

      const before = a.slack.responses.length;
      const clicks = await Promise.all([
        click(a, moderator(a, 'U0OPERATOR'), post, 'moderation_alert_claim'),
        click(b, moderator(b, 'U0SECOND'), post, 'moderation_alert_claim'),
      ]);
      expect(clicks.map((c) => c.status)).toEqual([200, 200]);
      const told = await a.slack.waitFor(() =>
        a.slack.responses
          .slice(before)
          .find((r) => textOf(r.body).includes('Someone claimed this alert first')),
      );
      expect(told).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const updates = a.slack.calls.filter((c) => c.method === 'chat.update');
      expect(updates).toHaveLength(1);
      expect(textOf(updates[0]?.args)).toMatch(/Claimed by <@U0(OPERATOR|SECOND)>/);
    });

    it('folds a burst of 30 on two replicas as one replica does', async () => {
      const [a, b] = await replicas({ ...ENV, STORE_URL: `${redis().url}/2` });
      await commandReply(a, 'subscribe moderation', a.driver, { channel_id: 'C0ALL' });
      expect(await sendBurst([a, b], 'C0ALL')).toEqual({
        alerts: 3,
        countMessages: 1,
        counted: 27,
      });
    }, 30_000);
  },
);
