import { describe, expect, it, vi } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { Access } from '../../../src/access/access.ts';
import { createApps } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import type { CallPage, CallQuery, Usage, UsageRange } from '../../../src/cometchat/model.ts';
import {
  CALL_PAGES,
  countCalls,
  type DigestDeps,
  POSTING_CLAIM_SECONDS,
  postDueDigests,
  READ_RETRY_MS,
} from '../../../src/features/alerts/digest.ts';
import {
  type DigestDay,
  digestDue,
  localInstant,
  parseDigestWords,
} from '../../../src/features/alerts/digest-rules.ts';
import { type CallCounts, digestPost } from '../../../src/features/alerts/digest-view.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { createLogger } from '../../../src/log.ts';
import { escapeMrkdwn } from '../../../src/slack/mrkdwn.ts';
import { createMemoryStore, type Store, type Subscription } from '../../../src/store/store.ts';
import { markupOf, textOf } from '../../integration/harness.ts';
import { LogCapture } from '../../log-capture.ts';

// The daily digest without Slack: its words, when it is due in a zone, its post, and the
// periodic job over a memory store with a CometChat and a Slack the test answers.

const at = (iso: string) => Date.parse(iso);
const LONG_AGO = at('2020-01-01T00:00:00Z');

describe('parseDigestWords', () => {
  it('reads daily, with 09:00 when no time is given', () => {
    expect(parseDigestWords(['daily'])).toEqual({ time: '09:00' });
    expect(parseDigestWords(['Daily', '17:30'])).toEqual({ time: '17:30' });
    expect(parseDigestWords(['daily', '7:05'])).toEqual({ time: '07:05' });
    expect(parseDigestWords(['daily', '00:00'])).toEqual({ time: '00:00' });
    expect(parseDigestWords(['daily', '23:59'])).toEqual({ time: '23:59' });
  });

  it('refuses anything else in one sentence', () => {
    for (const words of [[], ['weekly'], ['daily', '09:00', 'UTC'], ['9:00']]) {
      const refused = parseDigestWords(words);
      expect(refused).toBeInstanceOf(Refusal);
      expect((refused as Refusal).problem).toMatch(/^Usage: `\/cometchat digest daily \[HH:MM\]`/);
    }
    for (const time of ['24:00', '9am', '09:60', '0900', '9:5']) {
      const refused = parseDigestWords(['daily', time]);
      expect(refused).toBeInstanceOf(Refusal);
      expect((refused as Refusal).problem).toContain('is not a time of day: give it as HH:MM');
    }
  });
});

describe('localInstant', () => {
  it('is the moment the zone’s clock reads the time', () => {
    expect(localInstant('2026-01-15', '09:00', 'UTC')).toBe(at('2026-01-15T09:00:00Z'));
    expect(localInstant('2026-01-15', '09:00', 'Europe/Berlin')).toBe(at('2026-01-15T08:00:00Z'));
    expect(localInstant('2026-07-15', '09:00', 'Europe/Berlin')).toBe(at('2026-07-15T07:00:00Z'));
    expect(localInstant('2026-01-15', '09:00', 'America/Los_Angeles')).toBe(
      at('2026-01-15T17:00:00Z'),
    );
    // A day that begins half a day ahead of UTC, and one with a quarter-hour offset.
    expect(localInstant('2026-01-16', '09:00', 'Pacific/Auckland')).toBe(
      at('2026-01-15T20:00:00Z'),
    );
    expect(localInstant('2026-01-15', '09:00', 'Asia/Kathmandu')).toBe(at('2026-01-15T03:15:00Z'));
  });

  it('on the days summer time begins and ends', () => {
    // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT (07:00 UTC).
    expect(localInstant('2026-03-08', '01:00', 'America/New_York')).toBe(
      at('2026-03-08T06:00:00Z'),
    );
    expect(localInstant('2026-03-08', '09:00', 'America/New_York')).toBe(
      at('2026-03-08T13:00:00Z'),
    );
    // A time the clock skips comes when it jumps past it.
    expect(localInstant('2026-03-08', '02:30', 'America/New_York')).toBe(
      at('2026-03-08T07:00:00Z'),
    );
    expect(localInstant('2026-03-29', '02:30', 'Europe/Berlin')).toBe(at('2026-03-29T01:00:00Z'));
    // A time that comes twice (the clock put back): the first.
    expect(localInstant('2026-11-01', '01:30', 'America/New_York')).toBe(
      at('2026-11-01T05:30:00Z'),
    );
    expect(localInstant('2026-10-25', '02:30', 'Europe/Berlin')).toBe(at('2026-10-25T00:30:00Z'));
  });
});

