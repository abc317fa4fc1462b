import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple } from '../../apps/apps.ts';
import type { Store, Subscription } from '../../store/store.ts';
import { createTtlCache } from '../../ttl-cache.ts';
import type { ChannelAlerts } from '../deps.ts';
import { subscriptionLine } from './alert-view.ts';

// The Home tab's part of alerts: the subscriptions of the channels a person is a member of, a
// line each. Slack is asked (`users.conversations`) only when some subscription is kept, page by
// page, and of each page's channels the store reads only their own subscriptions (what the Home
// reads does not grow with every other channel's), until every subscription is found or the
// person's channels end. Once a minute at most per person and number of subscriptions (one added
// or removed is looked for at once; one made in place of another, after the minute):
// users.conversations is rate limited (Tier 3). It goes through a client that fails at once on a
// 429 (the Home then says the channels could not be read): the shared client would wait it out,
// holding the alerts' own posts behind it.

/** Channels asked for a page; pages asked at most (a person in more channels is told so). */
const PAGE_SIZE = 200;
const MAX_PAGES = 10;
const MEMBERSHIP_TTL_MS = 60_000;

interface Membership {
  /** The person's channels that have a subscription, of those read. */
  found: string[];
  partial: boolean;
}

/**
 * The lines of `subscriptions` (each of a channel the person is in), by channel then age: the
 * channel, then the subscription as `/cometchat subscriptions` shows it. Subscriptions of an app
 * no longer configured are left out. Pure.
 */
export function channelAlertLines(
  subscriptions: readonly Subscription[],
  apps: Pick<Apps, 'byName' | 'multiple'>,
): string[] {
  return [...subscriptions]
    .sort((a, b) => a.channel.localeCompare(b.channel) || a.createdAt - b.createdAt)
    .flatMap((subscription) => {
      const app = apps.byName(subscription.app);
      if (!app) return [];
      return [
        `<#${subscription.channel}> · ${subscriptionLine(subscription, appNameIfMultiple(apps, app))}`,
      ];
    });
}

type AlertStore = Pick<Store, 'countSubscriptions' | 'listSubscriptionsIn'>;

/**
 * Of the person's public and private channels, those with a subscription: each page of them
 * read from Slack, then that page's subscriptions from the store, until all `total` are found.
 */
async function subscribedChannelsOf(
  deps: { store: AlertStore; lookupClient: WebClient },
  user: string,
  total: number,
): Promise<Membership> {
  const found = new Set<string>();
  let subscriptions = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await deps.lookupClient.users.conversations({
      user,
      types: 'public_channel,private_channel',
      exclude_archived: true,
      limit: PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    const channels = (answer.channels ?? []).flatMap((channel) => channel.id ?? []);
    const theirs = await deps.store.listSubscriptionsIn(channels);
    for (const subscription of theirs) found.add(subscription.channel);
    subscriptions += theirs.length;
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor || subscriptions >= total) return { found: [...found], partial: false };
  }
  return { found: [...found], partial: true };
}

/**
 * The Home tab's "Alerts in your channels" (given to the Home by features/index.ts). Rejects
 * when the store or Slack cannot be read: the Home says so in one line.
 */
export function homeAlerts(deps: { apps: Apps; store: AlertStore; lookupClient: WebClient }) {
  const memberships = createTtlCache<Membership>({ max: 1000, ttlMs: MEMBERSHIP_TTL_MS });
  return async (userId: string, log: Logger): Promise<ChannelAlerts> => {
    const total = await deps.store.countSubscriptions();
    if (total === 0) return { lines: [], partial: false };
    const { found, partial } = await memberships.get(JSON.stringify([userId, total]), () =>
      subscribedChannelsOf(deps, userId, total),
    );
    if (partial) log.info({ pages: MAX_PAGES }, 'home: a person in more channels than read');
    const lines = channelAlertLines(await deps.store.listSubscriptionsIn(found), deps.apps);
    return { lines, partial };
  };
}
