import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple } from '../../apps/apps.ts';
import type { Store, Subscription } from '../../store/store.ts';
import { createTtlCache } from '../../ttl-cache.ts';
import type { ChannelAlerts } from '../deps.ts';
import { subscriptionLine } from './alert-view.ts';

// The Home tab's part of alerts: the subscriptions of the channels a person is a member of, a
// line each. Slack is asked (`users.conversations`) only when some channel has a subscription,
// page by page until every subscribed channel is found, and once a minute at most per person and
// set of subscribed channels: users.conversations is rate limited (Tier 3). It goes through a
// client that fails at once on a 429 (the Home then says the channels could not be read): the
// shared client would wait it out, holding the alerts' own posts behind it.

/** Channels asked for a page; pages asked at most (a person in more channels is told so). */
const PAGE_SIZE = 200;
const MAX_PAGES = 10;
const MEMBERSHIP_TTL_MS = 60_000;

interface Membership {
  /** Of the channels asked about, those the person is in. */
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

/** Which of `wanted` the person is in, from their public and private channels. */
async function memberOf(client: WebClient, user: string, wanted: ReadonlySet<string>) {
  const found = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await client.users.conversations({
      user,
      types: 'public_channel,private_channel',
      exclude_archived: true,
      limit: PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    for (const channel of answer.channels ?? []) {
      if (channel.id && wanted.has(channel.id)) found.add(channel.id);
    }
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor || found.size === wanted.size) return { found: [...found], partial: false };
  }
  return { found: [...found], partial: true };
}

/**
 * The Home tab's "Alerts in your channels" (given to the Home by features/index.ts). Rejects
 * when the store or Slack cannot be read: the Home says so in one line.
 */
export function homeAlerts(deps: {
  apps: Apps;
  store: Pick<Store, 'listSubscriptions'>;
  lookupClient: WebClient;
}) {
  const memberships = createTtlCache<Membership>({ max: 1000, ttlMs: MEMBERSHIP_TTL_MS });
  return async (userId: string, log: Logger): Promise<ChannelAlerts> => {
    const subscriptions = await deps.store.listSubscriptions({});
    if (subscriptions.length === 0) return { lines: [], partial: false };
    const wanted = new Set(subscriptions.map((s) => s.channel));
    const key = JSON.stringify([userId, ...[...wanted].sort()]);
    const { found, partial } = await memberships.get(key, () =>
      memberOf(deps.lookupClient, userId, wanted),
    );
    if (partial) log.info({ pages: MAX_PAGES }, 'home: a person in more channels than read');
    const theirs = new Set(found);
    const lines = channelAlertLines(
      subscriptions.filter((s) => theirs.has(s.channel)),
      deps.apps,
    );
    return { lines, partial };
  };
}