describe('digestDue', () => {
  const berlin = { time: '09:00', zone: 'Europe/Berlin' };

  it('is not due before its time today, and due from then on, covering the 24 hours before', () => {
    expect(digestDue(berlin, LONG_AGO, at('2026-01-15T07:59:59Z'))).toBeUndefined();
    const due = digestDue(berlin, LONG_AGO, at('2026-01-15T08:00:00Z'));
    const to = at('2026-01-15T08:00:00Z') / 1000;
    expect(due).toEqual({ day: '2026-01-15', dueAt: to * 1000, from: to - 86_400, to });
    // Later that day it is still today's (whether it was posted is the claim's to say).
    expect(digestDue(berlin, LONG_AGO, at('2026-01-15T22:59:00Z'))?.day).toBe('2026-01-15');
    // Past midnight in Berlin (23:00 UTC), a new day whose time has not come.
    expect(digestDue(berlin, LONG_AGO, at('2026-01-15T23:00:00Z'))).toBeUndefined();
  });

  it('reads the day in the digest’s zone, not in UTC', () => {
    const auckland = { time: '09:00', zone: 'Pacific/Auckland' };
    expect(digestDue(auckland, LONG_AGO, at('2026-01-15T20:30:00Z'))?.day).toBe('2026-01-16');
    const angeles = { time: '09:00', zone: 'America/Los_Angeles' };
    expect(digestDue(angeles, LONG_AGO, at('2026-01-15T16:30:00Z'))).toBeUndefined();
    expect(digestDue(angeles, LONG_AGO, at('2026-01-15T17:00:00Z'))?.day).toBe('2026-01-15');
  });

  it('keeps its wall-clock time on a day summer time begins', () => {
    const newYork = { time: '09:00', zone: 'America/New_York' };
    // 09:00 EST the day before, 09:00 EDT that day: an hour earlier in UTC.
    expect(digestDue(newYork, LONG_AGO, at('2026-03-07T14:00:00Z'))?.day).toBe('2026-03-07');
    expect(digestDue(newYork, LONG_AGO, at('2026-03-08T12:59:00Z'))).toBeUndefined();
    const due = digestDue(newYork, LONG_AGO, at('2026-03-08T13:00:00Z'));
    expect(due?.dueAt).toBe(at('2026-03-08T13:00:00Z'));
    // With no digest before it, the 24 hours before.
    expect((due?.to ?? 0) - (due?.from ?? 0)).toBe(86_400);
  });

  it('covers the time since the previous digest ended: 23 hours on a spring day, 25 in autumn', () => {
    const newYork = { time: '09:00', zone: 'America/New_York' };
    const before = at('2026-03-07T14:00:00Z') / 1000;
    const spring = digestDue(newYork, LONG_AGO, at('2026-03-08T13:00:00Z'), before);
    expect(spring).toMatchObject({ from: before, to: at('2026-03-08T13:00:00Z') / 1000 });
    expect((spring?.to ?? 0) - (spring?.from ?? 0)).toBe(23 * 3600);
    const autumnBefore = at('2026-10-24T07:00:00Z') / 1000;
    const autumn = digestDue(berlin, LONG_AGO, at('2026-10-25T08:00:00Z'), autumnBefore);
    expect(autumn).toMatchObject({ from: autumnBefore, to: at('2026-10-25T08:00:00Z') / 1000 });
    expect((autumn?.to ?? 0) - (autumn?.from ?? 0)).toBe(25 * 3600);
    // An end at or past this one's (a clock put back) is not a window: the 24 hours.
    const to = at('2026-01-15T08:00:00Z') / 1000;
    expect(digestDue(berlin, LONG_AGO, to * 1000, to)).toMatchObject({ from: to - 86_400, to });
  });

  it('comes first at its time after it was made, not at once for a time already past', () => {
    const made = at('2026-01-15T10:00:00Z');
    expect(digestDue(berlin, made, at('2026-01-15T10:01:00Z'))).toBeUndefined();
    expect(digestDue(berlin, made, at('2026-01-16T08:00:00Z'))?.day).toBe('2026-01-16');
  });
});

