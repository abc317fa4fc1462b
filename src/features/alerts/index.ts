import type { HttpRoute } from '../../observe/readiness.ts';
import { noWords } from '../command.ts';
import type { AppDeps } from '../deps.ts';
import { type Feature, subcommand } from '../feature.ts';
import { type DeliveryDeps, deliverEvent, sweepEvents } from './alert-delivery.ts';
import { createBurstGate } from './burst.ts';
import { createDigestCommand, postDigests } from './digest.ts';
import { DIGEST_USAGE, parseDigestWords } from './digest-rules.ts';
import { parseSubscribeWords, SUBSCRIBE_USAGE } from './subscription-rules.ts';
import {
  createSubscribeCommand,
  createSubscriptionsCommand,
  registerSubscriptions,
} from './subscriptions.ts';
import { createWebhookIntake, WEBHOOK_ROUTE_PATH } from './webhook-intake.ts';

// Alerts: CometChat's webhooks for calls that end, recordings and transcripts, posted to the channels
// subscribed to them. The webhook route (webhook-intake.ts) keeps each delivery once and
// answers at once; alert-delivery.ts posts it.

const SUBSCRIPTIONS_USAGE = '`/cometchat subscriptions`';

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
    burst: createBurstGate(),
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
    // Posted after the answer; a failure here is left for the sweep.
    stored: (event) => {
      deliverEvent(delivery, event).catch((error: unknown) =>
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
      usage: `${SUBSCRIBE_USAGE} - post this app's calls that end (with the call search's filters, such as \`status:unanswered\`), recordings or transcripts in this channel`,
      parse: parseSubscribeWords,
      run: (words, { body, scope, app, deps }) =>
        createSubscribeCommand(deps)(app, words, body, scope),
    }),
    subcommand({
      names: ['digest'],
      usage: `${DIGEST_USAGE} - post this app's usage and calls of the last day in this channel each day, at that time in your time zone (09:00 when left out)`,
      parse: parseDigestWords,
      run: (words, { body, scope, app, deps }) =>
        createDigestCommand(deps)(app, words, body, scope),
    }),
    subcommand({
      names: ['subscriptions'],
      usage: `${SUBSCRIPTIONS_USAGE} - this channel's subscriptions, each with Remove`,
      parse: noWords(SUBSCRIPTIONS_USAGE),
      run: (_, { body, scope, deps }) => createSubscriptionsCommand(deps)(body, scope),
    }),
  ],
  register: registerSubscriptions,
  // Events stored and never posted (the app stopped first), on any replica: posted now. And the
  // daily digests that are due (each posted once, by whichever replica claims it first).
  periodic: (deps, log) => Promise.all([sweepEvents(deliveryDeps(deps)), postDigests(deps, log)]),
};
