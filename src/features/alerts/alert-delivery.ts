import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfSeveral, type CometChatApp } from '../../apps/apps.ts';
import type { Call } from '../../cometchat/model.ts';
import type { WebhookOutcome } from '../../observe/metrics.ts';
import { newReference } from '../../reference.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import type { Store, WebhookEvent } from '../../store/store.ts';
import { alertPost, countText } from './alert-view.ts';
import { type BurstGate, createBurstGate, createThrottle } from './burst.ts';
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
  apps: Pick<Apps, 'byName' | 'several'>;
  store: Pick<Store, 'claim' | 'listSubscriptions' | 'listWebhookEvents' | 'removeWebhookEvent'>;
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
  if (!(await deps.store.claim(`webhook-posting:${event.id}`, POSTING_CLAIM_SECONDS))) return;
  const log = deps.log.child({ ref: newReference(), event: event.id, app: event.app });
  const app = deps.apps.byName(event.app);
  const facts = app ? factsOf(event) : undefined;
  if (app && facts) await postWhereAsked(deps, app, facts, log);
  else log.warn({ trigger: event.trigger }, 'webhook event dropped: no app or not of its shape');
  await deps.store.removeWebhookEvent(event.id);
}

function factsOf(event: WebhookEvent): AlertFacts | undefined {
  const envelope = EnvelopeSchema.safeParse(event.body);
  if (!envelope.success || !isAlertTrigger(envelope.data.trigger)) return undefined;
  return alertFacts(envelope.data.trigger, envelope.data.data);
}

async function postWhereAsked(
  deps: DeliveryDeps,
  app: CometChatApp,
  facts: AlertFacts,
  log: Logger,
): Promise<void> {
  const subscriptions = await deps.store.listSubscriptions({ app: app.name });
  if (subscriptions.length === 0) return;
  // The call is read only when someone subscribed: an app nobody listens to costs nothing.
  const call = await app.cometchat
    .getCall(facts.sessionId, { ref: log.bindings().ref as string, logger: log })
    .catch((error: unknown) => {
      log.warn({ err: error, sessionId: facts.sessionId }, 'alert: the call could not be read');
      return undefined;
    });
  const channels = [
    ...new Set(subscriptionsReached(subscriptions, facts, call).map((s) => s.channel)),
  ];
  const post = alertPost({
    facts,
    call,
    card: call ? deps.callCard(app, call) : undefined,
    appName: appNameIfSeveral(deps.apps, app),
  });
  for (const channel of channels) {
    try {
      await postOrCount(deps, channel, post, appNameIfSeveral(deps.apps, app));
      deps.count(app.name, 'posted');
    } catch (error) {
      // One channel the app left, or archived, does not keep the others from their post.
      log.warn({ err: error, channel }, 'alert not posted');
    }
  }
}

/** The alert posted, or, past the few a channel gets in a minute, counted in one message. */
async function postOrCount(
  deps: DeliveryDeps,
  channel: string,
  post: SlackMessage,
  appName: string | undefined,
): Promise<void> {
  const step = deps.burst.gate.next(channel, deps.now());
  if (step.kind === 'post') {
    await deps.client.chat.postMessage({ channel, ...post });
    return;
  }
  if (step.kind === 'start-count') {
    const posted = await deps.client.chat.postMessage({ channel, text: countText(1, appName) });
    deps.burst.gate.started(channel, posted.ts);
    return;
  }
  countUpdater(deps, channel)(countText(step.count, appName));
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
  for (const event of left) await deliverEvent(deps, event);
  return left.length;
}