const usage: Usage = {
  audioMinutes: 25.07,
  videoMinutes: 0.86,
  recordedMinutes: 0,
  activeUsers: 5,
  concurrentUsers: 2,
};
const day: DigestDay = {
  day: '2026-01-15',
  dueAt: at('2026-01-15T08:00:00Z'),
  from: at('2026-01-14T08:00:00Z') / 1000,
  to: at('2026-01-15T08:00:00Z') / 1000,
};
const counts = (entries: [string, number][], capped = false, total = 0): CallCounts => ({
  byStatus: new Map(entries),
  counted: entries.reduce((sum, [, n]) => sum + n, 0),
  capped,
  total,
});

describe('digestPost', () => {
  const input = {
    appName: undefined,
    day,
    at: { time: '09:00', zone: 'Europe/Berlin' },
    usage,
    calls: counts([
      ['unanswered', 3],
      ['ended', 12],
      ['zzz_new', 1],
      ['rejected', 2],
    ]),
  };

  it('shows the figures and the calls by status, the known statuses first', () => {
    const post = digestPost(input);
    const text = textOf(post);
    expect(post.text).toBe('Daily digest for 2026-01-15');
    for (const shown of ['Audio minutes*\n25.07', 'Video minutes*\n0.86', 'Active users*\n5']) {
      expect(text).toContain(shown);
    }
    expect(text).toContain('*Recorded minutes*\n0');
    expect(text).toContain(
      `*Calls*: 18, 12 ended · 3 unanswered · 2 rejected · 1 ${escapeMrkdwn('zzz_new')}`,
    );
    expect(text).toContain('Posted each day at 09:00 (Europe/Berlin)');
    expect(text).toContain(`<!date^${day.to}^`);
    assertWithinLimits('message', post);
  });

  it('names the app when several are configured, and says a figure not given', () => {
    const post = digestPost({ ...input, appName: 'prod', usage: { activeUsers: 4 } });
    expect(post.text).toBe('Daily digest of prod for 2026-01-15');
    expect(textOf(post)).toContain('*Daily digest* in *prod*');
    expect(textOf(post)).toContain('*Audio minutes*\n— (not given)');
  });

  it('says "at least" when the calls were more than the pages read', () => {
    const capped = digestPost({ ...input, calls: counts([['ended', 1000]], true, 1234) });
    expect(textOf(capped)).toContain(
      '*Calls*: 1,234; at least 1,000 ended (only the newest 1,000 were counted)',
    );
    const none = digestPost({ ...input, calls: counts([]) });
    expect(textOf(none)).toContain('*Calls*: none started and ended in that time.');
  });

  it('says how long the time it covers is: 24 hours, 23 or 25, or from one date to another', () => {
    expect(textOf(digestPost(input))).toContain(`: the 24 hours to <!date^${day.to}^`);
    const spring = { ...day, from: day.to - 23 * 3600 };
    expect(textOf(digestPost({ ...input, day: spring }))).toContain(
      `: the 23 hours to <!date^${day.to}^`,
    );
    const moved = { ...day, from: day.to - 8.5 * 3600 };
    expect(textOf(digestPost({ ...input, day: moved }))).toContain(
      `: <!date^${moved.from}^{date_short_pretty} {time}|`,
    );
  });

  it('puts the failure’s sentence where a part could not be read', () => {
    const post = digestPost({
      ...input,
      usage: { failure: 'CometChat is not answering the usage figures right now.' },
      calls: { failure: 'CometChat is not answering the call search right now.' },
    });
    const text = textOf(post);
    expect(text).toContain('*Usage*: CometChat is not answering the usage figures');
    expect(text).toContain('*Calls*: CometChat is not answering the call search');
    expect(text).not.toContain('Audio minutes');
  });

  it('lets no status CometChat sends mention anyone', () => {
    const post = digestPost({ ...input, calls: counts([['<!channel> *x*', 1]]) });
    for (const text of markupOf(post)) expect(text).not.toMatch(/<!channel>/);
    assertWithinLimits('message', post);
  });
});

// ---------------------------------------------------------------------------------------------
// The periodic job

const DIGEST: Subscription = {
  id: 'digest-1',
  app: 'default',
  channel: 'C0DIGEST',
  kind: 'digest',
  filters: [],
  at: { time: '09:00', zone: 'Europe/Berlin' },
  createdBy: 'U1',
  createdAt: LONG_AGO,
};
/** 09:05 in Berlin on 15 January 2026: the digest's time has come. */
const DUE_NOW = at('2026-01-15T08:05:00Z');

