import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple, type CometChatApp } from '../../apps/apps.ts';
import type { CometChatClient } from '../../cometchat/client.ts';
import type { CallPage, Usage } from '../../cometchat/model.ts';
import { failureSentence } from '../../replies/failure.ts';
import { currentRequest } from '../../request-context.ts';
import { NOT_THERE, platformErrorCode } from '../../slack/slack-errors.ts';
import type { Store, Subscription } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { asJob } from '../job.ts';
import { type DigestDay, type DigestWords, digestDue } from './digest-rules.ts';
import { type CallCounts, digestPost, type Unread } from './digest-view.ts';
import { type SubscribeRequest, subscribeChannel, subscriptionId } from './subscriptions.ts';

// The daily digest: `/cometchat digest daily [HH:MM]` subscribes the channel, and every minute
// each replica posts the digests that are due. The claim on a digest's day, asked for before
// anything is read, makes it once across replicas; it is let go again whenever nothing was
// posted, so the next minute tries again. It is taken short and made long once the digest is
// posted: a replica that stops in between leaves a claim that frees itself.

/**
 * How long a day's digest is claimed while it is read and posted: far longer than that takes
 * (CometChat's budget is seconds, the Web API client's retries a minute or two), so no other
 * replica posts it meanwhile, and short enough that a stop costs the channel minutes, not the day.
 */
export const POSTING_CLAIM_SECONDS = 10 * 60;
/** Once the digest is posted, its claim outlives the day, so no replica posts it twice. */
const POSTED_CLAIM_SECONDS = 2 * 24 * 60 * 60;
/**
 * A CometChat read that fails is tried again each minute for this long after the digest is
 * due, then the digest is posted with the failure's sentence in place of what was not read.
 * Not posting at once: a passing outage would cost the day's figures, which nobody can ask for
 * again later. Not waiting longer: the channel would hear nothing, and nobody would know why.
 */
export const READ_RETRY_MS = 30 * 60_000;
/** The calls of a day are counted from at most this many pages of the list, newest first. */
export const CALL_PAGES = 10;
const CALLS_PER_PAGE = 100;

/** `digest daily [HH:MM]`: the channel's digest of the app, at that time in the person's zone. */
export function createDigestCommand(deps: AppDeps) {
  return (request: SubscribeRequest, words: DigestWords): Promise<void> =>
    subscribeChannel(deps, request, async () => {
      const { app, channelId, userId } = request;
      const id = subscriptionId(app.name, channelId, { kind: 'digest', filters: [] });
      // A new time keeps where the last digest ended: the next one starts there, not a day back.
      const before = await deps.store.listSubscriptions({ channel: channelId });
      const coveredTo = before.find((s) => s.id === id)?.coveredTo;
      const zone = await deps.timeZones.of(userId, currentRequest().log);
      return {
        id,
        kind: 'digest',
        filters: [],
        at: { time: words.time, zone },
        ...(coveredTo === undefined ? {} : { coveredTo }),
      };
    });
}

export interface DigestDeps {
  apps: Pick<Apps, 'byName' | 'multiple'>;
  store: Pick<Store, 'claim' | 'renewClaim' | 'release' | 'listSubscriptions' | 'putSubscription'>;
  /** The Web API client the posts go through. */
  client: Pick<WebClient, 'chat'>;
  now: () => number;
  /** For the sentences of CometChat's failures. */
  budgetSeconds: number;
  /** Every secret the app holds, which no failure's sentence shows. */
  secrets: readonly string[];
  log: Logger;
}

/** The feature's periodic job: its dependencies, from the app's. */
export function postDigests(deps: AppDeps, log: Logger): Promise<number> {
  return postDueDigests({
    apps: deps.apps,
    store: deps.store,
    client: deps.client,
    now: deps.now,
    budgetSeconds: deps.budgetSeconds,
    secrets: deps.secrets,
    log,
  });
}

/** Posts every digest that is due and not yet posted today; answers how many it posted. */
export async function postDueDigests(deps: DigestDeps): Promise<number> {
  const now = deps.now();
  const digests = await deps.store.listSubscriptions({});
  let posted = 0;
  for (const subscription of digests) {
    if (subscription.kind !== 'digest') continue;
    try {
      if (await postIfDue(deps, subscription, now)) posted += 1;
    } catch (error) {
      // One channel's digest does not keep the others from theirs.
      deps.log.warn({ err: error, subscription: subscription.id }, 'digest not posted');
    }
  }
  return posted;
}

async function postIfDue(
  deps: DigestDeps,
  subscription: Subscription,
  now: number,
): Promise<boolean> {
  const { at } = subscription;
  const app = deps.apps.byName(subscription.app);
  const due =
    app && at ? digestDue(at, subscription.createdAt, now, subscription.coveredTo) : undefined;
  if (!app || !at || !due) return false;
  const claim = `digest:${subscription.id}:${due.day}`;
  if (!(await deps.store.claim(claim, POSTING_CLAIM_SECONDS))) return false;
  // Each digest under a reference of its own, which its CometChat requests and lines carry.
  const fields = { subscription: subscription.id, day: due.day };
  const digest = { subscription, app, at, due, claim, now };
  return asJob(deps.log, fields, (log) => readAndPost(deps, { ...digest, log }), deps.now);
}

