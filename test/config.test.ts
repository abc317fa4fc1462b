import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { SUBCOMMAND_NAMES } from '../src/features/index.ts';

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

function problemsOf(
  env: Record<string, string | undefined>,
  reserved: readonly string[] = [],
): readonly string[] {
  try {
    loadConfig(env, reserved);
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
        apps: [
          {
            name: 'default',
            appId: 'abc123',
            region: 'eu',
            apiKey: API_KEY,
            apiUrl: 'https://abc123.api-eu.cometchat.io',
            callApiUrl: 'https://abc123.call-eu.cometchat.io',
            editors: undefined,
            editorsSetting: 'EDITORS',
            approvalChannel: undefined,
            approvers: undefined,
            approversSetting: 'APPROVERS',
          },
        ],
        channelApps: {},
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
    expect(Object.isFrozen(config.cometchat.apps)).toBe(true);
    expect(Object.isFrozen(config.cometchat.apps[0])).toBe(true);
    expect(Object.isFrozen(config.cometchat.channelApps)).toBe(true);
    expect(Object.isFrozen(config.secrets)).toBe(true);
    expect(() => {
      (config.cometchat.apps[0] as { apiKey: string }).apiKey = 'changed';
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
    expect(config.cometchat.apps[0]).toMatchObject({
      region: 'in',
      apiUrl: 'https://abc123.api-in.cometchat.io',
      callApiUrl: 'https://abc123.call-in.cometchat.io',
    });
    expect(config.cometchat).toMatchObject({ timeoutMs: 1500, budgetMs: 4000 });
    expect(config.logLevel).toBe('debug');
    // Each secret as read, and as set when that differs (the scrubber looks for both).
    expect(new Set(config.secrets)).toEqual(
      new Set([BOT_TOKEN, SIGNING_SECRET, APP_TOKEN, ` ${APP_TOKEN} `, API_KEY]),
    );
  });

  it('needs no app id or region when both API addresses are given', () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      COMETCHAT_API_KEY: API_KEY,
      COMETCHAT_API_URL: 'http://127.0.0.1:4010/',
      COMETCHAT_CALL_API_URL: 'http://127.0.0.1:4011',
    });
    expect(config.cometchat.apps[0]?.apiUrl).toBe('http://127.0.0.1:4010');
    expect(config.cometchat.apps[0]?.callApiUrl).toBe('http://127.0.0.1:4011');
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
    expect(new Set(config.secrets)).toEqual(new Set([BOT_TOKEN, APP_TOKEN, API_KEY]));
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
    expect(config.cometchat.apps[0]?.apiUrl).toBe('https://abc123.api-eu.cometchat.io');
    expect(config.cometchat).toMatchObject({ timeoutMs: 3000, budgetMs: 8000 });
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

// Recognisable fake keys: no message may ever contain one.
const PROD_KEY = 'PROD-KEY-must-never-print-1a2b3c';
const STAGING_KEY = 'STAGING-KEY-must-never-print-4d5e6f';

const SLACK = { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET };

const TWO_APPS = {
  ...SLACK,
  COMETCHAT_APPS: 'prod, eu-staging',
  COMETCHAT_PROD_APP_ID: 'prod111',
  COMETCHAT_PROD_REGION: 'us',
  COMETCHAT_PROD_API_KEY: PROD_KEY,
  COMETCHAT_EU_STAGING_APP_ID: 'stage222',
  COMETCHAT_EU_STAGING_REGION: 'EU',
  COMETCHAT_EU_STAGING_API_KEY: STAGING_KEY,
  COMETCHAT_EU_STAGING_EDITORS: 'U0STAGE1, S0TESTERS',
  EDITORS: 'U0ADMIN1',
  COMETCHAT_CHANNEL_APPS: 'C0123ABC:eu-staging, G0456DEF : prod',
};

describe('loadConfig with several apps', () => {
  it('reads approval settings per app, the global ones where an app has none of its own', () => {
    const config = loadConfig({
      ...TWO_APPS,
      APPROVAL_CHANNEL: 'C0APPROVE',
      APPROVERS: 'U0LEAD1',
      APPROVAL_TTL_HOURS: '6',
      COMETCHAT_EU_STAGING_APPROVAL_CHANNEL: 'C0STAGEOK',
      COMETCHAT_PROD_APPROVERS: 'U0CTO,S0SRE',
    });
    expect(config.approvalTtlHours).toBe(6);
    const [prod, staging] = config.cometchat.apps;
    expect(prod).toMatchObject({
      approvalChannel: 'C0APPROVE',
      approvers: ['U0CTO', 'S0SRE'],
      approversSetting: 'COMETCHAT_PROD_APPROVERS',
    });
    expect(staging).toMatchObject({
      approvalChannel: 'C0STAGEOK',
      approvers: ['U0LEAD1'],
      approversSetting: 'APPROVERS',
      moderators: undefined,
      moderatorsSetting: 'MODERATORS',
      moderationApproval: false,
    });
  });

  it('reports bad approval settings, naming the variable', () => {
    expect(() =>
      loadConfig({
        ...TWO_APPS,
        COMETCHAT_PROD_APPROVAL_CHANNEL: 'general',
        APPROVAL_TTL_HOURS: '0',
      }),
    ).toThrow(
      /APPROVAL_TTL_HOURS must be at least 1[\s\S]*App prod: COMETCHAT_PROD_APPROVAL_CHANNEL must be a channel id/,
    );
  });

  it('reads each app in the order of COMETCHAT_APPS, the first being the default', () => {
    const config = loadConfig(TWO_APPS);
    expect(config.cometchat.apps).toEqual([
      {
        name: 'prod',
        appId: 'prod111',
        region: 'us',
        apiKey: PROD_KEY,
        apiUrl: 'https://prod111.api-us.cometchat.io',
        callApiUrl: 'https://prod111.call-us.cometchat.io',
        // No editors of its own: the workspace's.
        editors: ['U0ADMIN1'],
        editorsSetting: 'EDITORS',
        approvalChannel: undefined,
        approvers: undefined,
        approversSetting: 'APPROVERS',
        moderators: undefined,
        moderatorsSetting: 'MODERATORS',
        moderationApproval: false,
      },
      {
        name: 'eu-staging',
        appId: 'stage222',
        region: 'eu',
        apiKey: STAGING_KEY,
        apiUrl: 'https://stage222.api-eu.cometchat.io',
        callApiUrl: 'https://stage222.call-eu.cometchat.io',
        editors: ['U0STAGE1', 'S0TESTERS'],
        editorsSetting: 'COMETCHAT_EU_STAGING_EDITORS',
        approvalChannel: undefined,
        approvers: undefined,
        approversSetting: 'APPROVERS',
        moderators: undefined,
        moderatorsSetting: 'MODERATORS',
        moderationApproval: false,
      },
    ]);
    expect(config.cometchat.channelApps).toEqual({ C0123ABC: 'eu-staging', G0456DEF: 'prod' });
    expect(config.access.editors).toEqual(['U0ADMIN1']);
    expect(config.secrets).toEqual([BOT_TOKEN, SIGNING_SECRET, PROD_KEY, STAGING_KEY]);
    expect(Object.isFrozen(config.cometchat.apps[1]?.editors)).toBe(true);
  });

  it('needs no app id or region for an app whose two addresses are given', () => {
    const config = loadConfig({
      ...SLACK,
      COMETCHAT_APPS: 'local',
      COMETCHAT_LOCAL_API_KEY: STAGING_KEY,
      COMETCHAT_LOCAL_API_URL: 'http://127.0.0.1:4010/',
      COMETCHAT_LOCAL_CALL_API_URL: 'http://127.0.0.1:4011',
    });
    expect(config.cometchat.apps).toEqual([
      {
        name: 'local',
        appId: undefined,
        region: undefined,
        apiKey: STAGING_KEY,
        apiUrl: 'http://127.0.0.1:4010',
        callApiUrl: 'http://127.0.0.1:4011',
        editors: undefined,
        editorsSetting: 'EDITORS',
        approvalChannel: undefined,
        approvers: undefined,
        approversSetting: 'APPROVERS',
        moderators: undefined,
        moderatorsSetting: 'MODERATORS',
        moderationApproval: false,
      },
    ]);
    expect(config.cometchat.channelApps).toEqual({});
  });

  it('reports every problem with the names and the channels at once', () => {
    const problems = problemsOf(
      {
        ...SLACK,
        COMETCHAT_APPS: 'prod,Staging,help,prod',
        COMETCHAT_PROD_APP_ID: 'prod111',
        COMETCHAT_PROD_REGION: 'us',
        COMETCHAT_HELP_APP_ID: 'help333',
        COMETCHAT_HELP_REGION: 'in',
        COMETCHAT_HELP_API_KEY: STAGING_KEY,
        COMETCHAT_CHANNEL_APPS: 'C0123ABC:qa,C0123ABC:prod,nonsense,C0999ZZZ:Staging',
      },
      SUBCOMMAND_NAMES,
    );
    expect(problems).toEqual([
      'COMETCHAT_APPS name 2 must be 1 to 32 lower-case letters, digits or -, starting with a letter',
      'COMETCHAT_APPS names help, which is a /cometchat subcommand: choose another name',
      'COMETCHAT_APPS names prod more than once',
      'App prod: COMETCHAT_PROD_API_KEY is missing',
      'COMETCHAT_CHANNEL_APPS sets channel C0123ABC to app qa, which is not configured (configured: prod, help)',
      'COMETCHAT_CHANNEL_APPS lists channel C0123ABC more than once',
      'COMETCHAT_CHANNEL_APPS entry 3 must be a channel id and an app name, like C0123ABCD:staging',
    ]);
  });

  it("names the app and the variable of each app's problem", () => {
    const problems = problemsOf({
      ...SLACK,
      COMETCHAT_APPS: 'prod,eu-staging',
      COMETCHAT_PROD_REGION: 'mars',
      COMETCHAT_PROD_API_KEY: PROD_KEY,
      COMETCHAT_PROD_CALL_API_URL: 'not a url',
      COMETCHAT_EU_STAGING_APP_ID: 'stage222',
      COMETCHAT_EU_STAGING_REGION: 'eu',
      COMETCHAT_EU_STAGING_EDITORS: 'alice,bob',
    });
    expect(problems).toEqual([
      'App prod: COMETCHAT_PROD_REGION must be one of us, eu, in',
      'App prod: COMETCHAT_PROD_CALL_API_URL must be an http(s) address',
      'App prod: COMETCHAT_PROD_APP_ID is missing (required unless COMETCHAT_PROD_API_URL and COMETCHAT_PROD_CALL_API_URL are both set)',
      'App eu-staging: COMETCHAT_EU_STAGING_API_KEY is missing',
      'App eu-staging: COMETCHAT_EU_STAGING_EDITORS must list Slack user ids (U..., W...) or user group ids (S...), comma-separated',
    ]);
  });

  it('reports the unprefixed variables of a single app, which COMETCHAT_APPS does not read', () => {
    expect(
      problemsOf({
        ...TWO_APPS,
        COMETCHAT_APP_ID: 'abc123',
        COMETCHAT_API_KEY: API_KEY,
        COMETCHAT_CALL_API_URL: 'http://127.0.0.1:4011',
        // Blank counts as not set.
        COMETCHAT_REGION: ' ',
      }),
    ).toEqual([
      'COMETCHAT_APP_ID, COMETCHAT_API_KEY and COMETCHAT_CALL_API_URL are set, but with COMETCHAT_APPS each app has its own: use COMETCHAT_<NAME>_APP_ID, COMETCHAT_<NAME>_API_KEY and COMETCHAT_<NAME>_CALL_API_URL instead',
    ]);
    expect(problemsOf({ ...TWO_APPS, COMETCHAT_API_KEY: API_KEY })).toEqual([
      'COMETCHAT_API_KEY is set, but with COMETCHAT_APPS each app has its own: use COMETCHAT_<NAME>_API_KEY instead',
    ]);
  });

  it('refuses two names that would read the same variable', () => {
    expect(
      problemsOf({
        ...SLACK,
        COMETCHAT_APPS: 'prod,prod-call',
        COMETCHAT_PROD_API_URL: 'http://127.0.0.1:4010',
        COMETCHAT_PROD_CALL_API_URL: 'http://127.0.0.1:4011',
        COMETCHAT_PROD_API_KEY: PROD_KEY,
        COMETCHAT_PROD_CALL_APP_ID: 'call444',
        COMETCHAT_PROD_CALL_REGION: 'us',
        COMETCHAT_PROD_CALL_API_KEY: STAGING_KEY,
      }),
    ).toEqual([
      'COMETCHAT_APPS names prod and prod-call, which would both read COMETCHAT_PROD_CALL_API_URL: rename one',
    ]);
  });

  it('takes names of 1 to 32 characters that start with a letter, and needs at least one', () => {
    const app = (name: string) => ({
      ...SLACK,
      COMETCHAT_APPS: name,
      [`COMETCHAT_${name.toUpperCase().replaceAll('-', '_')}_API_KEY`]: PROD_KEY,
      [`COMETCHAT_${name.toUpperCase().replaceAll('-', '_')}_APP_ID`]: 'abc123',
      [`COMETCHAT_${name.toUpperCase().replaceAll('-', '_')}_REGION`]: 'us',
    });
    expect(loadConfig(app('p')).cometchat.apps[0]?.name).toBe('p');
    expect(loadConfig(app(`a${'-9'.repeat(15)}b`)).cometchat.apps[0]?.name).toHaveLength(32);
    for (const name of [`a${'b'.repeat(32)}`, '9lives', '-x', 'pr_od', 'pröd']) {
      expect(problemsOf(app(name))).toEqual([
        'COMETCHAT_APPS name 1 must be 1 to 32 lower-case letters, digits or -, starting with a letter',
      ]);
    }
    expect(problemsOf({ ...SLACK, COMETCHAT_APPS: ' , ' })).toEqual([
      'COMETCHAT_APPS must name at least one app',
    ]);
  });

  it('refuses the bare token placeholders of .env.example, naming the setting', () => {
    const problems = problemsOf({ ...SLACK, SLACK_BOT_TOKEN: 'xoxb-', SLACK_APP_TOKEN: 'xapp-' });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SLACK_BOT_TOKEN is only the xoxb- placeholder of \.env\.example/),
        expect.stringMatching(/^SLACK_APP_TOKEN is only the xapp- placeholder of \.env\.example/),
      ]),
    );
  });

  it('refuses an app named like a subcommand, given the subcommands', () => {
    expect(SUBCOMMAND_NAMES).toEqual([
      'roles',
      'role',
      'compare',
      'perms',
      'permissions',
      'approvals',
      'user',
      'users',
      'group',
      'groups',
      'messages',
      'moderation',
      'call',
      'calls',
      'subscribe',
      'digest',
      'subscriptions',
      'rules',
      'audit',
      'apps',
      'help',
    ]);
    for (const name of SUBCOMMAND_NAMES) {
      const prefix = `COMETCHAT_${name.toUpperCase()}_`;
      const env = {
        ...SLACK,
        COMETCHAT_APPS: name,
        [`${prefix}APP_ID`]: 'abc123',
        [`${prefix}REGION`]: 'us',
        [`${prefix}API_KEY`]: PROD_KEY,
      };
      expect(problemsOf(env, SUBCOMMAND_NAMES)).toContain(
        `COMETCHAT_APPS names ${name}, which is a /cometchat subcommand: choose another name`,
      );
    }
  });

  it('never repeats a key, nor a value that is not a name, in any message', () => {
    const error = configError({
      ...SLACK,
      // A key pasted where a name, a channel or an editor belongs.
      COMETCHAT_APPS: `prod,staging,${STAGING_KEY}`,
      COMETCHAT_PROD_API_KEY: PROD_KEY,
      COMETCHAT_PROD_REGION: 'atlantis',
      COMETCHAT_STAGING_API_KEY: STAGING_KEY,
      COMETCHAT_STAGING_EDITORS: PROD_KEY,
      COMETCHAT_API_KEY: API_KEY,
      COMETCHAT_CHANNEL_APPS: `C0123ABC:${PROD_KEY},${STAGING_KEY}:prod,C0456DEF:${STAGING_KEY}`,
    });
    const texts = [error.message, String(error), JSON.stringify(error), error.stack ?? ''];
    for (const text of texts) {
      for (const value of [PROD_KEY, STAGING_KEY, API_KEY, 'atlantis']) {
        expect(text).not.toContain(value);
      }
    }
    expect(error.problems).toContain(
      'COMETCHAT_CHANNEL_APPS entry 1 names an app that is not configured (configured: prod, staging)',
    );
    expect(error.problems.length).toBeGreaterThanOrEqual(9);
  });
});

