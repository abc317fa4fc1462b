import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { LogLevel, WebClient } from '@slack/web-api';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FaultSpec,
  SANDBOX_SESSION_IDS,
  startSandbox,
} from '../../offline/cometchat-standin/server.ts';
import { createSlackDriver } from '../../offline/slack-standin/driver.ts';
import { startSlackStandIn } from '../../offline/slack-standin/server.ts';
import { confirm, promote } from '../../offline/stack/editor-steps.ts';
import { OFFLINE_OPERATOR } from '../../offline/stack/offline-stack.ts';
import { startSlackApp } from '../../src/app.ts';
import { createCometChatClient } from '../../src/cometchat/client.ts';
import { loadConfig } from '../../src/config.ts';
import { commandReply, type Harness, signedTestValue, startHarness, textOf } from './harness.ts';
import { driverAs, reviewFlip } from './support.ts';

// Recognisable fake credentials, run through every flow and every fault: none may appear in a
// log line, in anything sent to Slack, in what is sent to CometChat beside its header, or in
// an error object a client throws.

const FAKE = {
  apiKey: 'FAKE-API-KEY-cc-7f3a9e1d5b',
  botToken: 'xoxb-FAKE-BOT-TOKEN-2c8e4a6f0b',
  appToken: 'xapp-FAKE-APP-TOKEN-9d1f3b5c7e',
  signingSecret: 'FAKE-SIGNING-SECRET-4e6a8c0b2d',
  webhookPassword: 'FAKE-WEBHOOK-PASSWORD-5b7d9f1a3c',
} as const;
/** The keys of two apps served together (`staging`, `prod`). */
const FAKE_APP_KEYS = {
  staging: 'FAKE-STAGING-KEY-cc-1a2b3c4d5e',
  prod: 'FAKE-PROD-KEY-cc-6f7a8b9c0d',
} as const;
const FAKE_VALUES = [...Object.values(FAKE), ...Object.values(FAKE_APP_KEYS)];
const FAST = { COMETCHAT_TIMEOUT_MS: '300', COMETCHAT_BUDGET_MS: '1200' };

/** Where a secret could surface, as text: each a label and what to search. */
function exposure(h: Harness): [string, string][] {
  return [
    ['log lines', h.logs.text()],
    // Every Web API call's arguments; the token itself travels in the Authorization header.
    ['Web API arguments', JSON.stringify(h.slack.calls.map((c) => [c.method, c.args]))],
    ['response_url posts', JSON.stringify(h.slack.responses)],
    ['refused response_url posts', JSON.stringify(h.slack.refusedResponses)],
    ['views', JSON.stringify([...h.slack.views.values()])],
    ['Socket Mode acknowledgements', JSON.stringify(h.slack.acks)],
    // The key belongs in the `apikey` header and nowhere else of a request.
    [
      'CometChat requests',
      JSON.stringify(
        Object.values(h.sandboxes).flatMap((sandbox) =>
          sandbox.requests.map(({ headers: { apikey: _key, ...headers }, ...rest }) => ({
            ...rest,
            headers,
          })),
        ),
      ),
    ],
  ];
}

/** The value, and its distinctive part without the well-known prefix. */
function forms(secret: string): string[] {
  return [secret, secret.replace(/^(xoxb|xapp)-/, '')];
}

function expectNoSecretIn(where: [string, string][]): void {
  for (const [label, text] of where) {
    for (const secret of FAKE_VALUES) {
      for (const form of forms(secret)) {
        expect(text.includes(form), `${form} in ${label}`).toBe(false);
      }
    }
  }
}

/** A rendering of an error as deep as anything might go: inspect, JSON, stack, cause chain. */
function everythingAbout(error: unknown): string {
  const parts = [inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })];
  try {
    parts.push(JSON.stringify(error));
  } catch {
    // Circular: inspect has it.
  }
  if (error instanceof Error) parts.push(String(error), error.stack ?? '');
  return parts.join('\n');
}

