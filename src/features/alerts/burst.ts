// A channel that many alerts reach at once gets a few posts, then one message that counts the
// rest and is updated in place: a run of unanswered calls during an outage is one line that
// grows, not a flood that buries the channel (and Slack's one-post-a-second per channel).
// Kept per replica: with several, each keeps its own count message for the alerts it posts.
//
// An alert counted is done only once Slack accepted a count message that includes it: each
// `add` waits for that, and fails when the post or update that was to include it failed, so the
// alert stays stored and is tried again; the count then goes back to what Slack shows.

/** Posts a channel gets one by one in a window; after these, the count message. */
export const POSTS_PER_WINDOW = 3;
export const WINDOW_MS = 60_000;
/** The count message is updated at most this often (chat.update has its own rate limit). */
export const UPDATE_EVERY_MS = 2_000;

/** One window's count message: alerts are added to it, each done once Slack shows it counted. */
export interface CountMessage {
  /** Counts one more alert; resolves once Slack accepted a message that counts it. */
  add(): Promise<void>;
}

/** What a count message needs: a way to post or update it, and a timer (tests inject one). */
export interface CountMessageDeps {
  /**
   * Posts the message saying `count` (when `ts` is undefined) or updates the one at `ts`;
   * answers its ts. Rejects when Slack did not take it.
   */
  send: (count: number, ts: string | undefined) => Promise<string | undefined>;
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
      ts = (await deps.send(count, ts)) ?? ts;
      shown = Math.max(shown, count);
      const done = waiters.filter((w) => w.count <= shown);
      waiters = waiters.filter((w) => w.count > shown);
      for (const waiter of done) waiter.resolve();
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

interface Window {
  start: number;
  posted: number;
  count?: CountMessage | undefined;
}

export interface BurstGate {
  /** The step for one more alert in `channel` at `now`; `newCount` makes a window's message. */
  next(channel: string, now: number, newCount: () => CountMessage): BurstStep;
}

/** The windows of every channel (the oldest forgotten past `maxChannels`). Pure but for its map. */
export function createBurstGate(maxChannels = 1_000): BurstGate {
  const windows = new Map<string, Window>();
  return {
    next(channel, now, newCount) {
      let window = windows.get(channel);
      if (!window || now - window.start >= WINDOW_MS) {
        window = { start: now, posted: 0 };
        windows.delete(channel);
        windows.set(channel, window);
        if (windows.size > maxChannels) windows.delete(windows.keys().next().value ?? '');
      }
      if (window.posted < POSTS_PER_WINDOW) {
        window.posted += 1;
        return { kind: 'post' };
      }
      window.count ??= newCount();
      return { kind: 'count', message: window.count };
    },
  };
}