describe('loadConfig with a single app (no COMETCHAT_APPS)', () => {
  it('defines one app called default, with the addresses it always had', () => {
    for (const COMETCHAT_APPS of [undefined, '', '  ']) {
      const config = loadConfig({ ...VALID, COMETCHAT_APPS, EDITORS: 'U0ADMIN1' });
      expect(config.cometchat.apps).toEqual([
        {
          name: 'default',
          appId: 'abc123',
          region: 'eu',
          apiKey: API_KEY,
          apiUrl: 'https://abc123.api-eu.cometchat.io',
          callApiUrl: 'https://abc123.call-eu.cometchat.io',
          editors: ['U0ADMIN1'],
          editorsSetting: 'EDITORS',
          approvalChannel: undefined,
          approvers: undefined,
          approversSetting: 'APPROVERS',
          moderators: undefined,
          moderatorsSetting: 'MODERATORS',
          moderationApproval: false,
        },
      ]);
    }
  });

  it('reads no prefixed variable, and lets a channel name the default app', () => {
    const config = loadConfig({
      ...VALID,
      COMETCHAT_EDITORS: 'U0NOTREAD',
      COMETCHAT_DEFAULT_API_KEY: PROD_KEY,
      COMETCHAT_DEFAULT_EDITORS: 'U0NOTREAD',
      COMETCHAT_CHANNEL_APPS: 'C0123ABC:default',
    });
    expect(config.cometchat.apps).toHaveLength(1);
    expect(config.cometchat.apps[0]).toMatchObject({ apiKey: API_KEY, editors: undefined });
    expect(config.cometchat.channelApps).toEqual({ C0123ABC: 'default' });
    expect(problemsOf({ ...VALID, COMETCHAT_CHANNEL_APPS: 'C0123ABC:prod' })).toEqual([
      'COMETCHAT_CHANNEL_APPS sets channel C0123ABC to app prod, which is not configured (configured: default)',
    ]);
  });
});

