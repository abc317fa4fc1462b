import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { startOfflineStack } from '../../offline/stack/offline-stack.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { commandReply, type Harness, textOf } from './harness.ts';
import { useReplicas } from './support.ts';

// A burst of alerts that reaches two or three replicas sharing one Redis gives the channel what
// one replica gives it: the first few alerts one by one, then one count message that ends up
// counting the rest. The replicas run in this process (the harness starts each as its own app
// on its own listener, with its own burst gate), not as separate processes.

const USER = 'cometchat-hooks';
const PASSWORD = 'a-webhook-password-of-some-length';
const WEBHOOK_ENV = { COMETCHAT_WEBHOOK_USER: USER, COMETCHAT_WEBHOOK_PASSWORD: PASSWORD };
const CHANNEL = 'C0BURST';
const EVENTS = 30;

function webhookUrl(h: Harness): string {
  return h.appUrl.replace('/slack/events', '/cometchat/webhooks/default');
}

/** What the channel shows: alerts posted one by one, count messages posted, their last count. */
function shownIn(h: Harness) {
  const here = h.slack.calls.filter((c) => c.args.channel === CHANNEL && c.answer);
  const posts = here.filter((c) => c.method === 'chat.postMessage').map((c) => textOf(c.args));
  const counts = here
    .map((c) => /(\d+) more alerts? from CometChat/.exec(textOf(c.args))?.[1])
    .filter((n) => n !== undefined);
  return {
    alerts: posts.filter((text) => text.includes('A call ended')).length,
    countMessages: posts.filter((text) => text.includes('in the last minute')).length,
    counted: Number(counts.at(-1) ?? 0),
  };
}

/** Sends the burst to the replicas in turn, all at once, and waits until it is all shown. */
async function sendBurst(replicas: Harness[]) {
  const [a] = replicas;
  if (!a) throw new Error('no replica');
  await commandReply(a, 'subscribe calls status:ended', a.driver, { channel_id: CHANNEL });
  const data = a.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
  const sent = Array.from({ length: EVENTS }, (_, i) => {
    const h = replicas[i % replicas.length] ?? a;
    // `send` reads the address when called: each delivery goes to its replica.
    a.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    return a.sandbox.webhooks.send('call_ended', { ...data, destroyed_at: 1_700_000_800 + i });
  });
  expect((await Promise.all(sent)).map((answer) => answer?.status)).toEqual(
    Array(EVENTS).fill(200),
  );
  const shown = () => shownIn(a);
  await a.slack.waitFor(() => shown().alerts + shown().counted >= EVENTS || undefined, 15_000);
  // Past the count message's next update (every 2 s), for any post or update still to come.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  return shown();
}

describe.skipIf(skipRedisSuites)(
  'a burst of alerts on replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const replicas = useReplicas();
    const thirds: { stop: () => Promise<void> }[] = [];
    afterEach(async () => {
      for (const stack of thirds.splice(0)) await stack.stop();
    });

    /** Two replicas, or three: the third started as useReplicas starts the second. */
    async function start(count: 1 | 2 | 3, db: number): Promise<Harness[]> {
      const env = { STORE_URL: `${redis().url}/${db}`, ...WEBHOOK_ENV };
      const [a, b] = await replicas(env);
      if (count === 1) return [a];
      if (count === 2) return [a, b];
      const cStack = await startOfflineStack({
        env,
        logDestination: a.logs,
        shared: { sandbox: a.sandbox, slack: a.slack },
      });
      thirds.push(cStack);
      return [a, b, { ...a, ...cStack, logs: a.logs, stop: cStack.stop }];
    }

    it('posts 30 events to a channel on two and three replicas as one replica does', async () => {
      const one = await sendBurst(await start(1, 13));
      // One replica: the first three alerts, then one count message counting the other 27.
      expect(one).toEqual({ alerts: 3, countMessages: 1, counted: EVENTS - 3 });
      expect(await sendBurst(await start(2, 14))).toEqual(one);
      expect(await sendBurst(await start(3, 15))).toEqual(one);
    }, 60_000);
  },
);
