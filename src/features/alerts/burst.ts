import { randomUUID } from 'node:crypto';
import type { BurstWindow, Store } from '../../store/store.ts';

// A channel that many alerts reach at once gets a few posts, then one message that counts the
// rest and is updated in place: a run of unanswered calls during an outage is one line that
// grows, not a flood that buries the channel (and Slack's one-post-a-second per channel).
// Counted in the store, so that several replicas post what one would: the window's alerts are
// counted there, one replica posts the count message (whoever claims it), and each updates that
// one message with the window's whole count, at most one update every UPDATE_EVERY_MS among
// them all (a claim in the store), so that N replicas do not update it N times as often.
//
// An alert counted is done only once Slack accepted a count message that includes it: each
// `add` waits for that, and fails when the post or update that was to include it failed, so the
// alert stays stored and is tried again; the count then goes back to what Slack shows.

/** Posts a channel gets one by one in a window; after these, the count message. */
export const POSTS_PER_WINDOW = 3;
export const WINDOW_MS = 60_000;
/** The count message is updated at most this often (chat.update has its own rate limit). */
export const UPDATE_EVERY_MS = 2_000;
/** What a send answers when another replica updated the message just now: try again later. */
export const UPDATE_LATER = Symbol('update later');

/** One window's count message: alerts are added to it, each done once Slack shows it counted. */
export interface CountMessage {
  /** Counts one more alert; resolves once Slack accepted a message that counts it. */
  add(): Promise<void>;
}

/** Posts a count message (no ts) or updates the one at ts, in Slack; answers its ts. */
export type SlackCountSend = (count: number, ts: string | undefined) => Promise<string | undefined>;

/** What a count message needs: a way to post or update it, and a timer (tests inject one). */
export interface CountMessageDeps {
  /**
   * Posts the message saying `count` (when `ts` is undefined) or updates the one at `ts`;
   * answers its ts, or UPDATE_LATER when the update is to wait. Rejects when Slack did not
   * take it.
   */
  send: (
    count: number,
    ts: string | undefined,
  ) => Promise<string | undefined | typeof UPDATE_LATER>;
  schedule?: (run: () => void, ms: number) => void;
  everyMs?: number;
}

