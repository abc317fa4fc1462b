import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import type { Call } from '../../cometchat/model.ts';
import type { WebhookOutcome } from '../../observe/metrics.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { NOT_THERE, PASSING, platformErrorCode } from '../../slack/slack-errors.ts';
import type { Store, WebhookEvent } from '../../store/store.ts';
import { asJob } from '../job.ts';
import { alertPost, countText } from './alert-view.ts';
import type { BurstGate } from './burst.ts';
import {
  isModerationTrigger,
  MODERATION_TRIGGERS,
  type ModerationFacts,
  ModerationFactsSchema,
} from './moderation-event.ts';
import { moderationCountText, moderationPost } from './moderation-view.ts';
import { subscriptionsReached } from './subscription-rules.ts';
import { type AlertFacts, alertFacts, EnvelopeSchema, isAlertTrigger } from './webhook-event.ts';

// A stored webhook event, posted: the subscriptions of its app and kind are read, the call is
// read from CometChat (the webhook names people by display name only), and each channel whose
// filters the call matches gets one post. Then the event is let go. Whoever posts an event holds
// its claim while doing so, so the replica that received it and a sweep never both post it.

/** How long posting one event may hold its claim before a sweep may try it again. */
const POSTING_CLAIM_SECONDS = 10 * 60;
/** An event still stored this long after it arrived was not posted (the app stopped): swept. */
export const SWEEP_AFTER_MS = 2 * 60_000;

export interface DeliveryDeps {
  apps: Pick<Apps, 'byName' | 'multiple'>;
  store: Pick<
    Store,
    'claim' | 'release' | 'listSubscriptions' | 'listWebhookEvents' | 'removeWebhookEvent'
  >;
  /** The Web API client the posts go through. */
  client: Pick<WebClient, 'chat'>;
  count: (app: string, outcome: WebhookOutcome) => void;
  /** A call as the calls feature shows it in a card (AppDeps.callCard). */
  callCard: (app: CometChatApp, call: Call) => KnownBlock[];
  log: Logger;
  now: () => number;
  /** Which alerts a channel gets one by one, and which its count message counts. */
  burst: BurstGate;
}

/**
 * Posts one stored event where its subscriptions ask, once; then lets it go. Any failure lets
 * its claim go too, so that the next sweep takes the event (a stop leaves it for the claim's
 * life, ten minutes).
 */
export async function deliverEvent(deps: DeliveryDeps, event: WebhookEvent): Promise<void> {
  const posting = `webhook-posting:${event.id}`;
  if (!(await deps.store.claim(posting, POSTING_CLAIM_SECONDS))) return;
  // Each event under a reference of its own, which its CometChat requests and lines carry.
  const fields = { event: event.id, app: event.app };
  await asJob(deps.log, fields, (log) => deliverTaken(deps, event, posting, log), deps.now);
}

/** {@link deliverEvent} once its claim is taken. */
async function deliverTaken(
  deps: DeliveryDeps,
  event: WebhookEvent,
  posting: string,
  log: Logger,
): Promise<void> {
  let outcome: Delivered;
  try {
    outcome = await deliverClaimed(deps, event, log);
  } catch (error) {
    await deps.store.release(posting).catch(() => undefined);
    throw error;
  }
  if (outcome === 'done') return deps.store.removeWebhookEvent(event.id);
  // Kept for the sweep, which tries it again a minute or two from now.
  log.info({ trigger: event.trigger }, 'alert kept to be tried again');
  await deps.store.release(posting);
}

async function deliverClaimed(deps: DeliveryDeps, event: WebhookEvent, log: Logger) {
  const app = deps.apps.byName(event.app);
  if (app && isModerationTrigger(event.trigger)) {
    const facts = ModerationFactsSchema.safeParse(event.body);
    if (facts.success) return postModeration(deps, { app, facts: facts.data, event, log });
  }
  const facts = app ? factsOf(event) : undefined;
  if (app && facts) return postWhereAsked(deps, { app, facts, event, log });
  log.warn({ trigger: event.trigger }, 'webhook event dropped: no app or not of its shape');
  return 'done';
}

function factsOf(event: WebhookEvent): AlertFacts | undefined {
  const envelope = EnvelopeSchema.safeParse(event.body);
  if (!envelope.success || !isAlertTrigger(envelope.data.trigger)) return undefined;
  return alertFacts(envelope.data.trigger, envelope.data);
}

/** What became of an event: covered by posts Slack took, or kept to be tried again. */
type Delivered = 'done' | 'retry';

/** How long an event waits for its call to be readable before it is posted with what it says. */
export const RETRY_FOR_MS = 30 * 60_000;
/** A channel's post of an event, once made, is never made again (a sweep, another replica). */
const POSTED_CLAIM_SECONDS = 24 * 60 * 60;

interface Delivery {
  app: CometChatApp;
  facts: AlertFacts;
  event: WebhookEvent;
  log: Logger;
}

async function postWhereAsked(deps: DeliveryDeps, delivery: Delivery): Promise<Delivered> {
  const { app, facts, event, log } = delivery;
  const subscriptions = await deps.store.listSubscriptions({ app: app.name });
  if (subscriptions.length === 0) return 'done';
  // The call is read only when someone subscribed: an app nobody listens to costs nothing.
  const call = await readCall(app, facts, log);
  const { reached, undecided } = subscriptionsReached(subscriptions, facts, call);
  // Channels whose filters ask what only the call tells (a uid, `recorded`) wait for it to be
  // readable (CometChat slow, or a moment behind its webhook), for a while.
  if (undecided.length > 0 && deps.now() - event.receivedAt < RETRY_FOR_MS) return 'retry';
  const appName = appNameIfMultiple(deps.apps, app);
  const post = alertPost({
    facts,
    call,
    card: call ? deps.callCard(app, call) : undefined,
    appName,
  });
  const channels = new Set(reached.map((s) => s.channel));
  return postToChannels(deps, channels, (channel) => ({
    ...delivery,
    channel,
    post,
    burstKey: channel,
    countText: (count) => countText(count, appName),
  }));
}

