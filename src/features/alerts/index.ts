import type { SlashCommand } from '@slack/bolt';
import type { CometChatApp } from '../../apps/apps.ts';
import type { HttpRoute } from '../../observe/readiness.ts';
import type { Respond } from '../../slack/deliver.ts';
import { noWords } from '../command.ts';
import type { AppDeps } from '../deps.ts';
import { type Feature, subcommand } from '../feature.ts';
import { isStopped } from '../installation.ts';
import { asJob } from '../job.ts';
import { type DeliveryDeps, deliverEvent, sweepEvents } from './alert-delivery.ts';
import { createBurstGate } from './burst.ts';
import { createDigestCommand, postDigests } from './digest.ts';
import { DIGEST_USAGE, parseDigestWords } from './digest-rules.ts';
import { registerModerationButtons } from './moderation-buttons.ts';
import { parseSubscribeWords, SUBSCRIBE_USAGE } from './subscription-rules.ts';
import {
  createSubscribeCommand,
  createSubscriptionsCommand,
  registerSubscriptions,
} from './subscriptions.ts';
import { createWebhookIntake, WEBHOOK_ROUTE_PATH } from './webhook-intake.ts';

// Alerts: CometChat's webhooks for calls that end, recordings, transcripts and moderation (a rule
// blocked a message, a moderator approved one, an engine failed), posted to the channels
// subscribed to them. The webhook route (webhook-intake.ts) keeps each delivery once and
// answers at once; alert-delivery.ts posts it.

const SUBSCRIPTIONS_USAGE = '`/cometchat subscriptions`';

/** A subscription asked for by a command, in its channel. */
function subscribeRequest(app: CometChatApp, command: SlashCommand, respond: Respond) {
  return { app, channelId: command.channel_id, userId: command.user_id, respond };
}

/** The Home tab's "Alerts in your channels", given to the Home by the feature list. */
export { homeAlerts } from './home-alerts.ts';

/**
 * One delivery per app's features, shared by the webhook route and the sweep, so that both
 * count a channel's alerts in the same burst.
 */
const deliveries = new WeakMap<AppDeps, DeliveryDeps>();

function deliveryDeps(deps: AppDeps): DeliveryDeps {
  const known = deliveries.get(deps);
  if (known) return known;
  const delivery = newDelivery(deps);
  deliveries.set(deps, delivery);
  return delivery;
}

function newDelivery(deps: AppDeps): DeliveryDeps {
  return {
    apps: deps.apps,
    store: deps.store,
    client: deps.client,
    count: deps.countWebhook,
    callCard: deps.callCard,
    log: deps.logger.child({ component: 'alerts' }),
    now: deps.now,
    burst: createBurstGate(deps.store),
  };
}

/** The webhook route, for the listener Slack's requests or the health routes arrive on. */
export function webhookRoute(deps: AppDeps): HttpRoute {
  const delivery = deliveryDeps(deps);
  const handler = createWebhookIntake({
    apps: deps.apps,
    store: deps.store,
    count: deps.countWebhook,
    log: delivery.log,
    now: deps.now,
    // Posted after the answer; a failure here is left for the sweep. Once the app is uninstalled
    // (or its token revoked) the event is only kept, as the sweep is stopped too: nothing lost.
    stored: (event) => {
      isStopped(deps)
        .then((stopped) => (stopped ? undefined : deliverEvent(delivery, event)))
        .catch((error: unknown) =>
          delivery.log.warn({ err: error, event: event.id }, 'alert not posted; the sweep retries'),
        );
    },
  });
  return { path: WEBHOOK_ROUTE_PATH, method: ['POST'], handler };
}

export const alerts: Feature = {
  subcommands: [
    subcommand({
      names: ['subscribe'],
      usage: `${SUBSCRIBE_USAGE} - post this app's calls that end (with the call search's filters, such as \`status:unanswered\`), recordings, transcripts or moderation alerts in this channel`,
      parse: parseSubscribeWords,
      run: (words, { body, respond, app, deps }) =>
        createSubscribeCommand(deps)(subscribeRequest(app, body, respond), words),
    }),
    subcommand({
      names: ['digest'],
      usage: `${DIGEST_USAGE} - post this app's usage and calls of the last day in this channel each day, at that time in your time zone (09:00 when left out)`,
      parse: parseDigestWords,
      run: (words, { body, respond, app, deps }) =>
        createDigestCommand(deps)(subscribeRequest(app, body, respond), words),
    }),
    subcommand({
      names: ['subscriptions'],
      usage: `${SUBSCRIPTIONS_USAGE} - this channel's subscriptions, each with Remove`,
      parse: noWords(SUBSCRIPTIONS_USAGE),
      run: (_, { body, respond, deps }) =>
        createSubscriptionsCommand(deps)(body.channel_id, respond),
    }),
  ],
  register: (bolt, deps) => {
    registerSubscriptions(bolt, deps);
    registerModerationButtons(bolt, deps);
  },
  // Events stored and never posted (the app stopped first), on any replica: posted now. And the
  // daily digests that are due (each posted once, by whichever replica claims it first).
  // Each its own request: a reference and a logger naming it (`task`, not a second
  // `component`: the sweep's logger names that already).
  periodic: (deps, log) =>
    Promise.all([
      asJob(log, { task: 'alert-sweep' }, () => sweepEvents(deliveryDeps(deps)), deps.now),
      asJob(log, { task: 'digest' }, (jobLog) => postDigests(deps, jobLog), deps.now),
    ]),
};
