import type { WebClient } from '@slack/web-api';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { subscriptionLine } from '../../../src/features/alerts/alert-view.ts';
import { channelAlertLines, homeAlerts } from '../../../src/features/alerts/home-alerts.ts';
import { createMemoryStore, type Subscription } from '../../../src/store/store.ts';

// The Home tab's part of alerts: the subscriptions of the channels a person is in, with Slack
// (users.conversations) faked by a function that pages through a list.

const appsNamed = (...names: string[]) =>
  createApps(
    names.map((name) => ({
      name,
      appId: `${name}-id`,
      region: 'us',
      apiKey: `${name}-key`,
      cometchat: {} as CometChatClient,
      access: {} as Access,
    })),
  );

const subscription = (id: string, channel: string, changes: Partial<Subscription> = {}) => ({
  id,
  app: 'default',
  channel,
  kind: 'calls' as const,
  filters: ['status:unanswered'],
  createdBy: 'U0OPERATOR',
  createdAt: 1_700_000_000_000,
  ...changes,
});

/** users.conversations over `channels`, `limit` a page, cursors as offsets; each call recorded. */
function slackWith(channels: readonly string[]) {
  const conversations = vi.fn(async (args: { limit?: number; cursor?: string }) => {
    const start = Number(args.cursor ?? 0);
    const end = start + (args.limit ?? 100);
    return {
      ok: true,
      channels: channels.slice(start, end).map((id) => ({ id })),
      response_metadata: { next_cursor: end < channels.length ? String(end) : '' },
    };
  });
  return { lookupClient: { users: { conversations } } as unknown as WebClient, conversations };
}

const log = pino({ level: 'silent' });

describe('channelAlertLines', () => {
  it('tells each subscription after its channel, by channel then age', () => {
    const apps = appsNamed('default');
    const later = subscription('b', 'C1', { createdAt: 1_700_000_100_000, kind: 'recordings' });
    const lines = channelAlertLines(
      [subscription('c', 'C2'), later, subscription('a', 'C1')],
      apps,
    );
    expect(lines).toEqual([
      `<#C1> · ${subscriptionLine(subscription('a', 'C1'), undefined)}`,
      `<#C1> · ${subscriptionLine(later, undefined)}`,
      `<#C2> · ${subscriptionLine(subscription('c', 'C2'), undefined)}`,
    ]);
  });

  it('names the app when several are configured, and leaves out an app no longer configured', () => {
    const apps = appsNamed('prod', 'staging');
    const lines = channelAlertLines(
      [subscription('a', 'C1', { app: 'prod' }), subscription('b', 'C1', { app: 'gone' })],
      apps,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(' in *prod*');
  });
});

describe('homeAlerts', () => {
  it('asks Slack nothing when no channel has a subscription', async () => {
    const { lookupClient, conversations } = slackWith(['C1']);
    const part = homeAlerts({
      apps: appsNamed('default'),
      store: createMemoryStore(),
      lookupClient,
    });
    expect(await part('U1', log)).toEqual({ lines: [], partial: false });
    expect(conversations).not.toHaveBeenCalled();
  });

  it('lists the subscriptions of the channels the person is in, public and private', async () => {
    const store = createMemoryStore();
    await store.putSubscription(subscription('a', 'C1'));
    await store.putSubscription(subscription('b', 'G2'));
    await store.putSubscription(subscription('c', 'C3'));
    const { lookupClient, conversations } = slackWith(['C0', 'C1', 'G2']);
    const part = homeAlerts({ apps: appsNamed('default'), store, lookupClient });
    const { lines, partial } = await part('U1', log);
    expect(lines.map((line) => line.split(' · ')[0])).toEqual(['<#C1>', '<#G2>']);
    expect(partial).toBe(false);
    expect(conversations).toHaveBeenCalledWith(
      expect.objectContaining({
        user: 'U1',
        types: 'public_channel,private_channel',
        exclude_archived: true,
      }),
    );
  });

  it('pages until every subscribed channel is found, and says when it stopped short', async () => {
    const many = Array.from({ length: 2_500 }, (_, i) => `C${String(i).padStart(5, '0')}`);
    const store = createMemoryStore();
    await store.putSubscription(subscription('a', 'C00450'));
    const found = slackWith(many);
    const part = homeAlerts({
      apps: appsNamed('default'),
      store,
      lookupClient: found.lookupClient,
    });
    expect((await part('U1', log)).lines).toHaveLength(1);
    // Pages of 200: the third holds it, and no page is asked after.
    expect(found.conversations).toHaveBeenCalledTimes(3);

    await store.putSubscription(subscription('b', 'C02400'));
    const beyond = slackWith(many);
    const again = homeAlerts({
      apps: appsNamed('default'),
      store,
      lookupClient: beyond.lookupClient,
    });
    expect(await again('U1', log)).toMatchObject({ partial: true });
    expect((await again('U1', log)).lines).toHaveLength(1);
    expect(beyond.conversations).toHaveBeenCalledTimes(10);
  });

  it('asks Slack once a minute at most per person and set of subscribed channels', async () => {
    const store = createMemoryStore();
    await store.putSubscription(subscription('a', 'C1'));
    const { lookupClient, conversations } = slackWith(['C1', 'C2']);
    const part = homeAlerts({ apps: appsNamed('default'), store, lookupClient });
    await part('U1', log);
    await part('U1', log);
    expect(conversations).toHaveBeenCalledTimes(1);
    await part('U2', log);
    expect(conversations).toHaveBeenCalledTimes(2);
    // A channel subscribed since is looked for at once.
    await store.putSubscription(subscription('b', 'C2'));
    expect((await part('U1', log)).lines).toHaveLength(2);
    expect(conversations).toHaveBeenCalledTimes(3);
  });

  it("reads from the store only the subscriptions of the person's channels, never them all", async () => {
    const memory = createMemoryStore();
    for (let i = 0; i < 50; i += 1) await memory.putSubscription(subscription(`s${i}`, `C${i}`));
    const asked: string[][] = [];
    // No listSubscriptions here: the part cannot read every subscription.
    const store = {
      countSubscriptions: memory.countSubscriptions,
      listSubscriptionsIn: async (channels: readonly string[]) => {
        asked.push([...channels]);
        return memory.listSubscriptionsIn(channels);
      },
    };
    const { lookupClient } = slackWith(['C7', 'C0NONE', 'C3']);
    const part = homeAlerts({ apps: appsNamed('default'), store, lookupClient });
    const { lines } = await part('U1', log);
    expect(lines.map((line) => line.split(' · ')[0])).toEqual(['<#C3>', '<#C7>']);
    // The page Slack answered, then the channels found in it.
    expect(asked).toEqual([
      ['C7', 'C0NONE', 'C3'],
      ['C3', 'C7'],
    ]);
  });

  it('rejects when Slack does, and asks again the next time', async () => {
    const store = createMemoryStore();
    await store.putSubscription(subscription('a', 'C1'));
    const { lookupClient, conversations } = slackWith(['C1']);
    conversations.mockRejectedValueOnce(new Error('ratelimited'));
    const part = homeAlerts({ apps: appsNamed('default'), store, lookupClient });
    await expect(part('U1', log)).rejects.toThrow('ratelimited');
    expect((await part('U1', log)).lines).toHaveLength(1);
  });
});
