import { ErrorCode, type WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, valueWriter } from '../../apps/apps.ts';
import type { Metrics } from '../../observe/metrics.ts';
import { slackErrorCode } from '../../slack/deliver.ts';
import { errorField, NOT_THERE, platformErrorCode } from '../../slack/slack-errors.ts';
import type { AuditPost, Store } from '../../store/store.ts';
import { auditPost } from './audit-view.ts';

// The audit channel's posts, kept in the store with their records (appendAudit) and removed
// only once Slack took them: tried at once, then by every replica's minute sweep when due, each
// attempt by one replica (its claim). A channel the app cannot post in is given up, logged.

/**
 * How long a post's claim is held while it is tried: far longer than the audit client's timeout
 * (it neither retries nor waits out a 429), so no other replica posts it meanwhile.
 */
const POSTING_CLAIM_SECONDS = 5 * 60;
/** Once Slack took it, the claim outlives any sweep that listed the post before it was removed. */
const POSTED_CLAIM_SECONDS = 24 * 60 * 60;
/** The wait after the first refusal; it doubles with each refusal after it, up to the most. */
export const FIRST_RETRY_MS = 60_000;
export const LONGEST_RETRY_MS = 60 * 60_000;

/**
 * How long a post waits after its `attempts`-th refusal: doubling from FIRST_RETRY_MS up to
 * LONGEST_RETRY_MS, and never less than Slack's Retry-After (seconds) when it gave one. Pure.
 */
export function retryDelayMs(attempts: number, retryAfterSeconds?: number): number {
  const backoff = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_MS);
  return Math.max(backoff, (retryAfterSeconds ?? 0) * 1000);
}

/**
 * What became of one attempt: `posted`; `gone` (the app cannot post in the channel: given up);
 * `refused` (Slack refused this post: tried again later); `unavailable` (Slack took no post now:
 * a rate limit, an error status, no answer); `taken` (another attempt holds its claim).
 */
export type PostOutcome = 'posted' | 'gone' | 'refused' | 'unavailable' | 'taken';

export interface AuditPostsDeps {
  store: Pick<
    Store,
    'claim' | 'renewClaim' | 'release' | 'listAuditPosts' | 'updateAuditPost' | 'removeAuditPost'
  >;
  /**
   * A client that neither retries nor waits out a 429: a retry is the store's (so it is never
   * made twice, once by the client and once from the store), and a WebClient waiting on
   * Retry-After pauses every call it makes meanwhile.
   */
  client: Pick<WebClient, 'chat'>;
  now: () => number;
  metrics?: Pick<Metrics, 'auditPostFailure'> | undefined;
  /** The apps whose signature a post's _Revert_ carries; without them, a post has none. */
  apps?: Pick<Apps, 'byName'> | undefined;
}

/** A record's post in `channel`, with _Revert_ signed for its app when the app is configured. */
export function postOf(
  apps: Pick<Apps, 'byName'> | undefined,
  record: AuditPost['record'],
  channel: string,
) {
  const app = apps?.byName(record.app);
  return { channel, ...auditPost(record, app && valueWriter(app)) };
}

export function createAuditPosts(deps: AuditPostsDeps) {
  return {
    /**
     * The first attempt at a post just kept with its record: a failure is logged, never thrown
     * (the post is kept; the sweep tries it again), so the person is not kept waiting on it.
     */
    first: (post: AuditPost, log: Logger): Promise<void> => firstAttempt(deps, post, log),
    /**
     * Tries every post that is due, oldest due first; answers how many Slack took. Stops at the
     * first one Slack takes no post for (a rate limit, an outage): the rest would fare the same,
     * and wait for the next sweep.
     */
    retry: (log: Logger): Promise<number> => retryDue(deps, log),
  };
}

async function firstAttempt(deps: AuditPostsDeps, post: AuditPost, log: Logger): Promise<void> {
  try {
    await attempt(deps, post, log);
  } catch (error) {
    log.warn(
      { err: error, channel: post.channel, ref: post.record.ref },
      'audit post: the store did not answer; the sweep tries the post again',
    );
  }
}

async function retryDue(deps: AuditPostsDeps, log: Logger): Promise<number> {
  const due = await deps.store.listAuditPosts(deps.now() + 1);
  let posted = 0;
  for (const post of due) {
    const outcome = await attempt(deps, post, log);
    if (outcome === 'posted') posted += 1;
    if (outcome === 'unavailable') break;
  }
  return posted;
}

/** One attempt at `post`, by whoever takes its claim; nothing of it throws but the store. */
async function attempt(deps: AuditPostsDeps, post: AuditPost, log: Logger): Promise<PostOutcome> {
  const { ref } = post.record;
  const claim = `audit-post:${ref}`;
  if (!(await deps.store.claim(claim, POSTING_CLAIM_SECONDS))) return 'taken';
  try {
    await deps.client.chat.postMessage(postOf(deps.apps, post.record, post.channel));
  } catch (error) {
    deps.metrics?.auditPostFailure();
    return await failed(deps, { post, error, claim }, log);
  }
  // The claim is made long before the post goes: should the store fail in between, the post
  // stays kept but unclaimable for a day, then comes twice rather than never.
  await deps.store.renewClaim(claim, POSTED_CLAIM_SECONDS);
  await deps.store.removeAuditPost(ref);
  if (post.attempts > 0) {
    log.info({ channel: post.channel, ref, attempts: post.attempts }, 'audit post made');
  }
  return 'posted';
}

/** A refused attempt: given up when the app cannot post there, else kept to be tried later. */
async function failed(
  deps: AuditPostsDeps,
  refused: { post: AuditPost; error: unknown; claim: string },
  log: Logger,
): Promise<PostOutcome> {
  const { post, error, claim } = refused;
  const { ref } = post.record;
  const cause = slackErrorCode(error);
  const refusal = platformErrorCode(error);
  if (refusal !== undefined && NOT_THERE.has(refusal)) {
    // The claim stays (for its short life): nothing is left to post.
    await deps.store.removeAuditPost(ref);
    log.warn(
      { cause, channel: post.channel, ref },
      'audit post failed; the app cannot post in the audit channel, so this post is given up (the record is kept in the store and the log)',
    );
    return 'gone';
  }
  const attempts = post.attempts + 1;
  const delay = retryDelayMs(attempts, retryAfterOf(error));
  try {
    await deps.store.updateAuditPost({ ...post, attempts, dueAt: deps.now() + delay });
  } finally {
    await deps.store.release(claim);
  }
  log.warn(
    { cause, channel: post.channel, ref, attempts, retryInSeconds: Math.round(delay / 1000) },
    'audit post failed; kept in the store and tried again later',
  );
  return refusal === undefined ? 'unavailable' : 'refused';
}

/** Slack's Retry-After (seconds) on a rate-limited call the client rejected. */
function retryAfterOf(error: unknown): number | undefined {
  const code = errorField(error, 'code');
  const retryAfter = errorField(error, 'retryAfter');
  return code === ErrorCode.RateLimitedError && typeof retryAfter === 'number'
    ? retryAfter
    : undefined;
}
