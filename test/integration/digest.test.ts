import { describe, expect, it } from 'vitest';
import { OFFLINE_SECRETS } from '../../offline/stack/offline-stack.ts';
import { createSlackApp } from '../../src/app.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { createMemoryStore } from '../../src/store/store.ts';
import { commandReply, type Harness, textOf } from './harness.ts';
import { useHarnessStarter } from './support.ts';

// The daily digest through the real app: a channel subscribed by `/cometchat digest daily`, then
// the periodic work of two more instances of the app, sharing its store, run at a time past the
// digest's: one post, with the stand-in's figures for the 24 hours before that time; the next
// day's covers the time from there.

/** The stand-in's users are in Berlin (users.info `tz`). */
const ZONE = 'Europe/Berlin';
const CHANNEL = 'C0DIGEST';

const clockIn = new Intl.DateTimeFormat('en-GB', {
  timeZone: ZONE,
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** What was posted in the channel, but the subscription's own announcement. */
function digestsIn(h: Harness): string[] {
  return h.slack.calls
    .filter((c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL)
    .map((c) => textOf(c.args))
    .filter((text) => !text.includes('subscribed this channel'));
}

/** What the stand-in answers for the window, asked directly. */
async function standInFigures(h: Harness, from: number, to: number) {
  const headers = { apikey: OFFLINE_SECRETS.apiKey };
  const stats = (await (
    await fetch(`${h.sandbox.apiUrl}/v3/stats?fromDate=${from}&toDate=${to}`, { headers })
  ).json()) as { data: { metrics: Record<string, number> } };
  const calls = (await (
    await fetch(
      `${h.sandbox.callUrl}/v3/calls?startedAt=${from}&endedAt=${to}&page=1&perPage=100`,
      { headers },
    )
  ).json()) as { meta: { pagination: { total: number } } };
  return { metrics: stats.data.metrics, calls: calls.meta.pagination.total };
}

describe('daily digest', () => {
  const start = useHarnessStarter();

  it('posts the day once from two app instances sharing the store, with the stand-in’s figures', async () => {
    const store = createMemoryStore();
    const h = await start({ store });
    // A minute boundary one to two minutes ahead: after the subscription is made, and its time
    // of day in Berlin is exactly the digest's.
    const dueAt = Math.floor((Date.now() + 120_000) / 60_000) * 60_000;
    const time = clockIn.format(dueAt);
    await commandReply(h, 'digest daily 07:00', h.driver, { channel_id: CHANNEL });
    const subscribed = await commandReply(h, `digest daily ${time}`, h.driver, {
      channel_id: CHANNEL,
    });
    expect(textOf(subscribed)).toContain(
      `Subscribed <#${CHANNEL}> to *a daily digest* at ${time} (${ZONE})`,
    );
    // Asked again, the channel's digest took the new time: still one.
    const kept = await store.listSubscriptions({ channel: CHANNEL });
    expect(kept).toMatchObject([{ kind: 'digest', at: { time, zone: ZONE } }]);
    const listed = await commandReply(h, 'subscriptions', h.driver, { channel_id: CHANNEL });
    expect(textOf(listed)).toContain(`*a daily digest* at ${time} (${ZONE})`);

    const replica = (now = dueAt + 30_000) =>
      createSlackApp({
        config: h.config,
        logger: h.logger,
        store,
        metrics: createMetrics({ defaultMetrics: false }),
        now: () => now,
      });
    const [a, b] = [replica(), replica()];
    const log = h.logger.child({ component: 'sweep' });
    await Promise.all([a.features.periodic(log), b.features.periodic(log)]);
    await Promise.all([a.features.periodic(log), b.features.periodic(log)]);

    const digests = digestsIn(h);
    expect(digests).toHaveLength(1);
    const to = dueAt / 1000;
    const from = to - 86_400;
    const usage = h.sandbox.requests.filter((r) => r.path === '/v3/stats');
    expect(usage.map((r) => r.query)).toEqual([{ fromDate: String(from), toDate: String(to) }]);
    const { metrics, calls } = await standInFigures(h, from, to);
    expect(metrics.active_users).toBeGreaterThan(0);
    const digest = digests[0] ?? '';
    expect(digest).toContain('Daily digest');
    expect(digest).toContain(`*Audio minutes*\n${NUMBER.format(metrics.audio_minutes ?? 0)}`);
    expect(digest).toContain(`*Video minutes*\n${NUMBER.format(metrics.video_minutes ?? 0)}`);
    expect(digest).toContain(`*Recorded minutes*\n${NUMBER.format(metrics.recorded_minutes ?? 0)}`);
    expect(digest).toContain(`*Active users*\n${NUMBER.format(metrics.active_users ?? 0)}`);
    expect(digest).toContain(
      calls > 0 ? `*Calls*: ${NUMBER.format(calls)}, ` : '*Calls*: none started and ended',
    );

    // The next day's covers the time since this one ended: 24 hours, or 23 or 25 across a
    // change of summer time in Berlin (whichever of them brings the clock to the same time).
    const nextDueAt = [24, 23, 25]
      .map((hours) => dueAt + hours * 3_600_000)
      .find((ms) => clockIn.format(ms) === time);
    if (nextDueAt === undefined) throw new Error(`no ${time} in Berlin a day later`);
    await replica(nextDueAt + 30_000).features.periodic(log);
    expect(digestsIn(h)).toHaveLength(2);
    const next = h.sandbox.requests.filter((r) => r.path === '/v3/stats').at(-1)?.query;
    expect(next).toEqual({ fromDate: String(to), toDate: String(nextDueAt / 1000) });
  });

  it('refuses words it cannot read, and a digest outside a channel, in one sentence', async () => {
    const h = await start({ store: createMemoryStore() });
    const refused = await commandReply(h, 'digest daily 25:00', h.driver, {
      channel_id: CHANNEL,
    });
    expect(textOf(refused)).toContain('`25:00` is not a time of day');
    const direct = await commandReply(h, 'digest daily', h.driver, { channel_id: 'D0DIRECT' });
    expect(textOf(direct)).toContain('Subscriptions are made in a channel');
  });
});