function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

/** One change through the editor, applied: resolves with the text of the outcome. */
async function changeOnce(h: Harness): Promise<string> {
  const { confirmation } = await reviewFlip(h);
  return textOf((await confirm(h, confirmation)).outcome);
}

/** Echoes of the key an upstream might send back. */
const ECHOES: FaultSpec[] = [
  {
    kind: 'status',
    status: 401,
    body: {
      error: {
        message: `The apikey ${FAKE.apiKey} is not valid.`,
        code: `AUTH_ERR_${FAKE.apiKey}`,
        details: { apikey: [FAKE.apiKey] },
      },
    },
  },
  {
    kind: 'status',
    status: 400,
    body: { error: { message: `Header apikey=${FAKE.apiKey} was rejected` } },
  },
  { kind: 'malformed', rawBody: `{"echo":"${FAKE.apiKey}"` },
  { kind: 'schema', body: { data: { apikey: FAKE.apiKey } } },
];

describe('secrets over HTTP: every flow and fault', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: {
        SLACK_BOT_TOKEN: FAKE.botToken,
        SLACK_SIGNING_SECRET: FAKE.signingSecret,
        COMETCHAT_API_KEY: FAKE.apiKey,
        COMETCHAT_WEBHOOK_USER: 'cometchat',
        COMETCHAT_WEBHOOK_PASSWORD: FAKE.webhookPassword,
        AUDIT_CHANNEL: 'C0AUDIT',
        ...FAST,
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('the fake values are the ones in use', () => {
    expect(h.config.secrets).toEqual(
      expect.arrayContaining([
        FAKE.apiKey,
        FAKE.botToken,
        FAKE.signingSecret,
        FAKE.webhookPassword,
      ]),
    );
    expect(h.slack.botToken).toBe(FAKE.botToken);
  });

  it('ordinary flows', async () => {
    const list = await commandReply(h, 'roles');
    const mark = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'share_roles',
        message: { ts: '1700000000.000100', blocks: list.blocks as unknown[] },
      }),
    );
    await h.slack.nextResponse(mark);
    await commandReply(h, `call ${SANDBOX_SESSION_IDS.groupOngoing} as cometchat-uid-1`);
    const calls = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'call_participants',
        value: signedTestValue(h, { sessionId: SANDBOX_SESSION_IDS.groupOngoing, page: 1 }),
      }),
    );
    await h.slack.nextCall('views.update', calls);
    const shortcut = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: 'lookup_call_message',
        message: { text: `see ${SANDBOX_SESSION_IDS.audioEnded}`, ts: '1.2' },
      }),
    );
    await h.slack.nextResponse(shortcut);
    expect(await changeOnce(h)).toContain('Resulting permissions');
    await commandReply(h, 'audit');
    await commandReply(h, 'help');
    await commandReply(h, 'no-such-subcommand');
    expectNoSecretIn(exposure(h));
  });

  it('CometChat faults, a failed update included', async () => {
    const faults: FaultSpec[] = [
      { kind: 'status', status: 401 },
      { kind: 'status', status: 500, times: Number.POSITIVE_INFINITY },
      { kind: 'status', status: 429, headers: { 'retry-after': '30' } },
      { kind: 'delay', delayMs: 5000, times: Number.POSITIVE_INFINITY },
      { kind: 'reset', times: Number.POSITIVE_INFINITY },
      { kind: 'malformed' },
      { kind: 'schema' },
      { kind: 'status', status: 400, body: { error: { message: 'no code here' } } },
    ];
    for (const fault of faults) {
      h.sandbox.clearFaults();
      h.sandbox.inject(fault);
      const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`);
      expect(textOf(reply)).toMatch(/Reference: `[0-9a-f]{10}`/);
    }
    h.sandbox.clearFaults();
    h.sandbox.inject({
      kind: 'status',
      status: 503,
      method: 'PUT',
      times: Number.POSITIVE_INFINITY,
    });
    expect(await changeOnce(h)).toContain('not answering the permission update');
    h.sandbox.clearFaults();
    expectNoSecretIn(exposure(h));
  });

  it('Slack faults: refused response_urls, modals, channels, access checks', async () => {
    h.slack.failResponseUrls(404);
    h.slack.fail('chat.postEphemeral', { error: 'not_in_channel' });
    await h.driver.command('roles');
    await h.slack.waitFor(() =>
      h.logs.records().find((r) => r.message === 'chat.postEphemeral failed; falling back to a DM'),
    );
    h.slack.fail('views.open', { error: 'expired_trigger_id' });
    await commandReply(h, 'perms default');
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    await changeOnce(h);
    h.slack.fail('chat.postMessage', { retryAfter: 1 });
    await changeOnce(h);
    // Someone the cache has not seen, while users.info fails: refused, closed.
    const stranger = driverAs(h, 'U0STRANGER');
    h.slack.fail('users.info', { error: 'invalid_auth' });
    const mark = h.slack.responses.length;
    await stranger.command('perms default');
    expect(textOf((await h.slack.nextResponse(mark)).body)).toContain('Only workspace admins');
    expectNoSecretIn(exposure(h));
  });

  it('a CometChat error that echoes a Slack secret or a webhook password: [redacted] in the reply', async () => {
    for (const secret of [FAKE.botToken, FAKE.signingSecret, FAKE.webhookPassword]) {
      for (const command of [`call ${SANDBOX_SESSION_IDS.audioEnded}`, 'roles']) {
        h.sandbox.clearFaults();
        h.sandbox.inject({
          kind: 'status',
          status: 400,
          body: { error: { code: 'ERR_BAD_REQUEST', message: `Not valid: ${secret}.` } },
        });
        const reply = textOf(await commandReply(h, command));
        expect(reply, command).toContain('Not valid: [redacted].');
      }
    }
    h.sandbox.clearFaults();
    expectNoSecretIn(exposure(h));
  });

  it('an upstream that echoes the key back: not shown, not logged', async () => {
    for (const echo of ECHOES) {
      h.sandbox.clearFaults();
      h.sandbox.inject(echo);
      const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`);
      expect(textOf(reply)).toMatch(/Reference: `[0-9a-f]{10}`/);
    }
    h.sandbox.clearFaults();
    expectNoSecretIn(exposure(h));
  });
});

