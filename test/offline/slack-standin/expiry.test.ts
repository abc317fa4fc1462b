import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

// A clock the test moves, so Slack's expiries are checked without waiting for them.
let clock = 1_700_000_000_000;
let standIn: SlackStandIn;
let bot: WebClient;

const modal = {
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: 'Loading' },
  blocks: [],
};

beforeAll(async () => {
  standIn = await startSlackStandIn({ now: () => clock });
  bot = new WebClient(standIn.botToken, {
    slackApiUrl: standIn.apiUrl,
    retryConfig: { retries: 0 },
    logger: recordingLogger().logger,
  });
});
afterAll(() => standIn.close());

describe("Slack's expiries", () => {
  it('refuses a trigger_id older than 3 seconds', async () => {
    const fresh = standIn.triggerId();
    const stale = standIn.triggerId();
    clock += 2_999;
    await expect(bot.views.open({ trigger_id: fresh, view: modal })).resolves.toMatchObject({
      ok: true,
    });
    clock += 2;
    const error = await bot.views.open({ trigger_id: stale, view: modal }).catch((e) => e);
    expect(error.data.error).toBe('expired_trigger_id');
  });

  it('refuses posts on a response_url after 30 minutes', async () => {
    const url = standIn.responseUrl();
    clock += 30 * 60 * 1000 + 1;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'late' }),
    });
    expect(response.status).toBe(404);
    expect(standIn.refusedResponses).toMatchObject([{ reason: 'expired_url', at: clock }]);
  });
});