/** Each channel's post; 'retry' when any of them is to be tried again. */
export async function postToChannels(
  deps: DeliveryDeps,
  channels: Iterable<string>,
  posting: (channel: string) => Posting,
): Promise<Delivered> {
  let failed = false;
  for (const channel of channels) failed = !(await postOnce(deps, posting(channel))) || failed;
  return failed ? 'retry' : 'done';
}

/**
 * A moderation alert, posted in each channel of its app subscribed to its word (`blocked`,
 * `failed`, `approved`), with _Claim_ (and for a blocked message _Review_), counted in its own
 * burst window, apart from the channel's call alerts.
 */
async function postModeration(
  deps: DeliveryDeps,
  input: { app: CometChatApp; facts: ModerationFacts; event: WebhookEvent; log: Logger },
): Promise<Delivered> {
  const { app, facts, event } = input;
  const word = MODERATION_TRIGGERS[facts.trigger];
  const subscriptions = await deps.store.listSubscriptions({ app: app.name });
  const channels = new Set(
    subscriptions
      .filter((s) => s.kind === 'moderation' && s.filters.includes(word))
      .map((s) => s.channel),
  );
  const appName = appNameIfMultiple(deps.apps, app);
  const sign = valueWriter(app);
  const messageId = facts.message.id;
  const post = moderationPost(facts, appName, {
    claim: sign({ id: event.id }),
    review:
      facts.trigger === 'moderation_engine_blocked' && messageId
        ? // The queue's Details value: the moderation feature answers Review (alert-review.ts).
          sign({ m: messageId })
        : undefined,
  });
  return postToChannels(deps, channels, (channel) => ({
    ...input,
    channel,
    post,
    burstKey: `${channel}:moderation`,
    countText: (count) => moderationCountText(count, appName),
  }));
}

/** The call, by its session, or for a ringing outcome by its message's; undefined if unread. */
async function readCall(app: CometChatApp, facts: AlertFacts, log: Logger) {
  try {
    const sessionId =
      facts.sessionId ??
      (facts.messageId ? await app.cometchat.getCallMessageSession(facts.messageId) : undefined);
    return sessionId ? await app.cometchat.getCall(sessionId) : undefined;
  } catch (error) {
    const { sessionId, messageId } = facts;
    log.warn({ err: error, sessionId, messageId }, 'alert: the call could not be read');
    return undefined;
  }
}

/** One channel's post of an event, and how a burst of them is counted. */
interface Posting {
  app: CometChatApp;
  event: WebhookEvent;
  log: Logger;
  channel: string;
  post: SlackMessage;
  /** The burst window it is counted in: the channel's, for each kind of alert its own. */
  burstKey: string;
  /** What the count message says at a count. */
  countText: (count: number) => string;
}

/**
 * One channel's post of an event, made once: its claim is taken first, and let go when Slack
 * failed (false: try again later). A channel the app is not in, or a post Slack refuses for
 * what it is, gets nothing, for good.
 */
async function postOnce(deps: DeliveryDeps, input: Posting): Promise<boolean> {
  const { channel, event, app, log } = input;
  const claim = `webhook-posted:${event.id}:${channel}`;
  if (!(await deps.store.claim(claim, POSTED_CLAIM_SECONDS))) return true;
  try {
    deps.count(app.name, await postOrCount(deps, input));
    return true;
  } catch (error) {
    const code = platformErrorCode(error);
    if (code !== undefined && !PASSING.has(code)) {
      const level = NOT_THERE.has(code) ? 'warn' : 'error';
      log[level]({ err: error, channel, code }, 'alert not posted, and not tried again');
      return true;
    }
    log.warn({ err: error, channel }, 'alert not posted; tried again later');
    await deps.store.release(claim);
    return false;
  }
}

/** The alert posted, or, past the few a channel gets in a minute, counted in one message. */
async function postOrCount(deps: DeliveryDeps, input: Posting): Promise<'posted' | 'counted'> {
  const { channel } = input;
  const send = (count: number, ts: string | undefined) =>
    sendCount(deps, { channel, text: input.countText(count), ts });
  const step = await deps.burst.next(input.burstKey, deps.now(), send);
  if (step.kind === 'post') {
    await deps.client.chat.postMessage({ channel, ...input.post });
    return 'posted';
  }
  await step.message.add();
  return 'counted';
}

/** Posts a channel's count message, or updates it in place; answers its ts. */
async function sendCount(
  deps: DeliveryDeps,
  input: { channel: string; text: string; ts: string | undefined },
): Promise<string | undefined> {
  const { channel, ts, text } = input;
  if (ts) {
    await deps.client.chat.update({ channel, ts, text });
    return ts;
  }
  return (await deps.client.chat.postMessage({ channel, text })).ts;
}

/** Posts the events an earlier run (or replica) stored and never posted. */
export async function sweepEvents(deps: DeliveryDeps): Promise<number> {
  const left = await deps.store.listWebhookEvents(deps.now() - SWEEP_AFTER_MS);
  // Side by side, as they arrived: a channel's count message then counts them in one update
  // rather than one wait each. One event that fails does not keep the others from being posted.
  await Promise.all(
    left.map((event) =>
      deliverEvent(deps, event).catch((error: unknown) =>
        deps.log.warn({ err: error, event: event.id }, 'swept alert not posted'),
      ),
    ),
  );
  return left.length;
}
