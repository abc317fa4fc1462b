import type { KnownBlock } from '@slack/types';
import type { Call } from '../../cometchat/model.ts';
import { button, context, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { Subscription } from '../../store/store.ts';
import { inApp } from '../../voice/sentences.ts';
import { type AlertFacts, safeLink } from './webhook-event.ts';

// What a channel sees of an alert, and of its subscriptions. Pure.

const HEADLINE: Record<AlertFacts['trigger'], string> = {
  call_ended: ':telephone_receiver: A call ended',
  recording_generated: ':movie_camera: A recording is ready',
  transcription_generated: ':page_facing_up: A transcript is ready',
};

/** A link as Slack's `<url|text>`: its `|` and `>` encoded, so they cannot end it early. */
function linkTo(url: string, text: string): string {
  return `<${url.replaceAll('|', '%7C').replaceAll('>', '%3E')}|${text}>`;
}

/** The headline: what happened, how the call ended, and the artefact's link. */
function headline(facts: AlertFacts, call: Call | undefined, appName: string | undefined): string {
  const status = call?.status ? ` (${escapeMrkdwn(truncate(call.status, 40))})` : '';
  const link = safeLink(facts.link);
  const open =
    facts.trigger === 'call_ended' || !link
      ? ''
      : ` ${linkTo(link, facts.trigger === 'recording_generated' ? 'Open the recording' : 'Open the transcript')}`;
  return `${HEADLINE[facts.trigger]}${facts.trigger === 'call_ended' ? status : ''}${inApp(appName)}.${open}`;
}

/**
 * The post of one alert: the headline, then the call's card as the call lookup shows it (with its
 * Details button), or, when the call could not be read, its id and how to look it up.
 */
export function alertPost(input: {
  facts: AlertFacts;
  call: Call | undefined;
  card: KnownBlock[] | undefined;
  appName: string | undefined;
}): SlackMessage {
  const { facts, call, appName } = input;
  const text = headline(facts, call, appName);
  const id = code(truncate(facts.sessionId, 200));
  const body = input.card ?? [
    context([
      // The id is CometChat's text: `code` escapes it, so a backtick or a mention in it is inert.
      `Call ${id}: CometChat could not be read just now; ${code(`/cometchat call ${truncate(facts.sessionId, 200)}`)} looks it up.`,
    ]),
  ];
  return { text, blocks: [section(text), ...body] };
}

/**
 * The message that counts a channel's alerts past the few it gets one by one in a minute, as it
 * says at `count`. Pure.
 */
export function countText(count: number, appName: string | undefined): string {
  return `:bell: ${count} more alert${count === 1 ? '' : 's'} from CometChat${inApp(appName)} in the last minute, counted here rather than posted one by one. \`/cometchat calls\` lists the calls.`;
}

/** Said wherever a subscription is made: where to see and remove it. */
export const SUBSCRIPTIONS_HINT =
  "`/cometchat subscriptions` lists this channel's subscriptions and removes them.";

const KIND_WORDS: Record<Subscription['kind'], string> = {
  calls: 'calls',
  recordings: 'recordings',
  transcripts: 'transcripts',
  digest: 'a daily digest',
};

/** A subscription in one line: what, which filters, which app, who made it and when. */
export function subscriptionLine(subscription: Subscription, appName: string | undefined): string {
  const filters =
    subscription.filters.length > 0
      ? ` ${subscription.filters.map((f) => code(truncate(f, 100))).join(' ')}`
      : '';
  const at = subscription.at
    ? ` at ${subscription.at.time} (${escapeMrkdwn(subscription.at.zone)})`
    : '';
  return `*${KIND_WORDS[subscription.kind]}*${filters}${at}${inApp(appName)} · by <@${subscription.createdBy}> ${slackDate(Math.floor(subscription.createdAt / 1000))}`;
}

/** The channel's subscriptions, each with Remove (its value sealed for its app). */
export function subscriptionsMessage(
  listed: readonly { subscription: Subscription; appName?: string | undefined; remove: string }[],
  channel: string,
): SlackMessage {
  if (listed.length === 0) {
    return {
      response_type: 'ephemeral',
      text: `<#${channel}> has no subscriptions. \`/cometchat subscribe calls status:unanswered\` makes one.`,
    };
  }
  const blocks: KnownBlock[] = [section(`Subscriptions of <#${channel}>:`)];
  for (const { subscription, appName, remove } of listed.slice(0, 45)) {
    blocks.push(
      section(
        subscriptionLine(subscription, appName),
        button('Remove', ACTIONS.removeSubscription, remove, 'danger'),
      ),
    );
  }
  if (listed.length > 45) blocks.push(context([`…and ${listed.length - 45} more.`]));
  return {
    response_type: 'ephemeral',
    text: `${listed.length} subscription${listed.length === 1 ? '' : 's'} in <#${channel}>`,
    blocks,
  };
}
