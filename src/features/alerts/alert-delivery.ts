import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfSeveral, type CometChatApp } from '../../apps/apps.ts';
import type { Call } from '../../cometchat/model.ts';
import type { WebhookOutcome } from '../../observe/metrics.ts';
import { newReference } from '../../reference.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { platformErrorCode } from '../../slack/slack-errors.ts';
import type { Store, WebhookEvent } from '../../store/store.ts';
import { alertPost, countText } from './alert-view.ts';
import { type BurstGate, createBurstGate, createThrottle } from './burst.ts';
import { subscriptionsReached } from './subscription-rules.ts';
import { NOT_THERE } from './subscriptions.ts';
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
  apps: Pick<Apps, 'byName' | 'several'>;
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
  burst: Burst;
}

/** A replica's bursts: the gate, and each channel's throttled count message. */
export interface Burst {
  gate: BurstGate;
  updates: Map<string, (text: string) => void>;
}

export function createBurst(): Burst {
  return { gate: createBurstGate(), updates: new Map() };
}

/** Posts one stored event where its subscriptions ask, once; then lets it go. */
export async function deliverEvent(deps: DeliveryDeps, event: WebhookEvent): Promise<void> {
  const posting = `webhook-posting:${event.id}`;
  if (!(await deps.store.claim(posting, POSTING_CLAIM_SECONDS))) return;
  const log = deps.log.child({ ref: newReference(), event: event.id, app: event.app });
  const app = deps.apps.byName(event.app);
  const facts = app ? factsOf(event) : undefined;
  let outcome: Delivered = 'done';
  if (app && facts) outcome = await postWhereAsked(deps, { app, facts, event, log });
  else log.warn({ trigger: event.trigger }, 'webhook event dropped: no app or not of its shape');
  if (outcome === 'done') return deps.store.removeWebhookEvent(event.id);
  // Kept for the sweep, which tries it again a minute or two from now.
  log.info({ trigger: event.trigger }, 'alert kept to be tried again');
  await deps.store.release(posting);
}

function factsOf(event: WebhookEvent): AlertFacts | undefined {
  const envelope = EnvelopeSchema.safeParse(event.body);
  if (!envelope.success || !isAlertTrigger(envelope.data.trigger)) return undefined;
  return alertFacts(envelope.data.trigger, envelope.data.data);
}

/** What became of an event: posted wherever it could be, or kept to be tried again. */
type Delivered = 'done' | 'retry';

/** How long an event is tried again while its call cannot be read or Slack fails a post. */
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
  const retrying = deps.now() - event.receivedAt < RETRY_FOR_MS;
  // The call is read only when someone subscribed: an app nobody listens to costs nothing.
  const call = await readCall(app, facts, log);
  // Channels that asked for some calls only cannot be told whether this is one of them: the
  // event waits for the call to be readable (CometChat slow, or a moment behind its webhook).
  if (!call && retrying && subscriptions.some((s) => s.kind === 'calls' && s.filters.length > 0)) {
    return 'retry';
  }
  const channels = [
    ...new Set(subscriptionsReached(subscriptions, facts, call).map((s) => s.channel)),
  ];
  const appName = appNameIfSeveral(deps.apps, app);
  const post = alertPost({
    facts,
    call,
    card: call ? deps.callCard(app, call) : undefined,
    appName,
  });
  let failed = false;
  for (const channel of channels) {
    failed = !(await postOnce(deps, { ...delivery, channel, post, appName })) || failed;
  }
  return failed && retrying ? 'retry' : 'done';
}

function readCall(app: CometChatApp, facts: AlertFacts, log: Logger) {
  return app.cometchat
    .getCall(facts.sessionId, { ref: log.bindings().ref as string, logger: log })
    .catch((error: unknown) => {
      log.warn({ err: error, sessionId: facts.sessionId }, 'alert: the call could not be read');
      return undefined;
    });
}

/**
 * One channel's post of an event, made once: its claim is taken first, and let go when Slack
 * failed for a while (false: try again later). A channel the app is not in gets nothing, for good.
 */
async function postOnce(
  deps: DeliveryDeps,
  input: Delivery & { channel: string; post: SlackMessage; appName: string | undefined },
): Promise<boolean> {
  const { channel, event, app, log } = input;
  const claim = `webhook-posted:${event.id}:${channel}`;
  if (!(await deps.store.claim(claim, POSTED_CLAIM_SECONDS))) return true;
  try {
    deps.count(app.name, await postOrCount(deps, channel, input.post, input.appName));
    return true;
  } catch (error) {
    const gone = NOT_THERE.has(platformErrorCode(error) ?? '');
    log.warn({ err: error, channel, retried: !gone }, 'alert not posted');
    if (gone) return true;
    await deps.store.release(claim);
    return false;
  }
}

/** The alert posted, or, past the few a channel gets in a minute, counted in one message. */
async function postOrCount(
  deps: DeliveryDeps,
  channel: string,
  post: SlackMessage,
  appName: string | undefined,
): Promise<'posted' | 'counted'> {
  const step = deps.burst.gate.next(channel, deps.now());
  if (step.kind === 'post') {
    await deps.client.chat.postMessage({ channel, ...post });
    return 'posted';
  }
  if (step.kind === 'start-count') {
    const posted = await deps.client.chat.postMessage({ channel, text: countText(1, appName) });
    deps.burst.gate.started(channel, posted.ts);
    return 'counted';
  }
  countUpdater(deps, channel)(countText(step.count, appName));
  return 'counted';
}

/** The channel's count message, updated at most every few seconds with the latest count. */
function countUpdater(deps: DeliveryDeps, channel: string): (text: string) => void {
  const known = deps.burst.updates.get(channel);
  if (known) return known;
  const update = createThrottle(async (text) => {
    const ts = deps.burst.gate.countMessage(channel);
    if (!ts) return;
    await deps.client.chat.update({ channel, ts, text }).catch((error: unknown) => {
      deps.log.warn({ err: error, channel }, 'alert count not updated');
    });
  });
  deps.burst.updates.set(channel, update);
  return update;
}

/** Posts the events an earlier run (or replica) stored and never posted. */
export async function sweepEvents(deps: DeliveryDeps): Promise<number> {
  const left = await deps.store.listWebhookEvents(deps.now() - SWEEP_AFTER_MS);
  for (const event of left) {
    // One event that fails does not keep the others from being posted.
    await deliverEvent(deps, event).catch((error: unknown) =>
      deps.log.warn({ err: error, event: event.id }, 'swept alert not posted'),
    );
  }
  return left.length;
}
