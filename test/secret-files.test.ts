import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { isSecretSetting, readSecretFile, withSecretFiles } from '../src/secret-files.ts';

// Secrets mounted as files (Docker and Kubernetes secrets): `<NAME>_FILE` names the file.

const BOT_TOKEN = 'xoxb-1111-2222-FrOmAfIlE';
const API_KEY = 'cometchat-key-from-file-77';

const dir = mkdtempSync(join(tmpdir(), 'secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const BASE = {
  SLACK_SIGNING_SECRET: 'signing-5ec7e7-value',
  COMETCHAT_APP_ID: 'abc123',
  COMETCHAT_REGION: 'eu',
};

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('secrets from files', () => {
  it('reads a secret from its _FILE (a trailing newline is not part of it) and scrubs it like any other', () => {
    const config = loadConfig({
      ...BASE,
      SLACK_BOT_TOKEN_FILE: file('bot-token', `${BOT_TOKEN}\n`),
      COMETCHAT_API_KEY_FILE: file('api-key', API_KEY),
    });
    expect(config.slack.botToken).toBe(BOT_TOKEN);
    expect(config.cometchat.apps[0]?.apiKey).toBe(API_KEY);
    expect(config.secrets).toContain(BOT_TOKEN);
    expect(config.secrets).toContain(API_KEY);
  });

  it("reads each app's key and webhook password from files too", () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-2-direct',
      SLACK_SIGNING_SECRET: 'signing-5ec7e7-value',
      COMETCHAT_APPS: 'prod',
      COMETCHAT_PROD_APP_ID: 'abc123',
      COMETCHAT_PROD_REGION: 'us',
      COMETCHAT_PROD_API_KEY_FILE: file('prod-key', API_KEY),
      COMETCHAT_PROD_WEBHOOK_USER: 'cometchat-hooks',
      // Written with `echo`: the line break is not part of the password.
      COMETCHAT_PROD_WEBHOOK_PASSWORD_FILE: file('hook', 'a-webhook-password-of-length\n'),
    });
    expect(config.cometchat.apps[0]?.apiKey).toBe(API_KEY);
    expect(config.cometchat.apps[0]?.webhook?.password).toBe('a-webhook-password-of-length');
  });

  it('refuses a setting given both ways, naming the setting and never the value', () => {
    const problems = problemsOf({
      ...BASE,
      COMETCHAT_API_KEY: API_KEY,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_BOT_TOKEN_FILE: file('both', BOT_TOKEN),
    });
    expect(problems).toEqual(['SLACK_BOT_TOKEN and SLACK_BOT_TOKEN_FILE are both set: keep one']);
  });

  it('says which file cannot be read or is empty, without repeating what was set', () => {
    const problems = problemsOf({
      ...BASE,
      // A token pasted where its path belongs must not be echoed.
      SLACK_BOT_TOKEN_FILE: BOT_TOKEN,
      COMETCHAT_API_KEY_FILE: file('empty', '\n'),
    });
    expect(problems).toContain(
      'SLACK_BOT_TOKEN_FILE names a file that cannot be read (ENOENT): it must be the path of a file holding the value',
    );
    expect(problems).toContain('COMETCHAT_API_KEY_FILE names an empty file');
    expect(problems.join('\n')).not.toContain(BOT_TOKEN);
  });

  it('leaves _FILE variables of other settings, and blank ones, alone', () => {
    const read = () => {
      throw new Error('not asked');
    };
    const env = { PORT_FILE: '/etc/passwd', SLACK_BOT_TOKEN_FILE: ' ', HOME_FILE: '/x' };
    expect(withSecretFiles(env, read)).toEqual({ env, problems: [] });
    expect(isSecretSetting('STORE_URL')).toBe(true);
    expect(isSecretSetting('COMETCHAT_STAGING_EU_API_KEY')).toBe(true);
    expect(isSecretSetting('COMETCHAT_WEBHOOK_USER')).toBe(false);
    expect(isSecretSetting('PORT')).toBe(false);
  });

  it('refuses a file larger than any secret', () => {
    const big = file('big', 'x'.repeat(70_000));
    expect(() => readSecretFile(big)).toThrow(expect.objectContaining({ code: 'EFBIG' }));
  });
});

describe("a trace collector's headers", () => {
  it('are read as OpenTelemetry writes them, from a file too, and scrubbed as secrets', () => {
    const config = loadConfig({
      ...BASE,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      COMETCHAT_API_KEY: API_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example.com/',
      OTEL_EXPORTER_OTLP_HEADERS_FILE: file('otlp', 'authorization=Bearer%20k-123, x-team = ops\n'),
    });
    expect(config.tracesEndpoint).toBe('https://collector.example.com/v1/traces');
    expect(config.tracesHeaders).toEqual({ authorization: 'Bearer k-123', 'x-team': 'ops' });
    expect(config.secrets).toContain('Bearer k-123');
  });

  it('refuses a list that is not key=value pairs, without repeating it', () => {
    const problems = problemsOf({
      ...BASE,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      COMETCHAT_API_KEY: API_KEY,
      OTEL_EXPORTER_OTLP_HEADERS: 'Bearer k-123',
    });
    expect(problems).toEqual([
      'OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs, comma-separated',
    ]);
  });
});
