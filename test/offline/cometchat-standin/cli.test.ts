import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_SANDBOX_KEY,
  parseSandboxEnv,
  runSandboxCli,
} from '../../../offline/cometchat-standin/cli.ts';
import {
  SANDBOX_SESSION_IDS,
  type Sandbox,
  SECOND_SANDBOX_SESSION_IDS,
} from '../../../offline/cometchat-standin/server.ts';

const started: Sandbox[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(started.splice(0).map((s) => s.close()));
});

describe('parseSandboxEnv', () => {
  it('uses the documented defaults for an empty environment', () => {
    expect(parseSandboxEnv({})).toEqual({
      options: {
        apiKey: DEFAULT_SANDBOX_KEY,
        apiPort: 4010,
        callPort: 4011,
        latencyMs: 0,
        seed: 'default',
      },
      defaultKey: true,
    });
  });

  it('counts empty strings as missing', () => {
    const config = parseSandboxEnv({
      COMETCHAT_API_KEY: '',
      SANDBOX_API_PORT: '',
      SANDBOX_LATENCY_MS: '',
      SANDBOX_SEED: '',
    });
    expect(config.defaultKey).toBe(true);
    expect(config.options.apiPort).toBe(4010);
    expect(config.options.seed).toBe('default');
  });

  it('reads every variable', () => {
    expect(
      parseSandboxEnv({
        COMETCHAT_API_KEY: 'k',
        SANDBOX_API_PORT: '5000',
        SANDBOX_CALL_PORT: '0',
        SANDBOX_LATENCY_MS: '250',
        SANDBOX_SEED: 'second',
      }),
    ).toEqual({
      options: { apiKey: 'k', apiPort: 5000, callPort: 0, latencyMs: 250, seed: 'second' },
      defaultKey: false,
    });
  });

  it('names every bad variable in one error', () => {
    expect(() =>
      parseSandboxEnv({
        SANDBOX_API_PORT: 'x',
        SANDBOX_CALL_PORT: '70000',
        SANDBOX_LATENCY_MS: '-1',
        SANDBOX_SEED: 'third',
      }),
    ).toThrow(
      /SANDBOX_API_PORT[\s\S]*SANDBOX_CALL_PORT[\s\S]*SANDBOX_LATENCY_MS[\s\S]*SANDBOX_SEED: must be one of default, second/,
    );
  });
});

describe('parseSandboxEnv: the webhook', () => {
  it('has none unless SANDBOX_WEBHOOK_URL is set', () => {
    expect(parseSandboxEnv({ SANDBOX_WEBHOOK_URL: '' }).webhook).toBeUndefined();
  });

  it('reads the URL, Basic authentication and the period', () => {
    expect(
      parseSandboxEnv({
        SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:3000/cometchat/webhooks/default',
        SANDBOX_WEBHOOK_USER: 'cometchat',
        SANDBOX_WEBHOOK_PASSWORD: 's3cret',
        SANDBOX_WEBHOOK_EVERY_SECONDS: '30',
      }).webhook,
    ).toEqual({
      config: {
        url: 'http://127.0.0.1:3000/cometchat/webhooks/default',
        username: 'cometchat',
        password: 's3cret',
      },
      everySeconds: 30,
    });
  });

  it('names every bad webhook variable, with the others', () => {
    expect(() =>
      parseSandboxEnv({
        SANDBOX_API_PORT: 'x',
        SANDBOX_WEBHOOK_USER: 'u',
        SANDBOX_WEBHOOK_EVERY_SECONDS: '0',
      }),
    ).toThrow(
      /SANDBOX_API_PORT[\s\S]*SANDBOX_WEBHOOK_EVERY_SECONDS[\s\S]*SANDBOX_WEBHOOK_PASSWORD: SANDBOX_WEBHOOK_USER and SANDBOX_WEBHOOK_PASSWORD go together[\s\S]*SANDBOX_WEBHOOK_USER: needs SANDBOX_WEBHOOK_URL/,
    );
    expect(() => parseSandboxEnv({ SANDBOX_WEBHOOK_URL: 'ftp://x/' })).toThrow(
      /SANDBOX_WEBHOOK_URL: must be an http or https URL/,
    );
  });
});

