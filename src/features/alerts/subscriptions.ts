import { createHash } from 'node:crypto';
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { appNameIfMultiple, type CometChatApp, openSigned, valueWriter } from '../../apps/apps.ts';
import { failureMessage } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import {
  type Respond,
  recipientOf,
  respondOrFallBack,
  slackErrorCode,
} from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import { NOT_THERE, platformErrorCode } from '../../slack/slack-errors.ts';
import type { Subscription } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { SUBSCRIPTIONS_HINT, subscriptionLine, subscriptionsMessage } from './alert-view.ts';
import type { SubscribeWords } from './subscription-rules.ts';

// `/cometchat subscribe ...` and `/cometchat subscriptions`: a channel subscribed to one app's
// events, and the list with a Remove button each. Anyone who may use the app may subscribe a
// channel the app is in: the subscription is announced in the channel, which is also how the app
// learns it may post there. Remove acts in the subscription's own channel only.

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

/** What a subscription is, before who made it, where and when are added. */
export type SubscriptionAsked = Pick<Subscription, 'id' | 'kind' | 'filters'> &
  Partial<Pick<Subscription, 'at' | 'coveredTo'>>;

/** Who asked for a subscription, where, in which app, and how to answer them. */
export interface SubscribeRequest {
  app: CometChatApp;
  channelId: string;
  userId: string;
  respond: Respond;
}

/** `subscribe`: announced in the channel, then kept; nothing changes when Slack refuses. */
export function createSubscribeCommand(deps: AppDeps) {
  return (request: SubscribeRequest, words: SubscribeWords): Promise<void> =>
    subscribeChannel(deps, request, async () => ({
      id: subscriptionId(request.app.name, request.channelId, words),
      kind: words.kind,
      filters: words.filters,
    }));
}

/**
 * A subscription of the channel the command was typed in, whatever it posts: announced there,
 * then kept. Announced first, so that a refused announcement (a channel the app is not in, a
 * rate limit, an outage) changes nothing: the subscription of that id the channel had (the same
 * one asked again, its digest at another time) stays exactly as it was, and no subscription is
 * kept that nobody was told of. `asked` is read once the channel is known to be one.
 */
export async function subscribeChannel(
  deps: AppDeps,
  request: SubscribeRequest,
  asked: () => Promise<SubscriptionAsked>,
): Promise<void> {
  const { app, channelId: channel, userId, respond } = request;
  const reply = (text: string) => respond({ text });
  if (!/^[CG]/.test(channel)) {
    return reply('Subscriptions are made in a channel: run it there (invite the app first).');
  }
  const subscription: Subscription = {
    ...(await asked()),
    app: app.name,
    channel,
    createdBy: userId,
    createdAt: deps.now(),
  };
  const line = subscriptionLine(subscription, appNameIfMultiple(deps.apps, app));
  let announcement: { ts?: string | undefined };
  try {
    announcement = await deps.client.chat.postMessage({
      channel,
      text: `<@${userId}> subscribed this channel to ${line}. ${SUBSCRIPTIONS_HINT}`,
    });
  } catch (error) {
    const cause = platformErrorCode(error);
    if (cause !== undefined && NOT_THERE.has(cause)) {
      return reply(
        `The app is not in <#${channel}>, so it could not post there: invite it (\`/invite\`), then subscribe again. Nothing was changed.`,
      );
    }
    const { log, ref } = currentRequest();
    log.warn(
      { cause: slackErrorCode(error), channel },
      'subscription not announced; nothing was changed',
    );
    const sentence = `Slack did not take the app's post in <#${channel}>, so nothing was changed: try again in a minute.`;
    return respond(failureMessage(sentence, ref));
  }
  try {
    await deps.store.putSubscription(subscription);
  } catch (error) {
    await withdraw(deps, channel, announcement.ts, line, userId);
    throw error;
  }
  currentRequest().log.info(
    { app: app.name, channel, kind: subscription.kind },
    'channel subscribed',
  );
  return reply(`Subscribed <#${channel}> to ${line}.`);
}

/**
 * Corrects the announcement of a subscription that could not be kept (the store failed after
 * Slack took it), so the channel is not told of one that does not exist. Best effort: logged.
 */
async function withdraw(
  deps: AppDeps,
  channel: string,
  ts: string | undefined,
  line: string,
  user: string,
): Promise<void> {
  try {
    if (ts === undefined) throw new Error('Slack answered the announcement without its ts');
    await deps.client.chat.update({
      channel,
      ts,
      text: `<@${user}> asked to subscribe this channel to ${line}, but it could not be kept: nothing was changed.`,
    });
  } catch (error) {
    currentRequest().log.warn(
      { cause: slackErrorCode(error), channel },
      'the announcement of a subscription that was not kept could not be corrected',
    );
  }
}

/** `subscriptions`: the channel's subscriptions, of every app. */
export function createSubscriptionsCommand(deps: AppDeps) {
  return async (channelId: string, respond: Respond): Promise<void> => {
    const found = await deps.store.listSubscriptions({ channel: channelId });
    const listed = found.flatMap((subscription) => {
      const app = deps.apps.byName(subscription.app);
      if (!app) return [];
      const remove = valueWriter(app)({ id: subscription.id });
      return [{ subscription, appName: appNameIfMultiple(deps.apps, app), remove }];
    });
    await respond(subscriptionsMessage(listed, channelId));
  };
}

/**
 * "Remove" on the list: the subscription goes, and the person is told which. Only in its own
 * channel: its id is a hash anyone can make, so the click's channel is what says the person is
 * looking at that channel's list (and may change what it receives).
 */
function createRemoveButton(deps: AppDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { log } = currentRequest();
    const reply = respondOrFallBack(respond, recipientOf(body), deps.deliver);
    const { app, value } = openSigned(deps.apps, RemoveValue, action.value);
    const channel = body.channel?.id;
    const own =
      channel === undefined ? [] : await deps.store.listSubscriptions({ app: app.name, channel });
    if (!own.some((s) => s.id === value.id)) {
      log.info(
        { app: app.name, subscription: value.id, channel },
        'subscription not removed: not one of the subscriptions of the channel clicked in',
      );
      const text =
        "That subscription is not one of this channel's, or it was removed already: nothing was removed. `/cometchat subscriptions` lists this channel's.";
      return reply({ text, replace_original: false });
    }
    const removed = await deps.store.removeSubscription(value.id);
    log.info({ app: app.name, subscription: value.id, removed }, 'subscription removed');
    const text = removed
      ? `Removed the subscription ${code(value.id.slice(0, 8))}; \`/cometchat subscriptions\` lists those left.`
      : 'That subscription was removed already.';
    await reply({ text, replace_original: false });
  };
}

export function registerSubscriptions(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.removeSubscription, createRemoveButton(deps));
}
