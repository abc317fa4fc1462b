// A channel that many alerts reach at once gets a few posts, then one message that counts the
// rest and is updated in place: a run of unanswered calls during an outage is one line that
// grows, not a flood that buries the channel (and Slack's one-post-a-second per channel).
// Kept per replica: with several, each keeps its own count message for the alerts it posts.

/** Posts a channel gets one by one in a window; after these, the count message. */
export const POSTS_PER_WINDOW = 3;
export const WINDOW_MS = 60_000;
/** The count message is updated at most this often (chat.update has its own rate limit). */
export const UPDATE_EVERY_MS = 2_000;

/** What to do with one more alert for a channel. */
export type BurstStep =
  | { kind: 'post' }
  /** The first past the few: post the count message (it counts `count` so far). */
  | { kind: 'start-count'; count: number }
  /** The count message exists: it is to say `count` (updated now or soon). */
  | { kind: 'count'; count: number; ts: string | undefined };

interface Window {
  start: number;
  posted: number;
  counted: number;
  /** The count message, once posted. */
  ts?: string | undefined;
}

export interface BurstGate {
  /** The step for one more alert in `channel` at `now`. */
  next(channel: string, now: number): BurstStep;
  /** The count message of `channel`'s window was posted as `ts`. */
  started(channel: string, ts: string | undefined): void;
  /** The count message of `channel`'s current window, once posted. */
  countMessage(channel: string): string | undefined;
}

/** The windows of every channel (the oldest forgotten past `maxChannels`). Pure but for its map. */
export function createBurstGate(maxChannels = 1_000): BurstGate {
  const windows = new Map<string, Window>();
  return {
    next(channel, now) {
      let window = windows.get(channel);
      if (!window || now - window.start >= WINDOW_MS) {
        window = { start: now, posted: 0, counted: 0 };
        windows.delete(channel);
        windows.set(channel, window);
        if (windows.size > maxChannels) windows.delete(windows.keys().next().value ?? '');
      }
      if (window.posted < POSTS_PER_WINDOW) {
        window.posted += 1;
        return { kind: 'post' };
      }
      window.counted += 1;
      return window.counted === 1
        ? { kind: 'start-count', count: 1 }
        : { kind: 'count', count: window.counted, ts: window.ts };
    },
    started(channel, ts) {
      const window = windows.get(channel);
      if (window) window.ts = ts;
    },
    countMessage: (channel) => windows.get(channel)?.ts,
  };
}

/**
 * Updates of one message, at most one per `everyMs`: the latest text wins, and a text set while
 * one waits replaces it. `send` failures are the caller's to log.
 */
export function createThrottle(
  send: (text: string) => Promise<void>,
  everyMs = UPDATE_EVERY_MS,
  schedule: (run: () => void, ms: number) => void = (run, ms) => setTimeout(run, ms).unref(),
): (text: string) => void {
  let waiting: string | undefined;
  let timerSet = false;
  return (text) => {
    waiting = text;
    if (timerSet) return;
    timerSet = true;
    schedule(() => {
      timerSet = false;
      const latest = waiting;
      waiting = undefined;
      if (latest !== undefined) void send(latest);
    }, everyMs);
  };
}