describe('runSandboxCli', () => {
  it('prints both addresses and the session ids, and the default key as such', async () => {
    const lines: string[] = [];
    const sandbox = await runSandboxCli({ SANDBOX_API_PORT: '0', SANDBOX_CALL_PORT: '0' }, (line) =>
      lines.push(line),
    );
    started.push(sandbox);
    const text = lines.join('\n');
    expect(text).toContain(sandbox.apiUrl);
    expect(text).toContain(sandbox.callUrl);
    expect(text).toContain(DEFAULT_SANDBOX_KEY);
    for (const id of Object.values(SANDBOX_SESSION_IDS)) expect(text).toContain(JSON.stringify(id));
    expect(text).toContain('seed: default (app id sandbox-app, region us');
    const response = await fetch(`${sandbox.apiUrl}/v3/roles`, {
      headers: { apikey: DEFAULT_SANDBOX_KEY },
    });
    expect(response.status).toBe(200);
  });

  it('starts the second seed with SANDBOX_SEED=second and prints its session ids only', async () => {
    const lines: string[] = [];
    const sandbox = await runSandboxCli(
      { SANDBOX_SEED: 'second', SANDBOX_API_PORT: '0', SANDBOX_CALL_PORT: '0' },
      (line) => lines.push(line),
    );
    started.push(sandbox);
    expect(sandbox.seed).toBe('second');
    const text = lines.join('\n');
    expect(text).toContain('seed: second (app id sandbox-app-2, region us');
    for (const id of Object.values(SECOND_SANDBOX_SESSION_IDS)) {
      expect(text).toContain(JSON.stringify(id));
    }
    expect(text).not.toContain(SANDBOX_SESSION_IDS.audioEnded);
  });

  it('never prints a key taken from the environment', async () => {
    const lines: string[] = [];
    const env = {
      COMETCHAT_API_KEY: 'real-looking-key-0c9d',
      SANDBOX_API_PORT: '0',
      SANDBOX_CALL_PORT: '0',
    };
    started.push(await runSandboxCli(env, (line) => lines.push(line)));
    expect(lines.join('\n')).not.toContain('real-looking-key-0c9d');
  });

  it('sends the end of a seeded call on schedule, printing each, never the password', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const arrivals: { authorization: string | undefined; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        arrivals.push({ authorization: req.headers.authorization, body });
        res.end('ok');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    try {
      const { port } = receiver.address() as AddressInfo;
      const lines: string[] = [];
      const sandbox = await runSandboxCli(
        {
          SANDBOX_API_PORT: '0',
          SANDBOX_CALL_PORT: '0',
          SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${port}/hooks`,
          SANDBOX_WEBHOOK_USER: 'cometchat',
          SANDBOX_WEBHOOK_PASSWORD: 'pw-7f3e',
          SANDBOX_WEBHOOK_EVERY_SECONDS: '10',
        },
        (line) => lines.push(line),
      );
      started.push(sandbox);
      expect(lines.join('\n')).toContain(
        `webhook: http://127.0.0.1:${port}/hooks (Basic authentication), the end of a seeded call every 10 s`,
      );

      vi.advanceTimersByTime(10_000);
      await vi.waitFor(() => expect(lines.at(-1)).toMatch(/answered 200$/));
      expect(lines.at(-1)).toBe(
        `webhook call_ended "${SANDBOX_SESSION_IDS.audioEnded}" (2 occupants, 1700000006 to 1700000756): answered 200`,
      );
      expect(arrivals).toHaveLength(1);
      expect(arrivals[0]?.authorization).toBe(
        `Basic ${Buffer.from('cometchat:pw-7f3e').toString('base64')}`,
      );
      expect(JSON.parse(arrivals[0]?.body ?? '')).toMatchObject({
        trigger: 'call_ended',
        data: { sessionId: SANDBOX_SESSION_IDS.audioEnded },
      });

      vi.advanceTimersByTime(10_000);
      await vi.waitFor(() => expect(arrivals).toHaveLength(2));
      // The unanswered call ends the ringing flow's way: its message, not its session.
      expect(JSON.parse(arrivals[1]?.body ?? '')).toMatchObject({
        trigger: 'call_unanswered',
        data: { call: { data: { action: 'unanswered' } } },
      });
      await vi.waitFor(() =>
        expect(lines.at(-1)).toBe(
          `webhook call_unanswered "${SANDBOX_SESSION_IDS.unanswered}": answered 200`,
        ),
      );
      expect(lines.join('\n')).not.toContain('pw-7f3e');
    } finally {
      receiver.close();
      receiver.closeAllConnections();
    }
  });
});
