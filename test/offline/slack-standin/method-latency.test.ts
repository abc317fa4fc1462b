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

  const timed = async (call: () => Promise<unknown>) => {
    const started = performance.now();
    await call().catch(() => undefined);
    return performance.now() - started;
  };
  const slowMethod = () => bot.usergroups.users.list({ usergroup: 'S1' });
  const otherMethod = () => bot.users.info({ user: 'U1' });

  it('delays only the method it is set for, and is forgotten on reset', async () => {
    standIn.setUserGroups({ S1: ['U1'] });
    standIn.setMethodLatency('usergroups.users.list', 200);
    expect(await timed(slowMethod)).toBeGreaterThanOrEqual(190);
    expect(await timed(otherMethod)).toBeLessThan(190);
    standIn.reset();
    expect(await timed(slowMethod)).toBeLessThan(190);
  });

  it('replaces the overall latency for that method; undefined restores it', async () => {
    standIn.setLatency(200);
    standIn.setMethodLatency('users.info', 0);
    expect(await timed(otherMethod)).toBeLessThan(190);
    standIn.setMethodLatency('users.info', undefined);
    expect(await timed(otherMethod)).toBeGreaterThanOrEqual(190);
    standIn.setLatency(0);
  });
});
