import { describe, expect, it } from 'vitest';
import {
  MODERATION_FIXTURE_TEXT,
  MODERATION_FIXTURE_TRIGGERS,
} from '../fixtures/moderation-webhooks/index.ts';
import { actionButtons, commandReply, textOf } from './harness.ts';
import {
  alertsIn,
  click,
  ENV,
  everythingSaid,
  moderator,
  PASSWORD,
  send,
  sendBurst,
  USER,
  webhookUrl,
} from './moderation-alerts-steps.ts';
import { useHarnessStarter } from './support.ts';

// Moderation alerts through the real app: the stand-in sends CometChat's moderation webhooks
// (their published shapes, from test/fixtures) to the app's listener, which posts them in the
// channels subscribed with `subscribe moderation`.

describe('moderation alerts', () => {
  const start = useHarnessStarter();

  it('posts each published moderation webhook once where subscribed, never its text', async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation', h.driver, { channel_id: 'C0ALL' });
    await commandReply(h, 'subscribe moderation failed', h.driver, { channel_id: 'C0FAILED' });
    const listed = textOf(
      await commandReply(h, 'subscriptions', h.driver, { channel_id: 'C0ALL' }),
    );
    expect(listed).toContain('*moderation alerts* `blocked` `failed` `approved`');
    // Each delivered twice (CometChat's retry): taken both times, posted once.
    const answers = [];
    for (const trigger of [...MODERATION_FIXTURE_TRIGGERS, ...MODERATION_FIXTURE_TRIGGERS]) {
      answers.push(await send(h, trigger));
    }
    expect(answers).toEqual(Array(8).fill(200));
    await h.slack.waitFor(() => alertsIn(h, 'C0ALL')[2] && alertsIn(h, 'C0FAILED')[0]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = alertsIn(h, 'C0ALL').map((c) => textOf(c.args));
    expect(all).toHaveLength(3);
    const blocked = all.find((text) => text.includes('A rule blocked a message')) ?? '';
    expect(blocked).toContain('From `cometchat-uid-1` to `cometchat-uid-3`');
    expect(blocked).toContain('conversation `cometchat-uid-1_user_cometchat-uid-3`');
    expect(blocked).toContain('Rule *Profanity filter* (`profanity-filter`): `blockMessage`');
    const approved = all.find((text) => text.includes('A moderator approved a blocked message'));
    expect(approved).toContain('From `cometchat-uid-2` in the group `support-room`');
    const failed = all.find((text) => text.includes('Moderation could not check a message')) ?? '';
    expect(failed).toContain(
      '*openai* for the rule *AI toxicity* (`ai-toxicity`) did not answer in time (after 3000 ms) ×2: messages this rule checks go through *unchecked*',
    );
    expect(failed).toContain('are *dropped* (never delivered)');
    const failedOnly = alertsIn(h, 'C0FAILED').map((c) => textOf(c.args));
    expect(failedOnly).toHaveLength(1);
    expect(failedOnly[0]).toContain('Moderation could not check a message');
    const buttons = alertsIn(h, 'C0ALL').map((c) =>
      actionButtons({ blocks: c.args.blocks as unknown[] }).map((b) => b.text.text),
    );
    expect(buttons.sort()).toEqual([['Claim'], ['Claim'], ['Review', 'Claim']]);
    expect(await everythingSaid(h)).not.toContain(MODERATION_FIXTURE_TEXT);
  });

  it('answers a moderation webhook of another shape with one sentence, and posts nothing', async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation', h.driver, { channel_id: 'C0ALL' });
    h.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    const answer = await h.sandbox.webhooks.send('moderation_engine_blocked', { message: {} });
    expect(answer?.status).toBe(400);
    expect(answer?.body).toContain('not a moderation_engine_blocked of the documented shape');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alertsIn(h, 'C0ALL')).toEqual([]);
  });

  it('names the first moderator who claims an alert, tells the second, and refuses anyone else', async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation blocked', h.driver, { channel_id: 'C0ALL' });
    expect(await send(h, 'moderation_engine_blocked')).toBe(200);
    const post = await h.slack.waitFor(() => alertsIn(h, 'C0ALL')[0]);
    const updates = () => h.slack.calls.filter((c) => c.method === 'chat.update');

    let before = h.slack.responses.length;
    expect(
      (await click(h, moderator(h, 'U0STRANGER'), post, 'moderation_alert_claim')).status,
    ).toBe(200);
    expect(textOf((await h.slack.nextResponse(before)).body)).toMatch(/only|may/i);
    expect(updates()).toEqual([]);

    await click(h, moderator(h, 'U0OPERATOR'), post, 'moderation_alert_claim');
    const claimed = await h.slack.waitFor(() => updates()[0]);
    expect(textOf(claimed.args)).toContain('Claimed by <@U0OPERATOR>');
    expect(
      actionButtons({ blocks: claimed.args.blocks as unknown[] }).map((b) => b.text.text),
    ).toEqual(['Review']);

    // The second clicked the post as it was before the first claim showed.
    before = h.slack.responses.length;
    await click(h, moderator(h, 'U0SECOND'), post, 'moderation_alert_claim');
    expect(textOf((await h.slack.nextResponse(before)).body)).toContain(
      'Someone claimed this alert first',
    );
    expect(updates()).toHaveLength(1);
  });

  it("opens a blocked message's Review for a moderator, and tells anyone else why not", async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation blocked', h.driver, { channel_id: 'C0ALL' });
    expect(await send(h, 'moderation_engine_blocked')).toBe(200);
    const post = await h.slack.waitFor(() => alertsIn(h, 'C0ALL')[0]);
    const before = h.slack.responses.length;
    await click(h, moderator(h, 'U0STRANGER'), post, 'moderation_review');
    expect(textOf((await h.slack.nextResponse(before)).body)).toMatch(/only|may/i);
    expect(h.views()).toEqual([]);
    await click(h, moderator(h, 'U0OPERATOR'), post, 'moderation_review');
    const view = await h.slack.waitFor(() => h.views()[0]);
    expect(textOf(view)).toContain('Message `390079`');
  });

  it('posts a burst of 30 blocked messages as three alerts and one count message it updates', async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation blocked', h.driver, { channel_id: 'C0ALL' });
    expect(await sendBurst([h], 'C0ALL')).toEqual({ alerts: 3, countMessages: 1, counted: 27 });
  }, 30_000);
});
