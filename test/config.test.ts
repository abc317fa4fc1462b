import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const BOT_TOKEN = 'xoxb-1111-2222-SeCrEtBoT';
const SIGNING_SECRET = 'signing-5ec7e7-value';
const APP_TOKEN = 'xapp-1-A0-SeCrEtApP';
const API_KEY = 'cometchat-key-9d8c7b6a';

const VALID = {
  SLACK_BOT_TOKEN: BOT_TOKEN,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  COMETCHAT_APP_ID: 'abc123',
  COMETCHAT_REGION: 'eu',
  COMETCHAT_API_KEY: API_KEY,
};

const REQUIRED = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'COMETCHAT_APP_ID',
  'COMETCHAT_REGION',
  'COMETCHAT_API_KEY',
];

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('builds the config from a valid environment, with the defaults', () => {
    const config = loadConfig(VALID);
    expect(config).toMatchObject({
      slack: {
        botToken: BOT_TOKEN,
        signingSecret: SIGNING_SECRET,
        appToken: undefined,
        apiUrl: undefined,
        socketMode: false,
        port: 3000,
      },
      cometchat: {
        apiKey: API_KEY,
        apiUrl: 'https://abc123.api-eu.cometchat.io',
        callApiUrl: 'https://abc123.call-eu.cometchat.io',
        timeoutMs: 3000,
        budgetMs: 8000,
      },
      logLevel: 'info',
    });
    expect(config.secrets).toEqual([BOT_TOKEN, SIGNING_SECRET, API_KEY]);
  });

  it('freezes the result all the way down', () => {
    const config = loadConfig(VALID);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.slack)).toBe(true);
    expect(Object.isFrozen(config.cometchat)).toBe(true);
    expect(Object.isFrozen(config.secrets)).toBe(true);
    expect(() => {
      (config.cometchat as { apiKey: string }).apiKey = 'changed';
    }).toThrow(TypeError);
  });

  it('reads the optional variables, trimmed and normalised', () => {
    const config = loadConfig({
      ...VALID,
      SLACK_APP_TOKEN: ` ${APP_TOKEN} `,
      SLACK_API_URL: 'http://127.0.0.1:4000/api/',
      PORT: '8080',
      COMETCHAT_REGION: 'IN',
      COMETCHAT_TIMEOUT_MS: '1500',
      COMETCHAT_BUDGET_MS: '4000',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config.slack).toMatchObject({
      appToken: APP_TOKEN,
      socketMode: true,
      apiUrl: 'http://127.0.0.1:4000/api',
      port: 8080,
    });
    expect(config.cometchat).toMatchObject({
      apiUrl: 'https://abc123.api-in.cometchat.io',
      callApiUrl: 'https://abc123.call-in.cometchat.io',
      timeoutMs: 1500,
      budgetMs: 4000,
    });
    expect(config.logLevel).toBe('debug');
    expect(config.secrets).toEqual([BOT_TOKEN, SIGNING_SECRET, APP_TOKEN, API_KEY]);
  });

  it('needs no app id or region when both API addresses are given', () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      COMETCHAT_API_KEY: API_KEY,
      COMETCHAT_API_URL: 'http://127.0.0.1:4010/',
      COMETCHAT_CALL_API_URL: 'http://127.0.0.1:4011',
    });
    expect(config.cometchat.apiUrl).toBe('http://127.0.0.1:4010');
    expect(config.cometchat.callApiUrl).toBe('http://127.0.0.1:4011');
  });

  it('still needs the app id and region when only one address is given', () => {
    const problems = problemsOf({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      COMETCHAT_API_KEY: API_KEY,
      COMETCHAT_API_URL: 'http://127.0.0.1:4010',
    });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/COMETCHAT_APP_ID is missing/);
    expect(problems.join('\n')).toMatch(/COMETCHAT_REGION is missing/);
  });

  it('needs no signing secret in Socket Mode', () => {
    const { SLACK_SIGNING_SECRET: _, ...env } = VALID;
    const config = loadConfig({ ...env, SLACK_APP_TOKEN: APP_TOKEN });
    expect(config.slack.socketMode).toBe(true);
    expect(config.slack.signingSecret).toBeUndefined();
    expect(config.secrets).toEqual([BOT_TOKEN, APP_TOKEN, API_KEY]);
  });

  it('names every missing variable at once', () => {
    const error = configError({});
    expect(error.problems).toHaveLength(REQUIRED.length);
    for (const name of REQUIRED) expect(error.message).toContain(`${name} is missing`);
    expect(error.name).toBe('ConfigError');
  });

  it('counts empty and blank values as missing', () => {
    const blank = { ...Object.fromEntries(REQUIRED.map((name) => [name, ''])), PORT: ' ' };
    const error = configError({ ...blank, COMETCHAT_API_KEY: '   ', SLACK_APP_TOKEN: '' });
    expect(error.problems).toHaveLength(REQUIRED.length);
    for (const name of REQUIRED) expect(error.message).toContain(`${name} is missing`);
  });

  it('takes blank optional values as their defaults', () => {
    const config = loadConfig({
      ...VALID,
      SLACK_APP_TOKEN: '',
      SLACK_API_URL: '',
      PORT: '',
      COMETCHAT_API_URL: ' ',
      COMETCHAT_TIMEOUT_MS: '',
      COMETCHAT_BUDGET_MS: '',
      LOG_LEVEL: '',
    });
    expect(config.slack).toMatchObject({ socketMode: false, port: 3000, apiUrl: undefined });
    expect(config.cometchat).toMatchObject({
      apiUrl: 'https://abc123.api-eu.cometchat.io',
      timeoutMs: 3000,
      budgetMs: 8000,
    });
    expect(config.logLevel).toBe('info');
  });

  it('compares a set timeout with the default budget when the budget is blank', () => {
    expect(
      loadConfig({ ...VALID, COMETCHAT_TIMEOUT_MS: '5000', COMETCHAT_BUDGET_MS: '' }),
    ).toMatchObject({ cometchat: { timeoutMs: 5000, budgetMs: 8000 } });
    expect(problemsOf({ ...VALID, COMETCHAT_TIMEOUT_MS: '9000', COMETCHAT_BUDGET_MS: '' })).toEqual(
      ['COMETCHAT_TIMEOUT_MS must not be larger than COMETCHAT_BUDGET_MS'],
    );
  });

  it('rejects values of the wrong form, each named', () => {
    const problems = problemsOf({
      ...VALID,
      SLACK_BOT_TOKEN: 'xoxp-user-token',
      SLACK_APP_TOKEN: 'not-an-app-token',
      SLACK_API_URL: 'ftp://example.com',
      PORT: 'eighty',
      COMETCHAT_REGION: 'mars',
      COMETCHAT_API_URL: 'not a url',
      COMETCHAT_TIMEOUT_MS: '2.5',
      COMETCHAT_BUDGET_MS: '99999999',
      LOG_LEVEL: 'loud',
    });
    const text = problems.join('\n');
    expect(text).toContain('SLACK_BOT_TOKEN must start with xoxb-');
    expect(text).toContain('SLACK_APP_TOKEN must start with xapp-');
    expect(text).toContain('SLACK_API_URL must be an http(s) address');
    expect(text).toContain('PORT must be a whole number');
    expect(text).toContain('COMETCHAT_REGION must be one of us, eu, in');
    expect(text).toContain('COMETCHAT_API_URL must be an http(s) address');
    expect(text).toContain('COMETCHAT_TIMEOUT_MS must be a whole number');
    expect(text).toContain('COMETCHAT_BUDGET_MS must be at most 120000');
    expect(text).toContain('LOG_LEVEL must be one of');
    expect(problems).toHaveLength(9);
  });

  it('rejects a timeout larger than the budget', () => {
    expect(
      problemsOf({ ...VALID, COMETCHAT_TIMEOUT_MS: '5000', COMETCHAT_BUDGET_MS: '4000' }),
    ).toEqual(['COMETCHAT_TIMEOUT_MS must not be larger than COMETCHAT_BUDGET_MS']);
  });

  it('never repeats a value in its messages, least of all a secret', () => {
    const secrets = {
      SLACK_BOT_TOKEN: 'xoxp-NOT-A-BOT-TOKEN-s3cr3t',
      SLACK_APP_TOKEN: 'xoxa-NOT-AN-APP-TOKEN-s3cr3t',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      COMETCHAT_API_KEY: API_KEY,
    };
    const error = configError({
      ...secrets,
      COMETCHAT_REGION: 'atlantis',
      PORT: '-1',
      LOG_LEVEL: 'shouting',
    });
    const texts = [error.message, String(error), JSON.stringify(error), error.stack ?? ''];
    for (const text of texts) {
      for (const value of [...Object.values(secrets), 'atlantis', 'shouting']) {
        expect(text).not.toContain(value);
      }
    }
    expect(error.problems.length).toBeGreaterThanOrEqual(5);
  });
});
