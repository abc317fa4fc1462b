import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { App } from '@slack/bolt';
import type { Logger } from './log.ts';
import type { HttpRoute } from './observe/readiness.ts';
import type { Inflight } from './slack/inflight.ts';

// Stopping: not ready first while still serving, then no new requests, then those in flight
// given their grace, and only then what they use closed.

/** The switches a stop turns before it closes anything; the routes read them. */
export interface Draining {
  /** Whether a stop has begun: /readyz answers 503 from then on while the app still serves. */
  draining(): boolean;
  drain(): void;
  /** CometChat's webhooks answered 503 from now on (in Socket Mode their listener stays open). */
  refuseWebhooks(): void;
  /**
   * `route` as a stop sees it: answered 503 once refused (the sender retries elsewhere, and the
   * stop is not held up), each request it takes in flight until its answer is sent.
   */
  refusable(route: HttpRoute): HttpRoute;
}

export function createDraining(inflight: Pick<Inflight, 'begin'>): Draining {
  let draining = false;
  let refusing = false;
  return {
    draining: () => draining,
    drain() {
      draining = true;
    },
    refuseWebhooks() {
      refusing = true;
    },
    refusable: (route) => ({
      ...route,
      handler: (req, res) => {
        if (refusing) {
          res.writeHead(503, { connection: 'close' }).end();
          return;
        }
        res.once('close', inflight.begin());
        route.handler(req, res);
      },
    }),
  };
}

/**
 * Bolt calls the error handler after the middleware (and the in-flight tally) is done: its reply
 * to the person is counted in flight too, so that a stop does not cut it.
 */
export function heldInFlight<T>(
  inflight: Pick<Inflight, 'begin'>,
  handler: (failed: T) => Promise<void>,
): (failed: T) => Promise<void> {
  return async (failed) => {
    const end = inflight.begin();
    try {
      await handler(failed);
    } finally {
      end();
    }
  };
}

/** What a stop takes down, in order. */
export interface StopParts {
  app: App;
  logger: Logger;
  graceMs: number;
  draining: Pick<Draining, 'drain' | 'refuseWebhooks'>;
  socket: { stop(): void } | undefined;
  /** Bolt's HTTP listener (HTTP mode). */
  slackServer: Server | undefined;
  /** The health routes' own listener (Socket Mode, or METRICS_PORT). */
  opsServer: Server | undefined;
  inflight: Inflight;
  /** The periodic work, the traces and the store, once nothing is in flight. */
  finally: () => Promise<void>;
}

/**
 * The app's stop: turns /readyz to 503 and keeps serving for `delayMs` (SHUTDOWN_DELAY_MS on
 * SIGTERM), so that load balancers take the replica out first; then stops taking requests, lets
 * those in flight finish within the grace, and closes the rest. A second stop (a second signal,
 * a test's clean-up) waits for the first.
 */
export function stopInOrder(parts: StopParts): (delayMs?: number) => Promise<void> {
  let stopped: Promise<void> | undefined;
  return (delayMs = 0) => {
    stopped ??= stop(parts, delayMs);
    return stopped;
  };
}

async function stop(parts: StopParts, delayMs: number): Promise<void> {
  const { app, logger, socket, slackServer, opsServer, inflight } = parts;
  // Not ready first, still serving: a load balancer's probes take the replica out of rotation
  // (Slack does not retry a command that finds the listener closed), and what it sends
  // meanwhile is answered.
  parts.draining.drain();
  if (delayMs > 0) {
    logger.info({ delayMs }, 'not ready; serving on until the stop');
    await sleep(delayMs);
  }
  // No new requests: over HTTP the listener stops accepting connections (the load balancer
  // sends them to another replica); in Socket Mode the connection closes, and Slack sends new
  // payloads over the app's other connections; CometChat is answered 503 and retries. Work
  // already here goes on meanwhile.
  parts.draining.refuseWebhooks();
  socket?.stop();
  if (slackServer) {
    slackServer.close();
    slackServer.closeIdleConnections();
  } else {
    await app.stop();
  }
  if (!(await inflight.idle(parts.graceMs))) {
    logger.warn(
      { inflight: inflight.count(), graceMs: parts.graceMs },
      'stopping with requests still in flight',
    );
  }
  if (slackServer) {
    slackServer.closeAllConnections();
    await app.stop().catch(() => {});
  }
  if (opsServer) {
    opsServer.close();
    opsServer.closeAllConnections();
  }
  await parts.finally();
}
