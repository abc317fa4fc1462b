import { expect } from 'vitest';
import { createSlackDriver, type SlackDriver } from '../../offline/slack-standin/driver.ts';
import {
  type ModerationFixtureTrigger,
  moderationData,
} from '../fixtures/moderation-webhooks/index.ts';
import { actionButtons, type Harness, textOf } from './harness.ts';

// The steps the moderation alert tests share: the webhook's address and credentials, sending a
// published example, the alerts a channel shows, and clicking their buttons.

export const USER = 'cometchat-hooks';
export const PASSWORD = 'a-webhook-password-of-some-length';
export const ENV = {
  COMETCHAT_WEBHOOK_USER: USER,
  COMETCHAT_WEBHOOK_PASSWORD: PASSWORD,
  // The moderators are not the editors: Claim and Review ask MODERATORS, never EDITORS.
  MODERATORS: 'U0OPERATOR,U0SECOND',
  EDITORS: 'U0EDITOR',
};

export function webhookUrl(h: Harness): string {
  return h.appUrl.replace('/slack/events', '/cometchat/webhooks/default');
}

/** The moderation alerts posted in `channel` so far (not announcements, not count messages). */
export function alertsIn(h: Harness, channel: string) {
  return h.slack.calls.filter(
    (c) =>
      c.method === 'chat.postMessage' &&
      c.args.channel === channel &&
      !textOf(c.args).includes('subscribed this channel') &&
      !textOf(c.args).includes('in the last minute'),
  );
}

/** Sends a moderation webhook to `h`'s listener, through `from`'s stand-in (the one replicas share). */
export async function send(
  h: Harness,
  trigger: ModerationFixtureTrigger,
  data = moderationData(trigger),
  from: Harness = h,
) {
  // `send` reads the address when called: each delivery goes to its replica.
  from.sandbox.webhooks.configure({ url: webhookUrl(h), username: USER, password: PASSWORD });
  return (await from.sandbox.webhooks.send(trigger, data))?.status;
}

/** Everything the app sent Slack and logged, and its metrics: where no text may be. */
export async function everythingSaid(h: Harness): Promise<string> {
  return JSON.stringify([
    h.messages(),
    h.views(),
    h.slack.calls.map((c) => c.args),
    h.logs.lines,
    await h.app.metrics.registry.metrics(),
  ]);
}

/** A driver acting as `userId` in the alerts' channel (C0ALL unless `channelId` says). */
export function moderator(h: Harness, userId: string, channelId = 'C0ALL'): SlackDriver {
  return createSlackDriver({
    appUrl: h.appUrl,
    signingSecret: h.config.slack.signingSecret ?? '',
    standIn: h.slack,
    userId,
    channelId,
  });
}

/** Clicks `actionId` on the alert `post` (as posted, or as `blocks` say now) as `driver`'s user. */
export function click(
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

/**
 * Sends `count` blocked messages (each its own) to the replicas in turn, all at once, to a
 * channel subscribed to them, and answers what the channel shows once it all is: the alerts
 * posted one by one, the count messages posted, and their last count.
 */
export async function sendBurst(replicas: readonly Harness[], channel: string, count = 30) {
  const [a] = replicas;
  if (!a) throw new Error('no replica');
  const sent = Array.from({ length: count }, (_, i) => {
    const data = moderationData('moderation_engine_blocked');
    Object.assign(data.message as object, { id: String(500_000 + i) });
    return send(replicas[i % replicas.length] ?? a, 'moderation_engine_blocked', data, a);
  });
  expect(await Promise.all(sent)).toEqual(Array(count).fill(200));
  const here = () => a.slack.calls.filter((c) => c.args.channel === channel && c.answer);
  const counted = () =>
    here()
      .map((c) => /(\d+) more moderation alerts?/.exec(textOf(c.args))?.[1])
      .filter((n) => n !== undefined)
      .map(Number);
  const shown = () => alertsIn(a, channel).length + (counted().at(-1) ?? 0);
  await a.slack.waitFor(() => shown() >= count || undefined, 15_000);
  // Past the count message's next update (every 2 s), for any post or update still to come.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  return {
    alerts: alertsIn(a, channel).length,
    countMessages: here().filter(
      (c) => c.method === 'chat.postMessage' && textOf(c.args).includes('more moderation alert'),
    ).length,
    counted: counted().at(-1),
  };
}
