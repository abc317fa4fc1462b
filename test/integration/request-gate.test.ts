import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { initialStateValues } from '../../offline/slack-standin/view-state.ts';
import { openEditor, switchCategory } from '../../offline/stack/editor-steps.ts';
import { CATEGORIES } from '../../src/cometchat/catalogue.ts';
import { MAX_WEBHOOK_BYTES } from '../../src/features/alerts/webhook-intake.ts';
import { decodeState } from '../../src/features/permissions/editor-state.ts';
import {
  MAX_BODY_BYTES,
  MAX_CONNECTIONS,
  refusalOf,
  SERVER_OPTIONS,
} from '../../src/slack/request-gate.ts';
import { routesListener } from '../../src/start.ts';
import { signedJson } from './harness.ts';
import { useHarness } from './support.ts';

// What the listeners refuse before reading a body, and how long they keep a connection that
// sends nothing: the defences that need no signing secret to be tested. Slack's listener over
// HTTP, and the routes' own, which in Socket Mode is the public one (CometChat's webhooks).

/** Sends raw bytes and resolves with whatever comes back before the socket closes. */
function rawExchange(port: number, head: string, body = ''): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = '';
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(head + body));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.on('error', reject);
  });
}

const headOf = (lines: string[]) =>
  `${['POST /slack/events HTTP/1.1', 'host: app', ...lines].join('\r\n')}\r\n\r\n`;
const nowSeconds = () => String(Math.floor(Date.now() / 1000));

describe('refusalOf', () => {
  const signed = { 'x-slack-signature': 'v0=ab', 'x-slack-request-timestamp': '1000' };
  it('lets a signed, current, small request through to Bolt', () => {
    expect(refusalOf({ ...signed, 'content-length': '2000' }, 1000)).toBeUndefined();
    expect(refusalOf(signed, 1000 + 299)).toBeUndefined();
  });
  it('refuses what the headers already condemn', () => {
    const big = String(MAX_BODY_BYTES + 1);
    expect(refusalOf({ ...signed, 'content-length': big }, 1000)?.status).toBe(413);
    expect(refusalOf({ 'x-slack-request-timestamp': '1000' }, 1000)?.reason).toBe('no signature');
    expect(refusalOf({ 'x-slack-signature': 'v0=ab' }, 1000)?.reason).toBe('no timestamp');
    expect(refusalOf({ ...signed, 'x-slack-request-timestamp': 'soon' }, 1000)?.status).toBe(401);
    expect(refusalOf(signed, 1000 + 301)?.reason).toBe('stale timestamp');
    expect(refusalOf(signed, 1000 - 301)?.reason).toBe('dated in the future');
  });
});