describe('secrets with several apps: every app key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      apps: ['staging', 'prod'],
      env: {
        SLACK_BOT_TOKEN: FAKE.botToken,
        SLACK_SIGNING_SECRET: FAKE.signingSecret,
        COMETCHAT_STAGING_API_KEY: FAKE_APP_KEYS.staging,
        COMETCHAT_PROD_API_KEY: FAKE_APP_KEYS.prod,
        AUDIT_CHANNEL: 'C0AUDIT',
        ...FAST,
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('the fake keys are the ones in use, each by its own app', () => {
    expect(h.config.secrets).toEqual(expect.arrayContaining(Object.values(FAKE_APP_KEYS)));
    expect(h.config.cometchat.apps.map((a) => [a.name, a.apiKey])).toEqual(
      Object.entries(FAKE_APP_KEYS),
    );
  });

  it('commands for each app, the apps list with a refused key, a change and its promotion', async () => {
    await commandReply(h, 'staging roles');
    await commandReply(h, 'prod roles');
    // prod refuses its key and echoes it back.
    h.sandboxes.prod?.inject({
      kind: 'status',
      status: 401,
      body: { error: { message: `The apikey ${FAKE_APP_KEYS.prod} is not valid.` } },
    });
    expect(textOf(await commandReply(h, 'apps'))).toContain('CometChat refused the key');
    const { confirmation } = await reviewFlip(h, 'sendMessage', 'default', 'staging');
    const { outcome } = await confirm(h, confirmation);
    const review = await promote(h, outcome, 'prod');
    expect(textOf((await confirm(h, review)).outcome)).toContain('Resulting permissions');
    await commandReply(h, 'prod audit');
    // Every app's key reached its sandbox in the header, as it must.
    expect(h.sandboxes.prod?.requests.some((r) => r.headers.apikey === FAKE_APP_KEYS.prod)).toBe(
      true,
    );
    expectNoSecretIn(exposure(h));
  });
});