describe('the reserved app names, as the documents list them', () => {
  // An app may not be called like a subcommand; .env.example and docs/usage.md spell the list
  // out for a person, and must list exactly the subcommands the app has.
  const listed = (file: string, pattern: RegExp) => {
    const text = readFileSync(file, 'utf8').replace(/\n#?\s*/g, ' ');
    const list = pattern.exec(text)?.[1];
    if (list === undefined) throw new Error(`${file} no longer lists the reserved names`);
    return [...list.matchAll(/[a-z]+/g)].map((m) => m[0]).sort();
  };

  it.each([
    ['.env.example', /not a subcommand \(([^)]*)\)/],
    ['docs/usage.md', /not a subcommand \(([^)]*)\)/],
  ])('%s lists every subcommand and nothing else', (file, pattern) => {
    expect(listed(file, pattern)).toEqual([...SUBCOMMAND_NAMES].sort());
  });
});

describe('MODERATORS', () => {
  it('reads MODERATORS, and per app COMETCHAT_<NAME>_MODERATORS in its place', () => {
    const config = loadConfig({
      ...TWO_APPS,
      MODERATORS: 'U0MOD1,S0MODS',
      COMETCHAT_EU_STAGING_MODERATORS: 'U0STAGEMOD',
    });
    const [prod, staging] = config.cometchat.apps;
    expect(prod).toMatchObject({
      moderators: ['U0MOD1', 'S0MODS'],
      moderatorsSetting: 'MODERATORS',
    });
    expect(staging).toMatchObject({
      moderators: ['U0STAGEMOD'],
      moderatorsSetting: 'COMETCHAT_EU_STAGING_MODERATORS',
    });
  });

  it('leaves moderators unset when neither is set: the editors moderate', () => {
    const [app] = loadConfig({ ...VALID, EDITORS: 'U0ADMIN1' }).cometchat.apps;
    expect(app).toMatchObject({ editors: ['U0ADMIN1'], moderators: undefined });
  });

  it('reads MODERATION_APPROVAL, per app too, as false when unset', () => {
    const config = loadConfig({
      ...TWO_APPS,
      MODERATION_APPROVAL: 'true',
      APPROVAL_CHANNEL: 'C0APPROVE',
      COMETCHAT_EU_STAGING_MODERATION_APPROVAL: 'no',
    });
    expect(config.cometchat.apps.map((app) => app.moderationApproval)).toEqual([true, false]);
    expect(loadConfig(VALID).cometchat.apps[0]?.moderationApproval).toBe(false);
  });

  it('refuses MODERATION_APPROVAL without an approval channel, naming both settings', () => {
    expect(problemsOf({ ...VALID, MODERATION_APPROVAL: 'true' })).toEqual([
      'MODERATION_APPROVAL is true but APPROVAL_CHANNEL is not set (the second moderator approves there)',
    ]);
    expect(problemsOf({ ...TWO_APPS, COMETCHAT_PROD_MODERATION_APPROVAL: 'yes' })).toEqual([
      'App prod: COMETCHAT_PROD_MODERATION_APPROVAL is true but neither COMETCHAT_PROD_APPROVAL_CHANNEL nor APPROVAL_CHANNEL is set (the second moderator approves there)',
    ]);
    expect(
      problemsOf({
        ...TWO_APPS,
        MODERATION_APPROVAL: 'true',
        COMETCHAT_EU_STAGING_APPROVAL_CHANNEL: 'C0STAGEOK',
      }),
    ).toEqual([
      'App prod: MODERATION_APPROVAL is true but neither COMETCHAT_PROD_APPROVAL_CHANNEL nor APPROVAL_CHANNEL is set (the second moderator approves there)',
    ]);
    // With a channel, its own or the global one, it is a setting like any other.
    expect(
      loadConfig({ ...TWO_APPS, MODERATION_APPROVAL: 'true', APPROVAL_CHANNEL: 'C0APPROVE' })
        .cometchat.apps[0]?.moderationApproval,
    ).toBe(true);
    expect(loadConfig({ ...VALID, MODERATION_APPROVAL: 'false' }).cometchat.apps[0]).toMatchObject({
      moderationApproval: false,
    });
  });

  it('names the variable of a bad value, and a prefixed one of the single app is not read', () => {
    expect(problemsOf({ ...VALID, MODERATORS: 'alice', MODERATION_APPROVAL: 'maybe' })).toEqual([
      'MODERATORS must list Slack user ids (U..., W...) or user group ids (S...), comma-separated',
      'MODERATION_APPROVAL must be true or false',
    ]);
    expect(
      problemsOf({ ...TWO_APPS, COMETCHAT_PROD_MODERATORS: 'bob' }).some((p) =>
        p.startsWith('App prod: COMETCHAT_PROD_MODERATORS must list Slack user ids'),
      ),
    ).toBe(true);
    const [single] = loadConfig({ ...VALID, COMETCHAT_MODERATORS: 'U0NOTREAD' }).cometchat.apps;
    expect(single?.moderators).toBeUndefined();
  });
});

describe('AUDIT_RETENTION_DAYS', () => {
  it('keeps the audit trail for ever when unset or empty', () => {
    expect(loadConfig(VALID).auditRetentionDays).toBeUndefined();
    expect(loadConfig({ ...VALID, AUDIT_RETENTION_DAYS: ' ' }).auditRetentionDays).toBeUndefined();
  });

  it('reads a number of days', () => {
    expect(loadConfig({ ...VALID, AUDIT_RETENTION_DAYS: '90' }).auditRetentionDays).toBe(90);
  });

  it('refuses what is not a positive whole number in one sentence naming the setting', () => {
    for (const [value, problem] of [
      ['0', 'AUDIT_RETENTION_DAYS must be at least 1'],
      ['-3', 'AUDIT_RETENTION_DAYS must be at least 1'],
      ['1.5', 'AUDIT_RETENTION_DAYS must be a whole number'],
      ['a year', 'AUDIT_RETENTION_DAYS must be a whole number'],
    ] as const) {
      expect(problemsOf({ ...VALID, AUDIT_RETENTION_DAYS: value })).toEqual([
        expect.stringContaining(problem),
      ]);
    }
  });
});