describe('the HTTP listener', () => {
  const h = useHarness();

  it('answers an unsigned post announcing 3.9 MB with 413 before the body is sent', async () => {
    const { text } = await rawExchange(
      h.app.port,
      headOf(['content-type: application/x-www-form-urlencoded', 'content-length: 4089446']),
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(h.sandbox.requests).toEqual([]);
  });

  it('answers a post without a timestamp with 401 before the body is sent', async () => {
    const { text } = await rawExchange(
      h.app.port,
      headOf(['x-slack-signature: v0=00', 'content-length: 100000']),
    );
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('refuses a chunked body past the limit, signed or not', async () => {
    const chunk = 'a'.repeat(64 * 1024);
    const chunks = Array.from({ length: 5 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const { text } = await rawExchange(
      h.app.port,
      headOf([
        'x-slack-signature: v0=00',
        `x-slack-request-timestamp: ${nowSeconds()}`,
        'transfer-encoding: chunked',
      ]),
      `${chunks.join('')}0\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('answers any other method at the endpoint, signed or not, and keeps no connection', async () => {
    for (const method of ['PUT', 'GET']) {
      const { text, ms } = await rawExchange(
        h.app.port,
        `${method} /slack/events HTTP/1.1\r\nhost: app\r\nx-slack-signature: v0=00\r\nx-slack-request-timestamp: ${nowSeconds()}\r\ncontent-length: 2\r\nconnection: close\r\n\r\n`,
        'ab',
      );
      expect(text).toMatch(/^HTTP\/1\.1 [45]\d\d /);
      expect(ms).toBeLessThan(3_000);
    }
  });

  it("answers Slack's unsigned certificate check, and refuses any other unsigned form", async () => {
    const check = 'ssl_check=1&token=abc';
    const form = `content-type: application/x-www-form-urlencoded`;
    const ok = await rawExchange(
      h.app.port,
      headOf([form, `content-length: ${check.length}`, 'connection: close']),
      check,
    );
    expect(ok.text).toMatch(/^HTTP\/1\.1 200 /);
    const other = 'command=%2Fcometchat&text=roles';
    const refused = await rawExchange(
      h.app.port,
      headOf([form, `content-length: ${other.length}`, 'connection: close']),
      other,
    );
    expect(refused.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(h.sandbox.requests).toEqual([]);
  });

  it('gates a request whose target is an absolute URL, as Bolt routes it', async () => {
    const { text } = await rawExchange(
      h.app.port,
      `POST http://app/slack/events HTTP/1.1\r\nhost: app\r\ncontent-length: 4089446\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('closes a connection whose headers never end, within seconds', async () => {
    const { text, ms } = await rawExchange(h.app.port, 'POST /slack/events HTTP/1.1\r\nhost: a');
    // headersTimeout (5 s), checked every second; Node answers 408 as it closes.
    expect(text === '' || text.startsWith('HTTP/1.1 408')).toBe(true);
    expect(ms).toBeLessThan(8_000);
  }, 15_000);

  it("fits the permission editor's largest view submission within the limit, four times over", async () => {
    let view = await openEditor(h, 'default');
    const categories = new Set(CATEGORIES);
    const sizes: number[] = [];
    for (const category of categories) {
      if (decodeState(JSON.stringify(signedJson(view.private_metadata)))?.category !== category) {
        view = await switchCategory(h, view, category);
      }
      const payload = h.driver.viewSubmission({ view, values: initialStateValues(view) });
      sizes.push(new URLSearchParams({ payload: JSON.stringify(payload) }).toString().length);
    }
    expect(sizes).toHaveLength(categories.size);
    expect(Math.max(...sizes) * 4).toBeLessThan(MAX_BODY_BYTES);
  });
});

describe("the routes' own listener", () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });
  const ok = {
    path: '/healthz',
    method: ['GET'],
    handler: (_req: unknown, res: { end(): void }) => res.end(),
  };

  it("has the limits of Slack's, from the same definition", () => {
    server = routesListener([]);
    expect(server.maxConnections).toBe(MAX_CONNECTIONS);
    expect(server.headersTimeout).toBe(SERVER_OPTIONS.headersTimeout);
    expect(server.requestTimeout).toBe(SERVER_OPTIONS.requestTimeout);
    expect(server.keepAliveTimeout).toBe(SERVER_OPTIONS.keepAliveTimeout);
  });

  it('closes every connection past its cap at once, and serves those within it', async () => {
    const cap = 3;
    const listening = routesListener([ok], cap);
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const { port } = listening.address() as AddressInfo;
    const held = await Promise.all(
      Array.from({ length: cap }, () => {
        const socket = connect(port, '127.0.0.1');
        return new Promise<Socket>((resolve) => socket.once('connect', () => resolve(socket)));
      }),
    );
    // The server counts a connection once it has accepted it.
    while ((await new Promise<number>((r) => listening.getConnections((_e, n) => r(n)))) < cap) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const over = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nhost: a\r\n\r\n');
    expect(over.text).toBe('');
    expect(over.ms).toBeLessThan(1_000);
    // One of those within the cap is still served.
    const [first] = held as [Socket];
    const answer = new Promise<string>((resolve) => first.once('data', (d) => resolve(String(d))));
    first.write('GET /healthz HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n');
    expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of held) socket.destroy();
  });
});

describe("the Socket Mode listener (health, metrics and CometChat's webhooks)", () => {
  const user = 'cometchat';
  const password = 'a-webhook-password-of-some-length';
  const h = useHarness({
    mode: 'socket',
    env: {
      SLACK_SIGNING_SECRET: undefined,
      COMETCHAT_WEBHOOK_USER: user,
      COMETCHAT_WEBHOOK_PASSWORD: password,
    },
  });
  const auth = `authorization: Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const webhookHead = (lines: string[]) =>
    `${['POST /cometchat/webhooks/default HTTP/1.1', 'host: app', auth, 'content-type: application/json', ...lines].join('\r\n')}\r\n\r\n`;

  it('refuses a webhook body over its limit with 413, announced or streamed', async () => {
    expect(h.app.opsPort).toBe(h.app.port);
    const announced = await rawExchange(
      h.app.opsPort,
      webhookHead([`content-length: ${MAX_WEBHOOK_BYTES + 1}`]),
    );
    expect(announced.text).toMatch(/^HTTP\/1\.1 413 /);
    const chunk = 'a'.repeat(64 * 1024);
    const chunks = Array.from({ length: 17 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const streamed = await rawExchange(
      h.app.opsPort,
      webhookHead(['transfer-encoding: chunked']),
      `${chunks.join('')}0\r\n\r\n`,
    ).catch(() => ({ text: 'reset', ms: 0 }));
    expect(streamed.text).toMatch(/^HTTP\/1\.1 413 |^reset$/);
  });

  it('cuts a connection whose headers or body never end, and one kept alive idle', async () => {
    const [headers, body, idle] = await Promise.all([
      rawExchange(h.app.opsPort, 'POST /cometchat/webhooks/default HTTP/1.1\r\nhost: a'),
      rawExchange(h.app.opsPort, webhookHead(['content-length: 1000']), '{"trigger":'),
      rawExchange(h.app.opsPort, 'GET /healthz HTTP/1.1\r\nhost: a\r\n\r\n'),
    ]);
    // headersTimeout (5 s) and requestTimeout (10 s), checked every second: Node answers 408
    // as it closes; keepAliveTimeout (5 s) after a request served.
    expect(headers.text === '' || headers.text.startsWith('HTTP/1.1 408')).toBe(true);
    expect(headers.ms).toBeLessThan(8_000);
    expect(body.text === '' || body.text.startsWith('HTTP/1.1 408')).toBe(true);
    expect(body.ms).toBeLessThan(13_000);
    expect(idle.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(idle.ms).toBeLessThan(8_000);
  }, 20_000);
});