const page = (statuses: string[], number: number, totalPages: number, total = 0): CallPage => ({
  calls: statuses.map((status, i) => ({
    sessionId: `s${number}-${i}`,
    status,
    totalParticipants: 2,
    hasRecording: false,
    hasTranscription: false,
    neverJoined: 0,
  })),
  page: number,
  totalPages,
  total,
});

interface World {
  deps: DigestDeps;
  store: Store;
  posts: Record<string, unknown>[];
  asked: CallQuery[];
  usageAsked: UsageRange[];
  cometchat: { fail?: unknown; pages: number };
  /** `hang`: the post is never answered, as when the replica posting it stops. */
  slack: { fail?: unknown; hang?: boolean };
  clock: { now: number };
}

function world(): World {
  const clock = { now: DUE_NOW };
  // The claims run on the job's clock.
  const store = createMemoryStore(() => clock.now);
  const posts: Record<string, unknown>[] = [];
  const asked: CallQuery[] = [];
  const usageAsked: UsageRange[] = [];
  const cometchat: World['cometchat'] = { pages: 1 };
  const slack: World['slack'] = {};
  const client = {
    getUsage: async (range: UsageRange) => {
      usageAsked.push(range);
      if (cometchat.fail) throw cometchat.fail;
      return usage;
    },
    listCalls: async (query: CallQuery) => {
      asked.push(query);
      return page(['ended', 'unanswered'], query.page, cometchat.pages, cometchat.pages * 2);
    },
  } as Partial<CometChatClient> as CometChatClient;
  const apps = createApps([
    {
      name: 'default',
      appId: 'app',
      region: 'us',
      apiKey: 'key',
      cometchat: client,
      access: {} as Access,
    },
  ]);
  const chat = {
    postMessage: async (args: Record<string, unknown>) => {
      if (slack.hang) return new Promise<never>(() => {});
      if (slack.fail) throw slack.fail;
      posts.push(args);
      return { ok: true };
    },
  };
  const deps = {
    apps,
    store,
    client: { chat } as unknown as DigestDeps['client'],
    now: () => clock.now,
    budgetSeconds: 8,
    secrets: [],
    log: createLogger({ level: 'debug', destination: new LogCapture() }),
  };
  return { deps, store, posts, asked, usageAsked, cometchat, slack, clock };
}

const unavailable = () =>
  new CometChatError({ kind: 'unavailable', ref: 'r1', operation: 'getUsage', status: 503 });

function slackRefused(error: string): Error {
  return Object.assign(new Error(error), { code: 'slack_webapi_platform_error', data: { error } });
}

