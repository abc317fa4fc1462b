import { describe, expect, it } from 'vitest';
import type { InjectedFailure } from '../../offline/slack-standin/server.ts';
import { subscriptionId } from '../../src/features/alerts/subscriptions.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { commandReply, type Harness, interactionReply, signedJson, textOf } from './harness.ts';
import { driverIn, useHarnessStarter } from './support.ts';

// Subscriptions through the real app: a subscribe or digest change Slack will not announce
// changes nothing, and Remove acts only in the channel the subscription belongs to.

const CHANNEL = 'C0ALERTS';

/** Slack refusing the announcement, every time it is tried (the client's retries included). */
const REFUSALS: [string, InjectedFailure][] = [
  ['an outage (500)', { status: 500, times: Number.POSITIVE_INFINITY }],
  ['a rate limit (429)', { retryAfter: 1, times: Number.POSITIVE_INFINITY }],
  ['not_in_channel', { error: 'not_in_channel', times: Number.POSITIVE_INFINITY }],
];

const NOTHING_CHANGED = /nothing was changed/i;

describe('a subscription Slack refuses to announce', () => {
  const start = useHarnessStarter();
  let store: Store;
  const started = async () => {
    store = createMemoryStore();
    return start({ store });
  };
  /** Runs `/cometchat <text>` in `channel` and answers the reply's text. */
  const run = async (h: Harness, text: string, channel = CHANNEL) =>
    textOf(await commandReply(h, text, driverIn(h, channel)));

  it.each(REFUSALS)(
    '%s: a re-subscribe leaves the subscription as it was, and a new one is not made',
    async (_, refusal) => {
      const h = await started();
      expect(await run(h, 'subscribe calls status:unanswered')).toContain(
        `Subscribed <#${CHANNEL}> to *calls* \`status:unanswered\``,
      );
      const before = await store.listSubscriptions({});
      expect(before).toHaveLength(1);
      h.slack.fail('chat.postMessage', refusal);
      expect(await run(h, 'subscribe calls status:unanswered')).toMatch(NOTHING_CHANGED);
      expect(await run(h, 'subscribe calls type:video')).toMatch(NOTHING_CHANGED);
      expect(await run(h, 'subscribe recordings', 'C0OTHER')).toMatch(NOTHING_CHANGED);
      // Exactly as it was: who made it and when, not only that one exists.
      expect(await store.listSubscriptions({})).toStrictEqual(before);
      h.slack.heal('chat.postMessage');
    },
    30_000,
  );

  it.each(REFUSALS)(
    '%s: a digest asked at another time keeps the one there, at its time',
    async (_, refusal) => {
      const h = await started();
      expect(await run(h, 'digest daily 07:00')).toContain(
        `Subscribed <#${CHANNEL}> to *a daily digest* at 07:00`,
      );
      const before = await store.listSubscriptions({});
      expect(before).toMatchObject([{ kind: 'digest', at: { time: '07:00' } }]);
      h.slack.fail('chat.postMessage', refusal);
      expect(await run(h, 'digest daily 08:30')).toMatch(NOTHING_CHANGED);
      expect(await run(h, 'digest daily 09:00', 'C0OTHER')).toMatch(NOTHING_CHANGED);
      expect(await store.listSubscriptions({})).toStrictEqual(before);
      h.slack.heal('chat.postMessage');
      // Once Slack takes the announcement, the change is made.
      expect(await run(h, 'digest daily 08:30')).toContain('at 08:30');
      expect(await store.listSubscriptions({})).toMatchObject([{ at: { time: '08:30' } }]);
    },
    30_000,
  );

  it('keeps where the last digest ended when its time is changed', async () => {
    const h = await started();
    await run(h, 'digest daily 07:00');
    const [digest] = await store.listSubscriptions({});
    if (!digest) throw new Error('no digest kept');
    await store.putSubscription({ ...digest, coveredTo: 1_700_000_000 });
    expect(await run(h, 'digest daily 08:30')).toContain('at 08:30');
    expect(await store.listSubscriptions({})).toMatchObject([
      { at: { time: '08:30' }, coveredTo: 1_700_000_000 },
    ]);
  });

  it('says what failed, with its reference, when Slack is down', async () => {
    const h = await started();
    h.slack.fail('chat.postMessage', { status: 503, times: Number.POSITIVE_INFINITY });
    const reply = await run(h, 'subscribe transcripts');
    expect(reply).toContain(`Slack did not take the app's post in <#${CHANNEL}>`);
    expect(reply).toMatch(/[0-9a-f]{10}/);
    expect(await store.listSubscriptions({})).toEqual([]);
    h.slack.heal('chat.postMessage');
  });
});

describe('Remove on the list of subscriptions', () => {
  const start = useHarnessStarter();

  it("acts only in the subscription's own channel: a click from another removes nothing", async () => {
    const store = createMemoryStore();
    const h = await start({ store });
    await commandReply(h, 'subscribe calls status:unanswered', driverIn(h, CHANNEL));
    // The list as the app makes it in the subscription's channel, with its signed Remove value.
    const listed = await commandReply(h, 'subscriptions', driverIn(h, CHANNEL));
    const remove = (listed.blocks as { accessory?: { action_id: string; value: string } }[]).find(
      (block) => block.accessory,
    )?.accessory;
    expect(remove).toBeDefined();
    const click = { actionId: String(remove?.action_id), value: String(remove?.value) };
    // Its id is a hash of what anyone can name: the app, the channel, the kind and the filters.
    expect(signedJson(click.value).id).toBe(
      subscriptionId('default', CHANNEL, { kind: 'calls', filters: ['status:unanswered'] }),
    );

    const elsewhere = await interactionReply(h, driverIn(h, 'C0OTHER').blockAction(click));
    expect(textOf(elsewhere)).toContain(
      "That subscription is not one of this channel's, or it was removed already: nothing was removed.",
    );
    expect(await store.listSubscriptions({ channel: CHANNEL })).toHaveLength(1);
    // A direct message is no channel of it either.
    const direct = await interactionReply(h, driverIn(h, 'D0DIRECT').blockAction(click));
    expect(textOf(direct)).toContain('nothing was removed');
    expect(await store.listSubscriptions({ channel: CHANNEL })).toHaveLength(1);

    const own = await interactionReply(h, driverIn(h, CHANNEL).blockAction(click));
    expect(textOf(own)).toContain('Removed the subscription');
    expect(await store.listSubscriptions({})).toEqual([]);
  });
});
