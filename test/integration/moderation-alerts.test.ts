import { describe, expect, it } from 'vitest';
import { createSlackDriver, type SlackDriver } from '../../offline/slack-standin/driver.ts';
import {
  MODERATION_FIXTURE_TEXT,
  MODERATION_FIXTURE_TRIGGERS,
  type ModerationFixtureTrigger,
  moderationData,
} from '../fixtures/moderation-webhooks/index.ts';
import { actionButtons, commandReply, type Harness, textOf } from './harness.ts';
import { useHarnessStarter } from './support.ts';

// Moderation alerts through the real app: the stand-in sends CometChat's moderation webhooks
// (their published shapes, from test/fixtures) to the app's listener, which posts them in the
// channels subscribed with `subscribe moderation`.

const USER = 'cometchat-hooks';
const PASSWORD = 'a-webhook-password-of-some-length';
const ENV = {
  COMETCHAT_WEBHOOK_USER: USER,
  COMETCHAT_WEBHOOK_PASSWORD: PASSWORD,
  // Until MODERATORS is wired, the app's editors moderate.
  EDITORS: 'U0OPERATOR,U0SECOND',
};

function webhookUrl(h: Harness): string {
  return h.appUrl.replace('/slack/events', '/cometchat/webhooks/default');
}

/** The moderation alerts posted in `channel` so far (not announcements, not count messages). */
function alertsIn(h: Harness, channel: string) {
  return h.slack.calls.filter(
    (c) =>
      c.method === 'chat.postMessage' &&
      c.args.channel === channel &&
      !textOf(c.args).includes('subscribed this channel') &&
      !textOf(c.args).includes('in the last minute'),
  );
}

async function send(h: Harness, trigger: ModerationFixtureTrigger, data = moderationData(trigger)) {
  h.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
  return (await h.sandbox.webhooks.send(trigger, data))?.status;
}

/** Everything the app sent Slack and logged, and its metrics: where no text may be. */
async function everythingSaid(h: Harness): Promise<string> {
  return JSON.stringify([
    h.messages(),
    h.views(),
    h.slack.calls.map((c) => c.args),
    h.logs.lines,
    await h.app.metrics.registry.metrics(),
  ]);
}

/** A driver acting as `userId` in the alerts' channel. */
function moderator(h: Harness, userId: string): SlackDriver {
  return createSlackDriver({
    appUrl: h.appUrl,
    signingSecret: h.config.slack.signingSecret ?? '',
    standIn: h.slack,
    userId,
    channelId: 'C0ALL',
  });
}

/** Clicks `actionId` on the alert `post` (as posted, or as `blocks` say now) as `driver`'s user. */
function click(
  h: Harness,
  driver: SlackDriver,
  post: { args: Record<string, unknown>; answer?: Record<string, unknown> },
  actionId: string,
) {
  const blocks = post.args.blocks as unknown[];
  const button = actionButtons({ blocks }).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} button`);
  const ts = String(post.answer?.ts ?? '1700000000.000100');
  return driver.interaction(
    driver.blockAction({
      actionId,
      value: button.value,
      responseUrl: h.slack.responseUrl(),
      message: { ts, text: textOf(post.args), blocks },
    }),
  );
}

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
    const sent = Array.from({ length: 30 }, (_, i) => {
      const data = moderationData('moderation_engine_blocked');
      Object.assign(data.message as object, { id: String(500_000 + i) });
      return send(h, 'moderation_engine_blocked', data);
    });
    expect(await Promise.all(sent)).toEqual(Array(30).fill(200));
    const here = () => h.slack.calls.filter((c) => c.args.channel === 'C0ALL' && c.answer);
    const counted = () =>
      here()
        .map((c) => /(\d+) more moderation alerts/.exec(textOf(c.args))?.[1])
        .filter((n) => n !== undefined)
        .map(Number);
    await h.slack.waitFor(() => counted().includes(27) || undefined, 15_000);
    // Past the count message's next update (every 2 s), for any post or update still to come.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const countPosts = here().filter(
      (c) => c.method === 'chat.postMessage' && textOf(c.args).includes('more moderation alert'),
    );
    expect(alertsIn(h, 'C0ALL')).toHaveLength(3);
    expect(countPosts).toHaveLength(1);
    expect(counted().at(-1)).toBe(27);
  }, 30_000);
});
