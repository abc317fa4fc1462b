import { setTimeout as sleep } from 'node:timers/promises';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

describe('per-method latency', () => {
  let standIn: SlackStandIn;
  let bot: WebClient;
  beforeAll(async () => {
    standIn = await startSlackStandIn();
    bot = new WebClient(standIn.botToken, {
      slackApiUrl: standIn.apiUrl,
      retryConfig: { retries: 0 },
      logger: recordingLogger().logger,
    });
  });
  afterAll(async () => {
    await standIn.close();
  });

  // Which of two calls sent together answers first: an ordering, not a duration, so a slow or
  // busy machine cannot turn it around (the delay is far longer than a loopback round trip).
  const first = async (calls: Record<string, () => Promise<unknown>>) =>
    Promise.race(
      Object.entries(calls).map(([name, call]) =>
        call().then(
          () => name,
          () => name,
        ),
      ),
    );
  const slowMethod = () => bot.usergroups.users.list({ usergroup: 'S1' });
  const otherMethod = () => bot.users.info({ user: 'U1' });
  const DELAY = 1_000;

  it('delays only the method it is set for, and is forgotten on reset', async () => {
    standIn.setUserGroups({ S1: ['U1'] });
    standIn.setMethodLatency('usergroups.users.list', DELAY);
    const started = performance.now();
    expect(await first({ slow: slowMethod, other: otherMethod })).toBe('other');
    await slowMethod();
    // A lower bound only: the delay happened (a busy machine can only make it longer).
    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY - 10);
    standIn.reset();
    standIn.setUserGroups({ S1: ['U1'] });
    expect(await first({ slow: slowMethod, timer: () => sleep(DELAY) })).toBe('slow');
  });

  it('replaces the overall latency for that method; undefined restores it', async () => {
    standIn.setLatency(DELAY);
    standIn.setMethodLatency('users.info', 0);
    expect(await first({ other: otherMethod, slow: slowMethod })).toBe('other');
    standIn.setMethodLatency('users.info', undefined);
    expect(await first({ other: otherMethod, timer: () => sleep(DELAY / 2) })).toBe('timer');
    standIn.setLatency(0);
  });
});