describe('postDueDigests', () => {
  it('posts a due digest once, however many replicas run the job at once', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    const [a, b] = await Promise.all([postDueDigests(w.deps), postDueDigests(w.deps)]);
    expect(a + b).toBe(1);
    expect(w.posts).toHaveLength(1);
    expect(w.posts[0]?.channel).toBe('C0DIGEST');
    expect(textOf(w.posts[0])).toContain('*Calls*: 2, 1 ended · 1 unanswered');
    expect(w.asked[0]).toMatchObject({ startedAt: day.from, endedAt: day.to, perPage: 100 });
    // Already posted today: later runs that day post nothing; the next day's comes.
    w.clock.now = at('2026-01-15T20:00:00Z');
    expect(await postDueDigests(w.deps)).toBe(0);
    w.clock.now = at('2026-01-16T08:00:00Z');
    expect(await postDueDigests(w.deps)).toBe(1);
    expect(w.posts).toHaveLength(2);
  });

  it('posts nothing before its time, and other kinds never', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    await w.store.putSubscription({ ...DIGEST, id: 'calls-1', kind: 'calls', at: undefined });
    w.clock.now = at('2026-01-15T07:59:00Z');
    expect(await postDueDigests(w.deps)).toBe(0);
    expect(w.posts).toEqual([]);
    // Nothing was claimed: at its time it comes.
    w.clock.now = at('2026-01-15T08:00:00Z');
    expect(await postDueDigests(w.deps)).toBe(1);
  });

  it('tries a failed CometChat read again next minute, then posts the failure’s sentence', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    w.cometchat.fail = unavailable();
    expect(await postDueDigests(w.deps)).toBe(0);
    expect(w.posts).toEqual([]);
    // The claim was let go: CometChat back, the next minute posts the figures.
    w.cometchat.fail = undefined;
    w.clock.now += 60_000;
    expect(await postDueDigests(w.deps)).toBe(1);
    expect(textOf(w.posts[0])).toContain('*Audio minutes*\n25.07');

    const later = world();
    await later.store.putSubscription(DIGEST);
    later.cometchat.fail = unavailable();
    later.clock.now = at('2026-01-15T08:00:00Z') + READ_RETRY_MS;
    expect(await postDueDigests(later.deps)).toBe(1);
    const text = textOf(later.posts[0]);
    expect(text).toContain('*Usage*: CometChat is not answering the usage figures right now');
    // The calls were read: they are shown all the same.
    expect(text).toContain('*Calls*: 2, 1 ended');
    // Never twice: the day is done.
    expect(await postDueDigests(later.deps)).toBe(0);
  });

  it('lets the claim go when Slack did not take the post, but not for a channel it cannot post in', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    w.slack.fail = slackRefused('internal_error');
    expect(await postDueDigests(w.deps)).toBe(0);
    w.slack.fail = undefined;
    expect(await postDueDigests(w.deps)).toBe(1);

    const gone = world();
    await gone.store.putSubscription(DIGEST);
    gone.slack.fail = slackRefused('not_in_channel');
    expect(await postDueDigests(gone.deps)).toBe(0);
    gone.slack.fail = undefined;
    // Given up for the day rather than tried every minute; the next day tries again.
    expect(await postDueDigests(gone.deps)).toBe(0);
    gone.clock.now = at('2026-01-16T08:00:00Z');
    expect(await postDueDigests(gone.deps)).toBe(1);
  });
});

describe('postDueDigests, day after day across a change of summer time', () => {
  const HOUR = 3600;
  // The digest's 09:00 each day, in UTC: before, on and after the night the clocks change.
  const CHANGES = [
    {
      zone: 'Europe/Berlin',
      spring: ['2026-03-28T08:00:00Z', '2026-03-29T07:00:00Z', '2026-03-30T07:00:00Z'],
      autumn: ['2026-10-24T07:00:00Z', '2026-10-25T08:00:00Z', '2026-10-26T08:00:00Z'],
    },
    {
      zone: 'America/New_York',
      spring: ['2026-03-07T14:00:00Z', '2026-03-08T13:00:00Z', '2026-03-09T13:00:00Z'],
      autumn: ['2026-10-31T13:00:00Z', '2026-11-01T14:00:00Z', '2026-11-02T14:00:00Z'],
    },
  ];

  /** Runs the job a minute after each due time; answers the usage windows asked, in hours. */
  async function postEach(zone: string, dues: readonly string[]) {
    const w = world();
    await w.store.putSubscription({ ...DIGEST, at: { time: '09:00', zone } });
    for (const due of dues) {
      w.clock.now = at(due) + 60_000;
      expect(await postDueDigests(w.deps)).toBe(1);
    }
    const windows = w.usageAsked.map((r) => ({ from: r.fromDate, to: r.toDate }));
    // The calls are counted over the same windows.
    const calls = w.asked.map((q) => ({ from: q.startedAt, to: q.endedAt }));
    expect(calls).toEqual(windows);
    return { w, windows, hours: windows.map((r) => (r.to - r.from) / HOUR) };
  }

  for (const { zone, spring, autumn } of CHANGES) {
    it(`${zone}: 23 hours across the spring change, each from where the one before ended`, async () => {
      const { w, windows, hours } = await postEach(zone, spring);
      expect(windows.map((r) => r.to)).toEqual(spring.map((due) => at(due) / 1000));
      // The first has none before it: the 24 hours. Then each begins where the last ended.
      expect(hours).toEqual([24, 23, 24]);
      for (let i = 1; i < windows.length; i++) {
        expect(windows[i]?.from).toBe(windows[i - 1]?.to);
      }
      expect(textOf(w.posts[1])).toContain('the 23 hours to');
      const [kept] = await w.store.listSubscriptions({});
      expect(kept?.coveredTo).toBe(windows.at(-1)?.to);
    });

    it(`${zone}: 25 hours across the autumn change, each from where the one before ended`, async () => {
      const { windows, hours } = await postEach(zone, autumn);
      expect(hours).toEqual([24, 25, 24]);
      for (let i = 1; i < windows.length; i++) {
        expect(windows[i]?.from).toBe(windows[i - 1]?.to);
      }
    });
  }

  it('covers the days a digest was not posted, and a time of day changed meanwhile', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    w.clock.now = at('2026-01-15T08:01:00Z');
    expect(await postDueDigests(w.deps)).toBe(1);
    // Asked again for 17:30 (kept where it ended), then nothing until the 18th.
    const [kept] = await w.store.listSubscriptions({});
    if (!kept) throw new Error('the digest is gone');
    await w.store.putSubscription({ ...kept, at: { time: '17:30', zone: 'Europe/Berlin' } });
    w.clock.now = at('2026-01-18T16:31:00Z');
    expect(await postDueDigests(w.deps)).toBe(1);
    expect(w.usageAsked[1]).toEqual({
      fromDate: at('2026-01-15T08:00:00Z') / 1000,
      toDate: at('2026-01-18T16:30:00Z') / 1000,
    });
  });

  it('does not put back a digest removed, nor undo one changed, while it was posted', async () => {
    const removed = world();
    await removed.store.putSubscription(DIGEST);
    const post = removed.deps.client.chat.postMessage;
    removed.deps.client = {
      chat: {
        postMessage: async (args: Parameters<typeof post>[0]) => {
          await removed.store.removeSubscription(DIGEST.id);
          return post(args);
        },
      },
    } as DigestDeps['client'];
    expect(await postDueDigests(removed.deps)).toBe(1);
    expect(await removed.store.listSubscriptions({})).toEqual([]);

    const changed = world();
    await changed.store.putSubscription(DIGEST);
    const evening = { time: '18:00', zone: 'Europe/Berlin' };
    changed.deps.client = {
      chat: {
        postMessage: async (args: Parameters<typeof post>[0]) => {
          await changed.store.putSubscription({ ...DIGEST, at: evening });
          return post(args);
        },
      },
    } as DigestDeps['client'];
    expect(await postDueDigests(changed.deps)).toBe(1);
    expect(await changed.store.listSubscriptions({})).toMatchObject([
      { at: evening, coveredTo: at('2026-01-15T08:00:00Z') / 1000 },
    ]);
  });
});

