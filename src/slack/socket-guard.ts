import type { SocketModeClient } from '@slack/socket-mode';
import type { Logger } from 'pino';

// Keeps the Socket Mode connection honest about its state and alive through Slack outages.
//
// @slack/socket-mode 3.1.0 (the version in the lock file) has a known gap (slackapi/node-slack-sdk
// #2656, fixed in 3.2.0, which the registry here does not have): a reconnect is started with
// `delayReconnectAttempt(this.start)` and its promise is never observed. When that reconnect fails
// for good (apps.connections.open answers with an HTTP error or cannot be reached, or disconnect()
// races it), the rejection is unhandled (fatal under Node's default) and the client stops trying:
// the app stays up with no connection, for ever. The guard observes those reconnects, and tries
// again itself with a capped back-off, never while the client has a connection, a reconnect
// pending, or is shutting down (so that it cannot open a second socket).

/** The client's internals the guard reads to avoid a second socket (3.1.0's field names). */
interface ClientInternals {
  shuttingDown?: boolean;
  reconnectionTimer?: unknown;
  websocket?: { isActive(): boolean } | undefined;
}

export interface SocketGuard {
  /** The connection is open and Slack has said hello. */
  connected(): boolean;
  /** The first start went through: from now on a failed reconnect is retried, not thrown. */
  arm(): void;
  stop(): void;
}

/** Waits before the guard's own retry number `n` (1, 2, ...): 2 s doubling to 30 s. */
export const guardBackoffMs = (n: number): number => Math.min(30_000, 1_000 * 2 ** n);

export function guardSocket(
  client: SocketModeClient,
  options: {
    log: Logger;
    onReconnect?: () => void;
    backoffMs?: (n: number) => number;
  },
): SocketGuard {
  const { log } = options;
  const backoff = options.backoffMs ?? guardBackoffMs;
  let connected = false;
  let armed = false;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  client.on('connected', () => {
    connected = true;
    failures = 0;
  });
  for (const event of ['close', 'connecting', 'reconnecting', 'disconnecting', 'disconnected']) {
    client.on(event, () => {
      connected = false;
    });
  }
  client.on('reconnecting', () => options.onReconnect?.());

  const internals = client as unknown as ClientInternals;
  const busy = () =>
    internals.shuttingDown === true ||
    internals.reconnectionTimer !== undefined ||
    internals.websocket?.isActive() === true;

  const retryLater = () => {
    if (stopped || timer !== undefined) return;
    failures += 1;
    const waitMs = backoff(failures);
    log.warn({ retry: failures, waitMs }, 'Socket Mode: reconnect failed; trying again');
    timer = setTimeout(() => {
      timer = undefined;
      if (stopped || busy()) return;
      options.onReconnect?.();
      void client.start();
    }, waitMs);
    timer.unref();
  };

  const start = client.start.bind(client);
  // Both the client's own reconnects (`this.start`, read at call time) and the guard's come here.
  client.start = () => {
    if (!armed) return start();
    return start().catch((error: unknown) => {
      log.warn(
        { cause: error instanceof Error ? error.message : String(error) },
        'Socket Mode: reconnect did not open a connection',
      );
      retryLater();
      return undefined as never;
    });
  };

  return {
    connected: () => connected,
    arm() {
      armed = true;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
