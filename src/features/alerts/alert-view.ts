import type { KnownBlock } from '@slack/types';
import type { Call } from '../../cometchat/model.ts';
import { inApp } from '../../replies/sentences.ts';
import { button, context, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { Subscription } from '../../store/store.ts';
import { ALERT_TRIGGERS, type AlertFacts, safeLink } from './webhook-event.ts';

// What a channel sees of an alert, and of its subscriptions. Pure.

const HEADLINE: Record<AlertFacts['trigger'], string> = {
  call_ended: ':telephone_receiver: A call ended',
  meeting_ended: ':telephone_receiver: A call session ended',
  call_unanswered: ':telephone_receiver: A call was not answered',
  call_rejected: ':telephone_receiver: A call was declined',
  call_busy: ':telephone_receiver: A call found the person busy',
  call_cancelled: ':telephone_receiver: A call was cancelled by its caller',
  recording_generated: ':movie_camera: A recording is ready',
  transcription_generated: ':page_facing_up: A transcript is ready',
};

/** A link as Slack's `<url|text>`: its `|` and `>` encoded, so they cannot end it early. */
function linkTo(url: string, text: string): string {
  return `<${url.replaceAll('|', '%7C').replaceAll('>', '%3E')}|${text}>`;
}

/** The endings whose headline leaves the status to the call record (an answered call's). */
const STATUS_SHOWN = new Set<AlertFacts['trigger']>(['call_ended', 'meeting_ended']);

/** The headline: what happened, how the call ended, and the artefact's link. */
function headline(facts: AlertFacts, call: Call | undefined, appName: string | undefined): string {
  const status =
    STATUS_SHOWN.has(facts.trigger) && call?.status
      ? ` (${escapeMrkdwn(truncate(call.status, 40))})`
      : '';
  const link = safeLink(facts.link);
  const open =
    ALERT_TRIGGERS[facts.trigger] === 'calls' || !link
      ? ''
      : ` ${linkTo(link, facts.trigger === 'recording_generated' ? 'Open the recording' : 'Open the transcript')}`;
  return `${HEADLINE[facts.trigger]}${status}${inApp(appName)}.${open}`;
}

/** An id CometChat sent, shown copyable: `code` escapes it, so a backtick or mention is inert. */
const id = (text: string) => code(truncate(text, 200));

/**
 * What the event itself says of a call CometChat could not be read for: who (a one-to-one
 * call's two ends, or who rang a group), its type and when, and how to look it up. Pure.
 */
export function knownCallLines(facts: AlertFacts): string[] {
  const { known, sessionId } = facts;
  const [first, second] = known.people ?? [];
  const who =
    first === undefined
      ? undefined
      : known.receiverType === 'group'
        ? `${id(first)} to the group ${second === undefined ? '' : id(second)}`.trim()
        : `Between ${id(first)}${second === undefined ? '' : ` and ${id(second)}`}`;
  const what = [known.type ? escapeMrkdwn(truncate(known.type, 20)) : undefined, known.mode]
    .filter((word) => word !== undefined)
    .join(' ');
  const details = [who, what || undefined, known.endedAt ? slackDate(known.endedAt) : undefined];
  const lookup = sessionId
    ? `Call ${id(sessionId)}: CometChat could not be read just now; ${code(`/cometchat call ${truncate(sessionId, 200)}`)} looks it up.`
    : `CometChat could not be read just now for the call's session; ${code(`/cometchat calls ${truncate(first ?? '', 200)}`.trim())} finds it.`;
  return [details.filter((line) => line !== undefined).join(' · '), lookup].filter(Boolean);
}

/**
 * The post of one alert: the headline, then the call's card as the call lookup shows it (with its
 * Details button), or, when the call could not be read, what the event says of it.
 */
export function alertPost(input: {
  facts: AlertFacts;
  call: Call | undefined;
  card: KnownBlock[] | undefined;
  appName: string | undefined;
}): SlackMessage {
  const { facts, call, appName } = input;
  const text = headline(facts, call, appName);
  const body = input.card ?? [context(knownCallLines(facts))];
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
  rules: 'moderation rules changed outside this app (checked daily)',
  moderation: 'moderation alerts',
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

/** The channel's subscriptions, each with Remove (its value signed for its app). */
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
