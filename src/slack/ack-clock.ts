import { LRUCache } from 'lru-cache';

// How long Slack waited for each acknowledgement: from the request's arrival to the answer
// leaving (the HTTP response sent, or the Socket Mode envelope's reply handed to the socket), or
// to Slack giving up on it (the connection closed first).
// Slack gives up after three seconds, and a command then shows `dispatch_failed`: this is what
// an SRE watches. The receiver starts a clock per request and hands it to Bolt's context (as a
// custom property); the middleware that names requests for the metrics names the clock too.
// Requests Bolt answers without the app (a URL verification, a certificate check) or refuses
// are never named, and not counted. The clock is Slack's glue (the receiver starts it, and
// unanswered.ts asks it whether a request was answered); the wait it measures goes to the
// observer the composition root passes (the metrics).

export type AckObserver = (kind: string, name: string, seconds: number) => void;

/**
 * One request's clock: when it arrived, when its answer left, and what it is once the app has
 * read it. Either of the last two may come first (Bolt acknowledges an event before any
 * middleware runs); the wait is reported once both are known, and only then.
 */
export class AckClock {
  private named: { kind: string; name: string } | undefined;
  private ackedAt: number | undefined;
  private reported = false;
  constructor(
    readonly arrivedAt: number,
    private readonly observe: AckObserver,
    /** Whether the answer has begun to leave, known before it has (an HTTP response's head). */
    private readonly sending: () => boolean = () => false,
  ) {}
  /** Whether the request has been answered (or its connection is gone): nothing more to send. */
  answered(): boolean {
    return this.ackedAt !== undefined || this.sending();
  }
  name(kind: string, name: string): void {
    this.named ??= { kind, name };
    this.report();
  }
  acked(at: number): void {
    this.ackedAt ??= at;
    this.report();
  }
  private report(): void {
    if (this.reported || !this.named || this.ackedAt === undefined) return;
    this.reported = true;
    const seconds = Math.max(0, this.ackedAt - this.arrivedAt) / 1000;
    this.observe(this.named.kind, this.named.name, seconds);
  }
}

/** The key in Bolt's context (a receiver's custom property) under which the clock rides. */
const ACK_CLOCK = 'ackClock';

/** The request's clock, when its receiver started one. */
export function ackClockIn(context: Readonly<Record<string, unknown>>): AckClock | undefined {
  const clock = context[ACK_CLOCK];
  return clock instanceof AckClock ? clock : undefined;
}

type Now = () => number;

/** What the clocks need of an HTTP response: its end, sent or cut short, and its head. */
interface ResponseEvents {
  once(event: 'finish' | 'close', listener: () => void): unknown;
  readonly headersSent: boolean;
}

/** What the clocks need of a Socket Mode client: its event for each message it sends. */
interface OutgoingMessages {
  on(event: 'outgoing_message', listener: (message: { envelope_id?: unknown }) => void): unknown;
}

/**
 * HTTP: a clock per request to the Slack endpoint, stopped when its response has been sent, or
 * when the connection closed before (Slack, or a proxy in front, gave up at three seconds): a
 * miss is what the histogram is watched for, so it counts until then.
 */
export function httpAckClocks(observe: AckObserver, now: Now = () => performance.now()) {
  const clocks = new WeakMap<object, AckClock>();
  return {
    /** At arrival, before the body is read: the request, and its response's events. */
    start(req: object, res: ResponseEvents): void {
      const clock = new AckClock(now(), observe, () => res.headersSent);
      clocks.set(req, clock);
      res.once('finish', () => clock.acked(now()));
      res.once('close', () => clock.acked(now()));
    },
    /** The receiver's `customPropertiesExtractor`. */
    properties(req: object): Record<string, AckClock> {
      const clock = clocks.get(req);
      return clock ? { [ACK_CLOCK]: clock } : {};
    },
  };
}

/**
 * Socket Mode: a clock per envelope from its arrival to the reply sent for it. An envelope the
 * app never answers is forgotten after a minute (Slack has long given up on it by then).
 */
export function socketAckClocks(
  client: OutgoingMessages,
  observe: AckObserver,
  now: Now = () => performance.now(),
) {
  const clocks = new LRUCache<string, AckClock>({ max: 10_000, ttl: 60_000 });
  client.on('outgoing_message', (message) => {
    if (typeof message.envelope_id !== 'string') return;
    clocks.get(message.envelope_id)?.acked(now());
    clocks.delete(message.envelope_id);
  });
  return {
    /** The receiver's `customPropertiesExtractor`: called as the envelope arrives. */
    properties(args: { envelope_id?: unknown }): Record<string, AckClock> {
      if (typeof args.envelope_id !== 'string') return {};
      const clock = new AckClock(now(), observe);
      clocks.set(args.envelope_id, clock);
      return { [ACK_CLOCK]: clock };
    },
  };
}
