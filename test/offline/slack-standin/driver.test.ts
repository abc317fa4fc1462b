import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, verifySlackRequest } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSlackDriver,
  type SlackDriver,
  signSlackRequest,
} from '../../../offline/slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

const signingSecret = 'standin-signing-secret';

const roleModal = {
  type: 'modal' as const,
  callback_id: 'edit_role',
  title: { type: 'plain_text' as const, text: 'Edit role' },
  submit: { type: 'plain_text' as const, text: 'Save' },
  blocks: [
    {
      type: 'input',
      block_id: 'role_block',
      label: { type: 'plain_text', text: 'Role' },
      element: { type: 'plain_text_input', action_id: 'role' },
    },
  ],
};

const healthz = {
  path: '/healthz',
  method: 'GET',
  handler: (_request: unknown, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  },
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('signSlackRequest', () => {
  it("matches the example in Slack's documentation", () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(signSlackRequest('8f742231b10e8888abcd99yyyzzz85a5', body, 1531420618)).toEqual({
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      'x-slack-request-timestamp': '1531420618',
    });
  });

  it("passes Bolt's own verification", () => {
    const headers = signSlackRequest(signingSecret, 'a=b');
    expect(() =>
      verifySlackRequest({
        signingSecret,
        body: 'a=b',
        headers: {
          'x-slack-signature': headers['x-slack-signature'],
          'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
        },
      }),
    ).not.toThrow();
  });
});

describe('driver against a Bolt app over HTTP', () => {
  let standIn: SlackStandIn;
  let app: App;
  let driver: SlackDriver;
  let appBase: string;
  const shortcuts: string[] = [];

  beforeAll(async () => {
    standIn = await startSlackStandIn();
    app = new App({
      signingSecret,
      token: standIn.botToken,
      clientOptions: { slackApiUrl: standIn.apiUrl },
      logger: recordingLogger().logger,
      customRoutes: [healthz],
    });
    app.command('/cometchat', async ({ ack, respond, command, client }) => {
      await ack();
      if (command.text === 'modal') {
        await client.views.open({ trigger_id: command.trigger_id, view: roleModal });
        return;
      }
      await respond(`hi ${command.text}`);
    });
    app.action('pick_role', async ({ ack, respond, action }) => {
      await ack();
      await respond({
        replace_original: true,
        text: `picked ${'value' in action ? action.value : ''}`,
      });
    });
    app.view('edit_role', async ({ ack, view }) => {
      const role = view.state.values.role_block?.role?.value;
      await ack({ response_action: 'errors', errors: { role_block: `unknown role ${role}` } });
    });
    app.shortcut('lookup_call', async ({ ack, shortcut }) => {
      await ack();
      shortcuts.push(shortcut.type);
    });
    // Port 0 lets the OS pick; HTTPReceiver.start resolves with the node:http server.
    const server = await app.start({ port: 0, host: '127.0.0.1' });
    appBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    driver = createSlackDriver({ appUrl: `${appBase}/slack/events`, signingSecret, standIn });
  });
  afterEach(() => {
    standIn.reset();
    shortcuts.length = 0;
  });
  afterAll(async () => {
    await app.stop();
    await standIn.close();
  });

  it('delivers a signed slash command; the reply reaches the response_url', async () => {
    const exchange = await driver.command('x');
    expect(exchange.status).toBe(200);
    const reply = await standIn.nextResponse();
    expect(reply.body).toEqual({ text: 'hi x' });
    expect(exchange.responseUrl).toBe(`${standIn.url}/response/${reply.id}`);
  });

  it('refuses a stale signature (6 minutes old) and nothing is answered', async () => {
    const body = new URLSearchParams({ ...driver.commandFields('stale') }).toString();
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 360;
    const exchange = await driver.raw(body, signSlackRequest(signingSecret, body, sixMinutesAgo));
    expect(exchange.status).toBe(401);
    const forged = await driver.raw(body, signSlackRequest('another-secret', body));
    expect(forged.status).toBe(401);
    // The 401 is the signal: the request was refused before any handler ran, so none can answer.
    expect(standIn.responses).toHaveLength(0);
  });

  it('opens a modal with the command trigger_id and submits it', async () => {
    await driver.command('modal');
    const opened = await standIn.nextCall('views.open');
    expect(opened.args.view).toMatchObject({ callback_id: 'edit_role' });
    const view = [...standIn.views.values()][0] ?? {};
    const exchange = await driver.interaction(
      driver.viewSubmission({
        view,
        values: { role_block: { role: { type: 'plain_text_input', value: 'wizard' } } },
      }),
    );
    expect(exchange.status).toBe(200);
    expect(JSON.parse(exchange.body)).toEqual({
      response_action: 'errors',
      errors: { role_block: 'unknown role wizard' },
    });
  });

  it('routes a block action from a message by action_id and a global shortcut by callback_id', async () => {
    const message = {
      ts: '1700000000.000100',
      text: 'Roles',
      blocks: [
        {
          type: 'actions',
          block_id: 'roles',
          elements: [
            {
              type: 'button',
              action_id: 'pick_role',
              text: { type: 'plain_text', text: 'Admin' },
              value: 'admin',
            },
          ],
        },
      ],
    };
    const action = driver.blockAction({ actionId: 'pick_role', message });
    expect(action).toMatchObject({
      type: 'block_actions',
      container: { type: 'message', message_ts: message.ts, is_ephemeral: false },
      actions: [{ action_id: 'pick_role', block_id: 'roles', value: 'admin', type: 'button' }],
    });
    expect((await driver.interaction(action)).status).toBe(200);
    expect((await standIn.nextResponse()).body).toEqual({
      replace_original: true,
      text: 'picked admin',
    });

    const shortcut = await driver.interaction(driver.globalShortcut({ callbackId: 'lookup_call' }));
    expect(shortcut.status).toBe(200);
    expect(shortcuts).toEqual(['shortcut']);
  });

  it('serves a custom route next to the events endpoint', async () => {
    const response = await fetch(`${appBase}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
  });
});

describe('a Bolt app in Socket Mode against the stand-in', () => {
  it('connects through apps.connections.open at slackApiUrl and answers a command', async () => {
    const standIn = await startSlackStandIn();
    const healthPort = await freePort();
    const app = new App({
      socketMode: true,
      appToken: standIn.appToken,
      token: standIn.botToken,
      // App hands these clientOptions to its SocketModeClient too (via installerOptions).
      clientOptions: { slackApiUrl: standIn.apiUrl },
      logger: recordingLogger().logger,
      // In Socket Mode custom routes get their own HTTP server on `port`.
      customRoutes: [healthz],
      port: healthPort,
    });
    app.command('/cometchat', async ({ ack, respond }) => {
      await ack();
      await respond('hi over Socket Mode');
    });
    try {
      await app.start();
      const driver = createSlackDriver({ appUrl: 'http://unused.invalid', signingSecret, standIn });
      const ack = await standIn.sendEnvelope('slash_commands', driver.commandFields('x'));
      expect(ack.payload).toEqual({});
      expect((await standIn.nextResponse()).body).toEqual({ text: 'hi over Socket Mode' });
      const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await app.stop();
      await standIn.close();
    }
  });
});