interface DueDigest {
  subscription: Subscription;
  app: CometChatApp;
  at: NonNullable<Subscription['at']>;
  due: DigestDay;
  claim: string;
  now: number;
  log: Logger;
}

/** Reads and posts a digest whose claim is taken: true once posted. */
async function readAndPost(deps: DigestDeps, digest: DueDigest): Promise<boolean> {
  const { subscription, app, at, due, claim, now, log } = digest;
  try {
    const figures = await readFigures(app, due);
    const failed = [figures.usage, figures.calls].find(isFailure);
    if (failed && now < due.dueAt + READ_RETRY_MS) {
      log.warn({ err: failed.error }, 'digest: CometChat not read; tried again next minute');
      await deps.store.release(claim);
      return false;
    }
    const told = <T extends object>(part: T | Failure): T | Unread =>
      isFailure(part) ? { failure: failureSentence(part.error, deps) } : part;
    const post = digestPost({
      appName: appNameIfMultiple(deps.apps, app),
      day: due,
      at,
      usage: told(figures.usage),
      calls: told(figures.calls),
    });
    await deps.client.chat.postMessage({ channel: subscription.channel, ...post });
    log.info({ channel: subscription.channel, read: !failed }, 'digest posted');
    // Never throw: what follows a post is never taken for a failure to post.
    await keepForTheDay(deps, claim, log);
    await keepCovered(deps, subscription, due.to, log);
    return true;
  } catch (error) {
    // A channel the app cannot post in stays so all day: the day is given up (logged), not
    // tried every minute. Anything else: nothing was posted, so the claim goes.
    if (NOT_THERE.has(platformErrorCode(error) ?? '')) await keepForTheDay(deps, claim, log);
    else await deps.store.release(claim);
    throw error;
  }
}

/**
 * Makes a digest's claim outlive its day. Should the store not answer, the short claim frees
 * itself and the digest may be posted again: twice rather than never.
 */
async function keepForTheDay(deps: DigestDeps, claim: string, log: Logger): Promise<void> {
  try {
    if (await deps.store.renewClaim(claim, POSTED_CLAIM_SECONDS)) return;
    log.warn('digest: its claim ran out before it was kept for the day; it may be posted again');
  } catch (error) {
    log.warn({ err: error }, 'digest: not kept for the day; it may be posted again');
  }
}

/**
 * Keeps on the subscription where the posted digest ended, so that the next covers the time from
 * there. Read again first: a subscription removed meanwhile is not put back, and one asked for
 * again (another time) keeps what was asked. Should the store not keep it, the next digest
 * covers this one's time again: twice rather than never.
 */
async function keepCovered(
  deps: DigestDeps,
  posted: Subscription,
  to: number,
  log: Logger,
): Promise<void> {
  try {
    const found = await deps.store.listSubscriptions({ app: posted.app, channel: posted.channel });
    const current = found.find((s) => s.id === posted.id);
    if (current === undefined || (current.coveredTo ?? 0) >= to) return;
    await deps.store.putSubscription({ ...current, coveredTo: to });
  } catch (error) {
    log.warn({ err: error }, 'digest: where it ended not kept; the next may cover its time again');
  }
}

interface Failure {
  error: unknown;
}

function isFailure(part: object): part is Failure {
  return 'error' in part;
}

/** The usage and the calls of the day, read together; either may have failed. */
async function readFigures(
  app: CometChatApp,
  due: DigestDay,
): Promise<{ usage: Usage | Failure; calls: CallCounts | Failure }> {
  const [usage, calls] = await Promise.allSettled([
    app.cometchat.getUsage({ fromDate: due.from, toDate: due.to }),
    countCalls(app.cometchat, due),
  ]);
  const settled = <T>(result: PromiseSettledResult<T>): T | Failure =>
    result.status === 'fulfilled' ? result.value : { error: result.reason };
  return { usage: settled(usage), calls: settled(calls) };
}

/**
 * The calls that started and ended in the window, counted by status: the first page says how
 * many pages there are, and the rest (up to CALL_PAGES in all) are read together.
 */
export async function countCalls(
  cometchat: Pick<CometChatClient, 'listCalls'>,
  window: { from: number; to: number },
): Promise<CallCounts> {
  const page = (number: number) =>
    cometchat.listCalls({
      startedAt: window.from,
      endedAt: window.to,
      page: number,
      perPage: CALLS_PER_PAGE,
    });
  const first = await page(1);
  const pages = Math.min(first.totalPages, CALL_PAGES);
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) => page(i + 2)),
  );
  return tally([first, ...rest], first.totalPages > CALL_PAGES);
}

function tally(pages: readonly CallPage[], capped: boolean): CallCounts {
  const byStatus = new Map<string, number>();
  let counted = 0;
  for (const { calls } of pages) {
    for (const call of calls) {
      const status = call.status ?? 'unknown';
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      counted += 1;
    }
  }
  return { byStatus, counted, capped, total: pages[0]?.total ?? counted };
}