interface Waiter {
  count: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A count message: posted at once for its first alert, then updated at most once per
 * `everyMs` with the latest count. Pure but for the timer and `send`.
 */
export function createCountMessage(deps: CountMessageDeps): CountMessage {
  const schedule = deps.schedule ?? ((run, ms) => setTimeout(run, ms).unref());
  const everyMs = deps.everyMs ?? UPDATE_EVERY_MS;
  let ts: string | undefined;
  /** What Slack shows; `counted` is what it is to show. */
  let shown = 0;
  let counted = 0;
  let waiters: Waiter[] = [];
  let busy = false;

  async function flush() {
    busy = true;
    const count = counted;
    try {
      const sent = await deps.send(count, ts);
      // Nothing was sent: the alerts waiting go with the next update.
      if (sent !== UPDATE_LATER) {
        ts = sent ?? ts;
        shown = Math.max(shown, count);
        const done = waiters.filter((w) => w.count <= shown);
        waiters = waiters.filter((w) => w.count > shown);
        for (const waiter of done) waiter.resolve();
      }
    } catch (error) {
      // Nothing beyond what Slack shows is counted: the alerts waiting are tried again later.
      const failed = waiters;
      waiters = [];
      counted = shown;
      for (const waiter of failed) waiter.reject(error);
    } finally {
      busy = false;
    }
    if (waiters.length > 0) schedule(() => void flush(), everyMs);
  }

  return {
    add() {
      counted += 1;
      const promise = new Promise<void>((resolve, reject) => {
        waiters.push({ count: counted, resolve, reject });
      });
      // The first alert posts the message at once; later ones join the next update.
      if (!busy && waiters.length === 1) {
        if (ts === undefined) void flush();
        else schedule(() => void flush(), everyMs);
      }
      return promise;
    },
  };
}

/** What to do with one more alert for a channel. */
export type BurstStep = { kind: 'post' } | { kind: 'count'; message: CountMessage };

/** The store's part: the windows, and the claim on posting a window's count message. */
export type BurstStore = Pick<
  Store,
  'countBurstAlert' | 'getBurstWindow' | 'setBurstCountTs' | 'setBurstShown' | 'claim' | 'release'
>;

export interface BurstGate {
  /**
   * The step for one more alert in `channel` at `now`; `send` posts or updates the count message
   * (CountMessageDeps.send) when this replica makes the window's handle on it.
   */
  next(channel: string, now: number, send: SlackCountSend): Promise<BurstStep>;
}

export interface BurstGateOptions {
  /** This replica's id among those sharing the store. */
  replica?: string;
  /** Count messages kept, the oldest channel's forgotten past this. */
  maxChannels?: number;
  /** The count messages' timer, and the wait between looks for another replica's post. */
  schedule?: CountMessageDeps['schedule'];
  pause?: SharedCountDeps['pause'];
}

/**
 * Counts each alert in the store's window; keeps this replica's count message of each channel's
 * window (one forgotten and made again finds the message's ts in the store).
 */
export function createBurstGate(store: BurstStore, options: BurstGateOptions = {}): BurstGate {
  const replica = options.replica ?? randomUUID();
  const maxChannels = options.maxChannels ?? 1_000;
  const messages = new Map<string, { start: number; message: CountMessage }>();
  const newCount = (channel: string, start: number, send: SlackCountSend) =>
    createCountMessage({
      send: sharedCountSend({ store, channel, start, replica, send, pause: options.pause }),
      ...(options.schedule ? { schedule: options.schedule } : {}),
    });
  return {
    async next(channel, now, send) {
      const window = await store.countBurstAlert(channel, now, WINDOW_MS);
      if (window.alerts <= POSTS_PER_WINDOW) return { kind: 'post' };
      let kept = messages.get(channel);
      if (kept?.start !== window.start) {
        kept = { start: window.start, message: newCount(channel, window.start, send) };
        messages.delete(channel);
        messages.set(channel, kept);
        if (messages.size > maxChannels) messages.delete(messages.keys().next().value ?? '');
      }
      return { kind: 'count', message: kept.message };
    },
  };
}

/** How long a replica may hold the posting of a count message before another may post it. */
const POSTING_SECONDS = 30;
/** How often, and how many times, a replica looks for the count message another is posting. */
const LOOK_EVERY_MS = 250;
const LOOKS = 20;
/** Sends made again, at most, when other replicas' counts moved meanwhile. */
const RESENDS = 3;

export interface SharedCountDeps {
  store: BurstStore;
  channel: string;
  /** The window's start, which names it. */
  start: number;
  replica: string;
  /** Posts (no ts) or updates the message in Slack. */
  send: SlackCountSend;
  /** Waits between looks for the message another replica posts (tests pass one). */
  pause?: ((ms: number) => Promise<void>) | undefined;
}

/**
 * A count message's `send` shared by every replica: the message says this replica's count
 * (which createCountMessage keeps exact) plus what the others had Slack show, so an alert still
 * in flight on another replica is never shown early (and shown twice when its update fails).
 * The window's one message is posted by the replica that claims it, the others updating it once
 * its ts is in the store; a post Slack refused lets the claim go, so the next send posts it.
 */
export function sharedCountSend(deps: SharedCountDeps): CountMessageDeps['send'] {
  return async (count, ts) => {
    let others = othersShown(await currentWindow(deps), deps.replica);
    const known = ts ?? (await messageTs(deps));
    if (known !== undefined && !(await deps.store.claim(updateClaim(deps), UPDATE_SECONDS))) {
      return UPDATE_LATER;
    }
    const sent =
      known === undefined
        ? await postCount(deps, count + others)
        : await deps.send(count + others, known);
    await deps.store.setBurstShown(deps.channel, deps.start, deps.replica, count);
    // Another replica that sent meanwhile may have read our count before this: the one that
    // reads the other's after writing its own says the sum of both.
    for (let resend = 0; resend < RESENDS && sent !== undefined; resend += 1) {
      const now = othersShown(await currentWindow(deps), deps.replica);
      if (now === others) break;
      others = now;
      // This send's alerts are shown already: one that fails leaves the count a little behind.
      if (
        !(await deps.send(count + others, sent).then(
          () => true,
          () => false,
        ))
      )
        break;
    }
    return sent;
  };
}

function othersShown(window: BurstWindow | undefined, replica: string): number {
  let sum = 0;
  for (const [id, shown] of Object.entries(window?.shown ?? {})) if (id !== replica) sum += shown;
  return sum;
}

async function currentWindow(deps: SharedCountDeps) {
  const window = await deps.store.getBurstWindow(deps.channel);
  return window?.start === deps.start ? window : undefined;
}

/** The window's count message, or undefined when this replica is to post it (its claim taken). */
async function messageTs(deps: SharedCountDeps): Promise<string | undefined> {
  const ts = (await currentWindow(deps))?.countTs;
  if (ts !== undefined || (await deps.store.claim(postingClaim(deps), POSTING_SECONDS))) return ts;
  return postedElsewhere(deps);
}

function postingClaim(deps: SharedCountDeps): string {
  return `burst-count:${deps.channel}:${deps.start}`;
}

/** Held by whichever replica updates the window's message, for the wait between updates. */
const UPDATE_SECONDS = UPDATE_EVERY_MS / 1000;

function updateClaim(deps: SharedCountDeps): string {
  return `burst-update:${deps.channel}:${deps.start}`;
}

/** Posts the window's count message, its claim held, and keeps its ts for the others. */
async function postCount(deps: SharedCountDeps, count: number) {
  try {
    const ts = await deps.send(count, undefined);
    if (ts !== undefined) await deps.store.setBurstCountTs(deps.channel, deps.start, ts);
    return ts;
  } catch (error) {
    await deps.store.release(postingClaim(deps)).catch(() => undefined);
    throw error;
  }
}

/** The ts of the count message another replica is posting, once it is in the store. */
async function postedElsewhere(deps: SharedCountDeps): Promise<string> {
  const pause =
    deps.pause ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  for (let look = 0; look < LOOKS; look += 1) {
    await pause(LOOK_EVERY_MS);
    const ts = (await currentWindow(deps))?.countTs;
    if (ts !== undefined) return ts;
  }
  throw new Error('the count message another replica was posting did not appear');
}
