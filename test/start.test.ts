import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { unreachableSentence } from '../src/start.ts';
import { freePort } from './crash/child-app.ts';

// `npm start` as a user would run it, minus npm: a real process with nothing in its environment
// but PATH and HOME (so that nothing from the test runner's environment leaks in).

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REQUIRED = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'COMETCHAT_APP_ID',
  'COMETCHAT_REGION',
  'COMETCHAT_API_KEY',
];

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A config error exits at once; anything still running after this is a failure.
      timeout: 18_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe.concurrent('npm start', () => {
  it('exits non-zero with one message naming every missing variable', async () => {
    const exit = await start({});
    expect(exit.signal).toBeNull();
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    for (const name of REQUIRED) expect(exit.stderr).toContain(`${name} is missing`);
    expect(exit.stderr.match(/Configuration is invalid/g)).toHaveLength(1);
    // A plain message for a person, not a stack trace.
    expect(exit.stderr).not.toMatch(/\n\s+at /);
    expect(exit.stdout).toBe('');
  });

  it('never prints a secret when another variable is wrong', async () => {
    const secrets = {
      SLACK_BOT_TOKEN: 'xoxb-start-test-BOT-s3cr3t',
      SLACK_SIGNING_SECRET: 'start-test-SIGNING-s3cr3t',
      SLACK_APP_TOKEN: 'xapp-start-test-APP-s3cr3t',
      COMETCHAT_API_KEY: 'start-test-COMETCHAT-s3cr3t',
    };
    const exit = await start({
      ...secrets,
      COMETCHAT_APP_ID: '', // empty counts as missing
      COMETCHAT_REGION: 'mars',
      PORT: 'not-a-port',
    });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('COMETCHAT_REGION must be one of');
    expect(exit.stderr).toContain('PORT must be a whole number');
    expect(exit.stderr).toContain('COMETCHAT_APP_ID is missing');
    for (const value of Object.values(secrets)) {
      expect(exit.stderr).not.toContain(value);
      expect(exit.stdout).not.toContain(value);
    }
    // Not even a telling part of one.
    expect(`${exit.stdout}${exit.stderr}`).not.toContain('s3cr3t');
  });

  it('names Slack, the address it tried and SLACK_API_URL when Slack cannot be reached', async () => {
    // A port nothing listens on: the connection is refused, as with no way out to Slack.
    const api = `http://127.0.0.1:${await freePort()}/api`;
    const exit = await start({
      SLACK_BOT_TOKEN: 'xoxb-start-test-unreachable',
      SLACK_SIGNING_SECRET: 'start-test-signing',
      COMETCHAT_APP_ID: 'start-test',
      COMETCHAT_REGION: 'us',
      COMETCHAT_API_KEY: 'start-test-key',
      SLACK_API_URL: api,
      STORE_URL: 'memory:',
      LOG_LEVEL: 'silent',
    });
    expect(exit.code).toBe(1);
    expect(exit.stderr).toBe(
      `The app could not start: Could not reach Slack at ${api}/ (auth.test: ECONNREFUSED); check SLACK_API_URL.\n`,
    );
  });
});

describe('unreachableSentence', () => {
  it("points at the way out to Slack when the address is Slack's own", () => {
    expect(
      unreachableSentence({ url: 'https://slack.com/api/', fromSetting: false }, 'ENOTFOUND'),
    ).toBe(
      "Could not reach Slack at https://slack.com/api/ (auth.test: ENOTFOUND); check this machine's way out to Slack (a proxy or firewall), or set SLACK_API_URL.",
    );
  });

  it('says no connection when the error names no code', () => {
    expect(unreachableSentence({ url: 'http://x/api/', fromSetting: true }, undefined)).toBe(
      'Could not reach Slack at http://x/api/ (auth.test: no connection); check SLACK_API_URL.',
    );
  });
});
