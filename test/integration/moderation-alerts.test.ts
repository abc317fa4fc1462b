import { describe, expect, it } from 'vitest';
import { SANDBOX_MODERATION_IDS } from '../../offline/cometchat-standin/server.ts';
import {
  MODERATION_FIXTURE_TEXT,
  MODERATION_FIXTURE_TRIGGERS,
} from '../fixtures/moderation-webhooks/index.ts';
import { actionButtons, commandReply, type Harness, textOf } from './harness.ts';
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

/** The text of one of the stand-in's seeded messages, as its blocked webhook carries it. */
function standInText(h: Harness, id: string): string {
  const data = h.sandbox.webhooks.moderationData('moderation_engine_blocked', id);
  const text = JSON.stringify(data).match(/"text":"([^"]+)"/)?.[1];
  if (!text) throw new Error(`the seeded message ${id} has no text`);
  return text;
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

    // An editor who is not in MODERATORS may not claim either; a moderator who edits nothing may.
    before = h.slack.responses.length;
    await click(h, moderator(h, 'U0EDITOR'), post, 'moderation_alert_claim');
    expect(textOf((await h.slack.nextResponse(before)).body)).toContain('MODERATORS');
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

  it('claims each channel’s post of one alert on its own, naming who on that post', async () => {
    const h = await start({ env: ENV });
    for (const channel of ['C0ALL', 'C0OTHER']) {
      await commandReply(h, 'subscribe moderation blocked', h.driver, { channel_id: channel });
    }
    expect(await send(h, 'moderation_engine_blocked')).toBe(200);
    const inAll = await h.slack.waitFor(() => alertsIn(h, 'C0ALL')[0]);
    const inOther = await h.slack.waitFor(() => alertsIn(h, 'C0OTHER')[0]);
    const updates = () => h.slack.calls.filter((c) => c.method === 'chat.update');
    await click(h, moderator(h, 'U0OPERATOR'), inAll, 'moderation_alert_claim');
    await h.slack.waitFor(() => updates()[0]);
    // The other channel's post never names who claimed the first: it is claimed on its own.
    await click(h, moderator(h, 'U0SECOND', 'C0OTHER'), inOther, 'moderation_alert_claim');
    const second = await h.slack.waitFor(() => updates()[1]);
    expect(second.args.channel).toBe('C0OTHER');
    expect(textOf(second.args)).toContain('Claimed by <@U0SECOND>');
    expect(updates().map((u) => u.args.channel)).toEqual(['C0ALL', 'C0OTHER']);
  });

  it("opens a blocked message's Review as the queue's Details, its text for a moderator alone", async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation blocked', h.driver, { channel_id: 'C0ALL' });
    const id = SANDBOX_MODERATION_IDS.blocked.profanity;
    const text = standInText(h, id);
    h.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    expect((await h.sandbox.webhooks.sendModeration('moderation_engine_blocked', id))?.status).toBe(
      200,
    );
    const post = await h.slack.waitFor(() => alertsIn(h, 'C0ALL')[0]);
    const reads = () => h.sandbox.requests.filter((r) => r.path.includes('/moderation/')).length;
    const readBefore = reads();
    // Neither a stranger nor an editor who is not in MODERATORS may review it: nothing is read.
    for (const who of ['U0STRANGER', 'U0EDITOR']) {
      const before = h.slack.responses.length;
      await click(h, moderator(h, who), post, 'moderation_review');
      expect(textOf((await h.slack.nextResponse(before)).body)).toMatch(/only|may/i);
    }
    expect(reads()).toBe(readBefore);
    const before = h.slack.responses.length;
    await click(h, moderator(h, 'U0OPERATOR'), post, 'moderation_review');
    const details = (await h.slack.nextResponse(before)).body;
    // The queue's own Details: a reply only the moderator sees, with the blocked queue's decisions.
    expect(details).toMatchObject({ replace_original: false });
    expect(details).not.toHaveProperty('response_type', 'in_channel');
    expect(textOf(details)).toContain(`*Blocked* \`${id}\``);
    // Escaped for mrkdwn: its words as they are, its `*` made inert.
    expect(textOf(details)).toContain(text.slice(-15));
    expect(actionButtons(details as Record<string, unknown>).map((b) => b.text.text)).toEqual([
      'Deliver',
      'Keep blocked',
    ]);
    // Only in that reply: no post and no log line has it.
    const elsewhere = JSON.stringify([h.slack.calls.map((c) => c.args), h.logs.lines]);
    expect(elsewhere).not.toContain(text);
  });

  it('posts each moderation webhook the stand-in sends for its seeded messages', async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation', h.driver, { channel_id: 'C0ALL' });
    h.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
    const { blocked } = SANDBOX_MODERATION_IDS;
    const sent = [
      ['moderation_engine_blocked', blocked.spamLink],
      ['moderation_engine_approved', blocked.spamLink],
      ['moderation_manual_approved', blocked.profanity],
      ['moderation_engine_failed', blocked.emailInGroup],
    ] as const;
    for (const [trigger, id] of sent) {
      expect((await h.sandbox.webhooks.sendModeration(trigger, id))?.status).toBe(200);
    }
    await h.slack.waitFor(() => alertsIn(h, 'C0ALL')[2]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posted = alertsIn(h, 'C0ALL').map((c) => textOf(c.args));
    expect(posted).toHaveLength(3);
    expect(posted.join('\n')).toContain('A rule blocked a message');
    expect(posted.join('\n')).toContain('A moderator approved a blocked message');
    expect(posted.join('\n')).toContain('messages this rule checks are *dropped*');
    const texts = [blocked.spamLink, blocked.profanity, blocked.emailInGroup].map((id) =>
      standInText(h, id),
    );
    const said = await everythingSaid(h);
    for (const text of texts) expect(said).not.toContain(text);
  });

  it('posts a burst of 30 blocked messages as three alerts and one count message it updates', async () => {
    const h = await start({ env: ENV });
    await commandReply(h, 'subscribe moderation blocked', h.driver, { channel_id: 'C0ALL' });
    expect(await sendBurst([h], 'C0ALL')).toEqual({ alerts: 3, countMessages: 1, counted: 27 });
  }, 30_000);
});
