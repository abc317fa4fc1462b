import { createHash } from 'node:crypto';
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { appNameIfSeveral, type CometChatApp, openSealed, valueWriter } from '../../apps/apps.ts';
import { destinationOf, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import { NOT_THERE, platformErrorCode } from '../../slack/slack-errors.ts';
import type { Subscription } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { SUBSCRIPTIONS_HINT, subscriptionLine, subscriptionsMessage } from './alert-view.ts';
import type { SubscribeWords } from './subscription-rules.ts';

// `/cometchat subscribe ...` and `/cometchat subscriptions`: a channel subscribed to one app's
// events, and the list with a Remove button each. Anyone who may use the app may subscribe a
// channel the app is in: the subscription is announced in the channel, which is also how the app
// learns it may post there.

const RemoveValue = z.object({ id: z.string().min(1).max(64) });

/**
 * One subscription per channel, app, kind and filters: asked again, it is the same one (a
 * digest has no filters, so a channel has one per app, and asking again replaces its time).
 */
export function subscriptionId(
  app: string,
  channel: string,
  words: { kind: Subscription['kind']; filters: readonly string[] },
): string {
  const key = [app, channel, words.kind, ...words.filters].join('\n');
  return createHash('sha256').update(key).digest('hex').slice(0, 24);
}

// Slack's rule, kept with Slack's glue (the audit trail gives up on the same errors); the other
// alert modules import it from here.
export { NOT_THERE };

/** What a subscription is, before who made it, where and when are added. */
export type SubscriptionAsked = Pick<Subscription, 'id' | 'kind' | 'filters'> &
  Partial<Pick<Subscription, 'at'>>;

/** `subscribe`: kept, then announced in the channel; a channel the app cannot post in is undone. */
export function createSubscribeCommand(deps: AppDeps) {
  return (
    app: CometChatApp,
    words: SubscribeWords,
    body: { channel_id: string; user_id: string },
    scope: RequestScope,
  ): Promise<void> =>
    subscribeChannel(deps, { app, body, scope }, async () => ({
      id: subscriptionId(app.name, body.channel_id, words),
      kind: words.kind,
      filters: words.filters,
    }));
}

/**
 * A subscription of the channel the command was typed in, whatever it posts: kept, then
 * announced there; a channel the app cannot post in is undone. `asked` is read once the channel
 * is known to be one.
 */
export async function subscribeChannel(
  deps: AppDeps,
  request: {
    app: CometChatApp;
    body: { channel_id: string; user_id: string };
    scope: RequestScope;
  },
  asked: () => Promise<SubscriptionAsked>,
): Promise<void> {
  const { app, body, scope } = request;
  const reply = (text: string) => tell(deps, body, { text }, scope);
  const channel = body.channel_id;
  if (!/^[CG]/.test(channel)) {
    return reply('Subscriptions are made in a channel: run it there (invite the app first).');
  }
  const subscription: Subscription = {
    ...(await asked()),
    app: app.name,
    channel,
    createdBy: body.user_id,
    createdAt: deps.now(),
  };
  const line = subscriptionLine(subscription, appNameIfSeveral(deps.apps, app));
  await deps.store.putSubscription(subscription);
  try {
    await deps.client.chat.postMessage({
      channel,
      text: `<@${body.user_id}> subscribed this channel to ${line}. ${SUBSCRIPTIONS_HINT}`,
    });
  } catch (error) {
    // Not announced, not kept: a subscription nobody was told of would post unannounced.
    await deps.store.removeSubscription(subscription.id);
    if (!NOT_THERE.has(platformErrorCode(error) ?? '')) throw error;
    return reply(
      `The app is not in <#${channel}>, so it could not post there: invite it (\`/invite\`), then subscribe again. Nothing was subscribed.`,
    );
  }
  scope.log.info({ app: app.name, channel, kind: subscription.kind }, 'channel subscribed');
  return reply(`Subscribed <#${channel}> to ${line}.`);
}

/** `subscriptions`: the channel's subscriptions, of every app. */
export function createSubscriptionsCommand(deps: AppDeps) {
  return async (body: { channel_id: string }, scope: RequestScope): Promise<void> => {
    const found = await deps.store.listSubscriptions({ channel: body.channel_id });
    const listed = found.flatMap((subscription) => {
      const app = deps.apps.byName(subscription.app);
      if (!app) return [];
      const remove = valueWriter(app)({ id: subscription.id });
      return [{ subscription, appName: appNameIfSeveral(deps.apps, app), remove }];
    });
    await tell(deps, body, subscriptionsMessage(listed, body.channel_id), scope);
  };
}

/** "Remove" on the list: the subscription goes, and the person is told which. */
function createRemoveButton(deps: AppDeps) {
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, RemoveValue, action.value);
    const removed = await deps.store.removeSubscription(value.id);
    scope.log.info({ app: app.name, subscription: value.id, removed }, 'subscription removed');
    const text = removed
      ? `Removed the subscription ${code(value.id.slice(0, 8))}; \`/cometchat subscriptions\` lists those left.`
      : 'That subscription was removed already.';
    await tell(deps, body, { text, replace_original: false }, scope);
  };
}

async function tell(deps: AppDeps, body: unknown, message: SlackMessage, scope: RequestScope) {
  await deps.deliver(destinationOf(body), { response_type: 'ephemeral', ...message }, scope.log);
}

export function registerSubscriptions(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.removeSubscription, createRemoveButton(deps));
}
