import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { channelBurst, settled, shownInChannel } from '../../bench/channel-burst.ts';
import { appEnv } from '../../bench/stack.ts';
import {
  SANDBOX_SESSION_IDS,
  type Sandbox,
  startSandbox,
} from '../../offline/cometchat-standin/server.ts';
import { createSlackDriver } from '../../offline/slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../../offline/slack-standin/server.ts';
import { OFFLINE_SECRETS } from '../../offline/stack/offline-stack.ts';
import { openStore } from '../../src/store/open-store.ts';
import { freePort, kill, startApp, waitFor } from '../crash/child-app.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { textOf } from './harness.ts';

// A burst of alerts that reaches two or three replicas, each a process of its own (the app
// started as `node --import tsx src/main.ts`) sharing one redis-server, gives the channel what
// one replica gives it: the burst gate counts in Redis, not in each process. The stand-ins run
// in this process; each case has a Redis database of its own, so each burst starts a fresh
// window. alert-burst-replicas.test.ts proves the same with the replicas in one process.

const USER = 'cometchat-hooks';
const PASSWORD = 'a-webhook-password-of-some-length';
const CHANNEL = 'C0BURSTPROC';
const EVENTS = 30;

describe.skipIf(skipRedisSuites)(
  'a burst of alerts on replicas in processes of their own, sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    let sandbox: Sandbox | undefined;
    let slack: SlackStandIn | undefined;
    const running: ChildProcess[] = [];
    beforeAll(async () => {
      sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
      slack = await startSlackStandIn();
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((child) => kill(child, 'SIGTERM')));
    });
    afterAll(async () => {
      await slack?.close();
      await sandbox?.close();
    });
    function standIns() {
      if (!sandbox || !slack) throw new Error('the stand-ins are not running');
      return { sandbox, slack };
    }

    /** `count` replicas on the Redis database `db`, started side by side; their ports. */
    async function startReplicas(count: number, storeUrl: string): Promise<number[]> {
      const { sandbox, slack } = standIns();
      const env = {
        ...appEnv(slack, sandbox, storeUrl),
        LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'warn',
        COMETCHAT_WEBHOOK_USER: USER,
        COMETCHAT_WEBHOOK_PASSWORD: PASSWORD,
      };
      const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
      const started = await Promise.allSettled(ports.map((port) => startApp(env, port)));
      for (const s of started) if (s.status === 'fulfilled') running.push(s.value);
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      return ports;
    }

    /**
     * The channel subscribed through the first replica, then the same 30 `call_ended` events
     * sent to the replicas in turn, all at once; resolves with what the channel got once every
     * event was handed on and posting settled. The replicas are stopped after.
     */
    async function burstOn(count: number, db: number) {
      const { sandbox, slack } = standIns();
      const storeUrl = `${redis().url}/${db}`;
      const ports = await startReplicas(count, storeUrl);
      const url = (port: number | undefined) => `http://127.0.0.1:${port}`;
      const driver = createSlackDriver({
        appUrl: `${url(ports[0])}/slack/events`,
        signingSecret: OFFLINE_SECRETS.signingSecret,
        standIn: slack,
        channelId: CHANNEL,
      });
      const replies = slack.responses.length;
      expect((await driver.command('subscribe calls status:ended')).status).toBe(200);
      expect(textOf((await slack.nextResponse(replies)).body)).toContain(
        `Subscribed <#${CHANNEL}> to `,
      );

      const mark = slack.calls.length;
      const data = sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded);
      const answers = await Promise.all(
        Array.from({ length: EVENTS }, (_, i) => {
          const port = ports[i % ports.length];
          // `send` reads the address when called: each delivery goes to its replica.
          sandbox.webhooks.configure({
            url: `${url(port)}/cometchat/webhooks/default`,
            username: USER,
            password: PASSWORD,
          });
          return sandbox.webhooks.send('call_ended', { ...data, destroyed_at: 1_700_000_800 + i });
        }),
      );
      // Each event answered, and taken as a new one (none deduplicated) by the replica it reached.
      expect(answers.map((a) => [a?.status, a ? JSON.parse(a.body).kept : undefined])).toEqual(
        Array(EVENTS).fill([200, true]),
      );

      const store = await openStore(storeUrl);
      try {
        // An event is let go once it is posted, or counted in a message Slack took.
        await waitFor('every event handed on', 20_000, async () =>
          (await store.listWebhookEvents(Number.MAX_SAFE_INTEGER)).length === 0 ? true : undefined,
        );
      } finally {
        await store.close();
      }
      await settled(slack, CHANNEL);
      const got = channelBurst(slack, CHANNEL, mark);
      await Promise.all(running.splice(0).map((child) => kill(child, 'SIGTERM')));
      return got;
    }

    it('posts 30 events to a channel on two and three replicas as one replica does', async () => {
      const one = shownInChannel(await burstOn(1, 1));
      // The gate's rule (three alerts a window one by one, then one count message): the first
      // three alerts posted, one count message that ends up counting the other 27, never more.
      expect(one).toEqual({ alerts: 3, countMessages: 1, counted: 27, highest: 27, refused: 0 });
      expect(shownInChannel(await burstOn(2, 2))).toEqual(one);
      expect(shownInChannel(await burstOn(3, 3))).toEqual(one);
    }, 60_000);
  },
);
