import {
  App,
  type AppOptions,
  type Logger as BoltLogger,
  type CustomRoute,
  HTTPReceiver,
  SocketModeReceiver,
} from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import { type AckObserver, httpAckClocks, socketAckClocks } from './ack-clock.ts';
import { gateRequests, MAX_BODY_BYTES } from './request-gate.ts';
import { guardSocket, type SocketGuard } from './socket-guard.ts';

/** Where Slack sends commands, interactions and events over HTTP. */
export const SLACK_ENDPOINT = '/slack/events';

export interface ReceiverSettings {
  socketMode: boolean;
  appToken?: string | undefined;
  signingSecret?: string | undefined;
  port: number;
  /** The health, readiness and metrics routes, when they share Slack's listener. */
  routes: CustomRoute[];
  /** The Web API client's options: the Socket Mode client opens its connection through them. */
  clientOptions: WebClientOptions;
  bolt: BoltLogger;
  logger: Logger;
  onReconnect: () => void;
  /** Told how long each request the app handled waited for its acknowledgement. */
  onAck: AckObserver;
}

/**
 * Slack's way in: Socket Mode, guarded against a connection that stops answering, or HTTP
 * behind the request gate (header checks and body limits before Bolt reads anything).
 */
export function createReceiver(settings: ReceiverSettings): {
  receiver: HTTPReceiver | SocketModeReceiver;
  socket: SocketGuard | undefined;
} {
  if (settings.socketMode) {
    // The receiver's client is made with it, and the clocks listen to that client: until both
    // exist, an envelope (there can be none before start) would get no clock.
    let clocks: ReturnType<typeof socketAckClocks> | undefined;
    const receiver = new SocketModeReceiver({
      appToken: settings.appToken ?? '',
      logger: settings.bolt,
      // apps.connections.open must reach the same Web API address as the app's own client.
      installerOptions: { clientOptions: settings.clientOptions },
      customPropertiesExtractor: (args) => clocks?.properties(args) ?? {},
    });
    clocks = socketAckClocks(receiver.client, settings.onAck);
    const socket = guardSocket(receiver.client, {
      log: settings.logger.child({ component: 'socket-mode' }),
      onReconnect: settings.onReconnect,
    });
    return { receiver, socket };
  }
  const clocks = httpAckClocks(settings.onAck);
  const receiver = new HTTPReceiver({
    signingSecret: settings.signingSecret ?? '',
    endpoints: SLACK_ENDPOINT,
    bodyLimit: MAX_BODY_BYTES,
    customRoutes: settings.routes,
    logger: settings.bolt,
    port: settings.port,
    customPropertiesExtractor: clocks.properties,
  });
  gateRequests(receiver, {
    endpoint: SLACK_ENDPOINT,
    logger: settings.logger.child({ component: 'http' }),
    arrived: clocks.start,
  });
  return { receiver, socket: undefined };
}

/** Bolt's app over the receiver, with the app's logger, level and Web API options. */
export function boltApp(
  token: string,
  receiver: NonNullable<AppOptions['receiver']>,
  // The level too: without it Bolt sets its clients' loggers to info, whatever LOG_LEVEL says.
  options: Required<Pick<AppOptions, 'logger' | 'logLevel' | 'clientOptions'>>,
): App {
  return new App({
    token,
    receiver,
    ...options,
    extendedErrorHandler: true,
    // Bolt's conversation store (context.conversation) is not used here; left on, it looked up
    // every request's channel in memory and built an Error for each miss.
    convoStore: false,
    // Bolt would otherwise call auth.test from the constructor, where a rejection (a wrong
    // token, Slack unreachable) is unhandled and leaves an app that refuses every request.
    // startSlackApp runs it through `app.init()` instead, so a bad token fails the start.
    deferInitialization: true,
  });
}
