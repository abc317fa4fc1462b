import { SocketModeClient } from '@slack/socket-mode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

let standIn: SlackStandIn;
const clients: SocketModeClient[] = [];

function socketModeClient(options: { clientPingTimeout?: number } = {}): SocketModeClient {
  const client = new SocketModeClient({
    appToken: standIn.appToken,
    logger: recordingLogger().logger,
    clientOptions: { slackApiUrl: standIn.apiUrl, retryConfig: { retries: 0 } },
    ...options,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  standIn = await startSlackStandIn();
});
afterEach(async () => {
  // Disconnect before the stand-in goes away, or the client would try to reconnect to nothing.
  await Promise.all(clients.splice(0).map((client) => client.disconnect()));
  standIn.reset();
});
afterAll(() => standIn.close());

describe('Socket Mode', () => {
  it('greets a SocketModeClient, delivers a slash command and resolves with its ack', async () => {
    const client = socketModeClient();
    const received: unknown[] = [];
    client.on('slash_commands', async ({ ack, body }) => {
      received.push(body);
      await ack({ text: 'working on it' });
    });
    await client.start();
    await standIn.socketConnected();
    expect(standIn.calls).toMatchObject([
      { method: 'apps.connections.open', token: standIn.appToken },
    ]);

    const ack = await standIn.sendEnvelope('slash_commands', {
      command: '/cometchat',
      text: 'roles',
    });
    expect(received).toEqual([{ command: '/cometchat', text: 'roles' }]);
    expect(ack.envelope_id).toEqual(expect.any(String));
    expect(ack.payload).toEqual({ text: 'working on it' });
    expect(standIn.acks).toMatchObject([{ envelope_id: ack.envelope_id }]);
  });

  it('passes a view_submission response_action back in the ack payload', async () => {
    const client = socketModeClient();
    client.on('interactive', async ({ ack }) => {
      await ack({ response_action: 'errors', errors: { role: 'Pick a role' } });
    });
    await client.start();
    const ack = await standIn.sendEnvelope('interactive', { type: 'view_submission' });
    expect(ack.payload).toEqual({ response_action: 'errors', errors: { role: 'Pick a role' } });
  });

  it('rejects when nobody is connected or nobody acknowledges in time', async () => {
    await expect(standIn.sendEnvelope('slash_commands', {})).rejects.toThrow(
      'no Socket Mode client is connected',
    );
    await socketModeClient().start();
    await expect(standIn.sendEnvelope('slash_commands', {}, { timeoutMs: 100 })).rejects.toThrow(
      'was not acknowledged within 100 ms',
    );
  });

  it('makes the client reconnect with a fresh ticket on a disconnect message', async () => {
    const client = socketModeClient({ clientPingTimeout: 300 });
    await client.start();
    const before = standIn.calls.length;
    standIn.requestReconnect();
    await standIn.nextCall('apps.connections.open', before);
    await standIn.waitFor(() => (standIn.socketConnectionCount() === 1 ? true : undefined));
    client.on('slash_commands', ({ ack }) => ack());
    await expect(standIn.sendEnvelope('slash_commands', {})).resolves.toMatchObject({
      payload: {},
    });
  });

  it('refuses a connection without a valid ticket', async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${standIn.port}/socket-mode?ticket=forged`);
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode));
      socket.on('error', () => resolve(undefined));
    });
    expect(status).toBe(401);
  });
});
