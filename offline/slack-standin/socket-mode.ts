import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { IdSource } from './ids.ts';
import { isRecord } from './is-record.ts';
import { waitFor } from './wait-for.ts';
import { STAND_IN_WORKSPACE } from './workspace.ts';

export const SOCKET_MODE_PATH = '/socket-mode';

/** Slack waits 3 seconds for an envelope's acknowledgement (platform-limits.md, "Time"). */
export const ACK_DEADLINE_MS = 3000;

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** What the client sent back for an envelope: `{ envelope_id, payload }` from `SocketModeClient`. */
export interface EnvelopeAck {
  envelope_id: string;
  payload?: unknown;
}

export interface RecordedAck extends EnvelopeAck {
  at: number;
}

/**
 * Why Slack sends `disconnect`: a connection about to be recycled (`warning`, then
 * `refresh_requested`), Socket Mode turned off (`link_disabled`), or more than the app's ten
 * connections (`too_many_websockets`).
 */
export type DisconnectReason =
  | 'warning'
  | 'refresh_requested'
  | 'link_disabled'
  | 'too_many_websockets';

export interface SocketModeHub {
  /** A Socket Mode address with a fresh single-use ticket, as `apps.connections.open` returns. */
  issueUrl(): string;
  /** Takes an HTTP upgrade for the Socket Mode path; answers false for any other path. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  sendEnvelope(type: EnvelopeType, payload: object, timeoutMs?: number): Promise<EnvelopeAck>;
  connected(timeoutMs?: number): Promise<void>;
  /** Sends Slack's `disconnect` message, which tells the client to reconnect. */
  requestReconnect(reason?: DisconnectReason): void;
  /** Terminates every connection without a closing handshake, as a network failure does. */
  dropConnections(): void;
  connectionCount(): number;
  readonly acks: RecordedAck[];
  reset(): void;
  close(): void;
}

interface PendingEnvelope {
  type: EnvelopeType;
  resolve: (ack: EnvelopeAck) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

function refuseUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function parseAck(data: unknown): EnvelopeAck | undefined {
  let message: unknown;
  try {
    message = JSON.parse(String(data));
  } catch {
    return undefined;
  }
  if (!isRecord(message) || typeof message.envelope_id !== 'string') return undefined;
  return 'payload' in message
    ? { envelope_id: message.envelope_id, payload: message.payload }
    : { envelope_id: message.envelope_id };
}

/** The Socket Mode side of the stand-in: hands out tickets, greets clients, sends envelopes. */
export function createSocketModeHub(options: {
  wsBaseUrl: () => string;
  ids: IdSource;
  now: () => number;
}): SocketModeHub {
  const server = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  // Only connections that were sent `hello` count: before it SocketModeClient is not ready.
  const greeted = new Set<WebSocket>();
  const pending = new Map<string, PendingEnvelope>();
  const acks: RecordedAck[] = [];

  const onConnection = (socket: WebSocket): void => {
    socket.on('message', (data) => {
      const ack = parseAck(data);
      if (ack === undefined) return;
      acks.push({ ...ack, at: options.now() });
      const waiting = pending.get(ack.envelope_id);
      if (waiting === undefined) return;
      pending.delete(ack.envelope_id);
      clearTimeout(waiting.timer);
      waiting.resolve(ack);
    });
    socket.on('close', () => greeted.delete(socket));
    greeted.add(socket);
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: greeted.size,
        debug_info: {
          host: 'applink-standin',
          build_number: 1,
          approximate_connection_time: 18060,
        },
        connection_info: { app_id: STAND_IN_WORKSPACE.appId },
      }),
    );
  };

  const openConnections = (): WebSocket[] =>
    [...greeted].filter((socket) => socket.readyState === socket.OPEN);
  // Slack spreads envelopes over an app's connections; the newest one is as good as any here.
  const newestConnection = (): WebSocket | undefined => openConnections().at(-1);

  const hub: SocketModeHub = {
    acks,
    issueUrl() {
      const ticket = options.ids.ticket();
      tickets.add(ticket);
      return `${options.wsBaseUrl()}${SOCKET_MODE_PATH}?ticket=${ticket}&app_id=${STAND_IN_WORKSPACE.appId}`;
    },
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      if (url.pathname !== SOCKET_MODE_PATH) return false;
      const ticket = url.searchParams.get('ticket') ?? '';
      // Like Slack's, a ticket from apps.connections.open opens one connection only.
      if (!tickets.delete(ticket)) {
        refuseUpgrade(socket, '401 Unauthorized');
        return true;
      }
      server.handleUpgrade(request, socket, head, onConnection);
      return true;
    },
    sendEnvelope(type, payload, timeoutMs = ACK_DEADLINE_MS) {
      const socket = newestConnection();
      if (socket === undefined) {
        return Promise.reject(new Error('sendEnvelope: no Socket Mode client is connected'));
      }
      const envelopeId = options.ids.envelopeId();
      const envelope =
        type === 'events_api'
          ? // Slack retries Events API deliveries and takes no response payload for them.
            {
              envelope_id: envelopeId,
              type,
              payload,
              accepts_response_payload: false,
              retry_attempt: 0,
              retry_reason: '',
            }
          : { envelope_id: envelopeId, type, payload, accepts_response_payload: true };
      return new Promise<EnvelopeAck>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(envelopeId);
          reject(
            new Error(
              `sendEnvelope: the ${type} envelope ${envelopeId} was not acknowledged within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        pending.set(envelopeId, { type, resolve, reject, timer });
        socket.send(JSON.stringify(envelope));
      });
    },
    connected(timeoutMs = 5000) {
      return waitFor(
        () => (newestConnection() !== undefined ? true : undefined),
        timeoutMs,
        'a Socket Mode connection',
      ).then(() => undefined);
    },
    requestReconnect(reason = 'refresh_requested') {
      const message = JSON.stringify({
        type: 'disconnect',
        reason,
        debug_info: { host: 'applink-standin' },
      });
      for (const socket of greeted) socket.send(message);
    },
    dropConnections() {
      for (const socket of greeted) socket.terminate();
    },
    connectionCount: () => openConnections().length,
    reset() {
      acks.length = 0;
    },
    close() {
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        waiting.reject(
          new Error(`sendEnvelope: the stand-in closed before envelope ${id} was acknowledged`),
        );
      }
      pending.clear();
      for (const socket of server.clients) socket.terminate();
      for (const socket of greeted) socket.terminate();
      greeted.clear();
      server.close();
    },
  };
  return hub;
}