describe('secrets in Socket Mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      mode: 'socket',
      env: {
        SLACK_BOT_TOKEN: FAKE.botToken,
        SLACK_APP_TOKEN: FAKE.appToken,
        SLACK_SIGNING_SECRET: undefined,
        COMETCHAT_API_KEY: FAKE.apiKey,
        ...FAST,
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('commands, interactions and faults over the socket', async () => {
    expect(h.config.secrets).toEqual(expect.arrayContaining([FAKE.appToken, FAKE.botToken]));
    await h.slack.sendEnvelope('slash_commands', h.driver.commandFields('roles'));
    await h.slack.nextResponse(0);
    h.sandbox.inject({ kind: 'status', status: 500, times: Number.POSITIVE_INFINITY });
    await h.slack.sendEnvelope(
      'slash_commands',
      h.driver.commandFields(`call ${SANDBOX_SESSION_IDS.audioEnded}`),
    );
    await h.slack.nextResponse(1);
    h.sandbox.clearFaults();
    await h.slack.sendEnvelope(
      'interactive',
      h.driver.blockAction({ actionId: 'roles_page_next', value: signedTestValue(h, { page: 2 }) }),
    );
    await h.slack.nextResponse(2);
    await h.slack.sendEnvelope('slash_commands', h.driver.commandFields('help'));
    await h.slack.nextResponse(3);
    // The connection itself was opened with the app token, which must not show anywhere else.
    expect(h.slack.calls.some((c) => c.method === 'apps.connections.open')).toBe(true);
    expectNoSecretIn(exposure(h));
  });
});

describe('error objects from the HTTP clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { SLACK_BOT_TOKEN: FAKE.botToken, COMETCHAT_API_KEY: FAKE.apiKey, ...FAST },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('CometChat client errors hold no key, whatever the fault', async () => {
    const client = createCometChatClient({
      apiUrl: h.sandbox.apiUrl,
      callApiUrl: h.sandbox.callUrl,
      apiKey: FAKE.apiKey,
      timeoutMs: 300,
      budgetMs: 1200,
      logger: h.logger,
    });
    const faults: FaultSpec[] = [
      { kind: 'status', status: 401 },
      { kind: 'status', status: 503, body: null, times: Number.POSITIVE_INFINITY },
      { kind: 'delay', delayMs: 5000, times: Number.POSITIVE_INFINITY },
      { kind: 'reset', times: Number.POSITIVE_INFINITY },
      { kind: 'malformed' },
      { kind: 'schema' },
      ...ECHOES,
    ];
    const seen: string[] = [];
    for (const fault of faults) {
      h.sandbox.clearFaults();
      h.sandbox.inject(fault);
      seen.push(everythingAbout(await caught(client.getCall(SANDBOX_SESSION_IDS.audioEnded))));
    }
    h.sandbox.clearFaults();
    // And one that never reached a server.
    const nowhere = await closedPort();
    const refused = createCometChatClient({
      apiUrl: nowhere,
      callApiUrl: nowhere,
      apiKey: FAKE.apiKey,
      timeoutMs: 300,
      budgetMs: 600,
      logger: h.logger,
    });
    seen.push(everythingAbout(await caught(refused.listRoles())));
    expectNoSecretIn(seen.map((text, i) => [`error ${i}`, text]));
  });

  it('Slack Web API client errors hold no token', async () => {
    const slack = (rejectRateLimitedCalls: boolean, url = h.slack.apiUrl) =>
      new WebClient(FAKE.botToken, {
        slackApiUrl: url,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls,
        timeout: 2000,
        logLevel: LogLevel.ERROR,
      });
    const seen: string[] = [];
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    seen.push(
      everythingAbout(await caught(slack(false).chat.postMessage({ channel: 'C1', text: 'x' }))),
    );
    h.slack.fail('chat.postMessage', { status: 500 });
    seen.push(
      everythingAbout(await caught(slack(false).chat.postMessage({ channel: 'C1', text: 'x' }))),
    );
    h.slack.fail('chat.postMessage', { retryAfter: 30 });
    seen.push(
      everythingAbout(await caught(slack(true).chat.postMessage({ channel: 'C1', text: 'x' }))),
    );
    const nowhere = await closedPort();
    seen.push(
      everythingAbout(
        await caught(
          slack(false, `${nowhere}/api/`).chat.postMessage({ channel: 'C1', text: 'x' }),
        ),
      ),
    );
    expectNoSecretIn(seen.map((text, i) => [`error ${i}`, text]));
  });
});

