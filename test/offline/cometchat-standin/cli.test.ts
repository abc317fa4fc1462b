import { afterEach, describe, expect, it } from 'vitest';
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
});