describe('postDueDigests, when a replica stops', () => {
  it('leaves a digest it did not post to another replica, minutes later, once', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    w.slack.hang = true;
    // This replica stops while posting: its run never ends.
    void postDueDigests(w.deps);
    await vi.waitFor(() => expect(w.asked).toHaveLength(1));
    w.slack.hang = false;
    w.clock.now += POSTING_CLAIM_SECONDS * 1000 - 1;
    expect(await postDueDigests(w.deps)).toBe(0);
    w.clock.now += 1;
    expect(await postDueDigests(w.deps)).toBe(1);
    expect(w.posts).toHaveLength(1);
    // Posted: the day is kept, hours later too.
    w.clock.now = at('2026-01-15T20:00:00Z');
    expect(await postDueDigests(w.deps)).toBe(0);
  });

  it('posts it twice rather than never when the store cannot keep the day once posted', async () => {
    const w = world();
    await w.store.putSubscription(DIGEST);
    w.deps.store = {
      ...w.store,
      renewClaim: async () => {
        throw new Error('store not answering');
      },
    };
    expect(await postDueDigests(w.deps)).toBe(1);
    w.clock.now += POSTING_CLAIM_SECONDS * 1000;
    expect(await postDueDigests(w.deps)).toBe(1);
    expect(w.posts).toHaveLength(2);
  });
});

describe('countCalls', () => {
  it('reads every page up to the cap, and says when there were more', async () => {
    const w = world();
    const cometchat = { listCalls: w.deps.apps.byName('default')?.cometchat.listCalls };
    if (!cometchat.listCalls) throw new Error('no client');
    const listCalls = cometchat.listCalls;
    w.cometchat.pages = 3;
    const three = await countCalls({ listCalls }, day);
    expect(three).toMatchObject({ counted: 6, capped: false });
    expect(w.asked.map((q) => q.page)).toEqual([1, 2, 3]);
    w.asked.length = 0;
    w.cometchat.pages = CALL_PAGES + 5;
    const capped = await countCalls({ listCalls }, day);
    expect(capped).toMatchObject({ counted: CALL_PAGES * 2, capped: true, total: 30 });
    expect(w.asked).toHaveLength(CALL_PAGES);
  });
});