/** An address nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * The same flows with a logger that does not scrub: the values must stay out of log lines by
 * design (redaction by field, errors that keep no request), not only thanks to the last-line
 * scrubber in log.ts.
 */
describe('secrets stay out of the logs even without the scrubber', () => {
  it('flows and faults, logged raw at trace level', async () => {
    const sandbox = await startSandbox({ apiKey: FAKE.apiKey });
    const slack = await startSlackStandIn({ botToken: FAKE.botToken });
    slack.setUsers([{ id: OFFLINE_OPERATOR, is_admin: true }]);
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const config = loadConfig({
      SLACK_BOT_TOKEN: FAKE.botToken,
      SLACK_SIGNING_SECRET: FAKE.signingSecret,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      COMETCHAT_API_KEY: FAKE.apiKey,
      COMETCHAT_API_URL: sandbox.apiUrl,
      COMETCHAT_CALL_API_URL: sandbox.callUrl,
      LOG_LEVEL: 'trace',
      STORE_URL: 'memory:',
      ...FAST,
    });
    const app = await startSlackApp({ config, logger: pino({ level: 'trace' }, destination) });
    try {
      const driver = createSlackDriver({
        appUrl: `http://127.0.0.1:${app.port}/slack/events`,
        signingSecret: FAKE.signingSecret,
        standIn: slack,
      });
      const answered = async (text: string) => {
        const mark = slack.responses.length + slack.refusedResponses.length;
        await driver.command(text);
        await slack.waitFor(() =>
          slack.responses.length + slack.refusedResponses.length > mark ? true : undefined,
        );
      };
      await answered('roles');
      for (const fault of [
        { kind: 'status', status: 401 },
        { kind: 'status', status: 500, times: Number.POSITIVE_INFINITY },
        { kind: 'reset', times: Number.POSITIVE_INFINITY },
        { kind: 'delay', delayMs: 5000, times: Number.POSITIVE_INFINITY },
        ...ECHOES,
      ] satisfies FaultSpec[]) {
        sandbox.clearFaults();
        sandbox.inject(fault);
        await answered(`call ${SANDBOX_SESSION_IDS.audioEnded}`);
      }
      sandbox.clearFaults();
      slack.fail('views.open', { error: 'expired_trigger_id' });
      await answered('perms default');
      slack.failResponseUrls(404);
      const mark = slack.calls.length;
      await driver.command('help');
      await slack.nextCall('chat.postEphemeral', mark);
    } finally {
      await app.stop();
      await Promise.all([slack.close(), sandbox.close()]);
    }
    expect(lines.length).toBeGreaterThan(20);
    expectNoSecretIn([['raw log lines', lines.join('')]]);
  });
});
