import { afterEach, describe, expect, it } from 'vitest';
import {
  SANDBOX_SEEDS,
  SANDBOX_SESSION_IDS,
  type Sandbox,
  SECOND_SANDBOX_SESSION_IDS,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';
import { startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import {
  appEnvPrefix,
  OFFLINE_APP_API_KEYS,
  OFFLINE_SECRETS,
  offlineAppsEnv,
  offlineEnv,
  planOfflineApps,
  startAppSandboxes,
  startOfflineStack,
} from '../../../offline/stack/offline-stack.ts';

// The offline stack serving several CometChat apps, at its own level: which seed and key each
// app gets, the environment the app is given, and that the sandboxes behind it answer each
// app's requests and only those. (The app started on that environment is the integration
// tests' business.)

const SLACK = { botToken: 'xoxb-t', appToken: 'xapp-t', apiUrl: 'http://127.0.0.1:9/api/' };
const STAGING = { apiUrl: 'http://127.0.0.1:7001', callUrl: 'http://127.0.0.1:7002' };
const PROD = { apiUrl: 'http://127.0.0.1:7003', callUrl: 'http://127.0.0.1:7004' };

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => s.close()));
});

describe('planOfflineApps', () => {
  it('gives the first app the default seed and the second the other, each with its own key', () => {
    expect(planOfflineApps(['staging', 'prod'])).toEqual([
      {
        name: 'staging',
        seed: 'default',
        apiKey: OFFLINE_APP_API_KEYS[0],
        appId: 'sandbox-app',
        region: 'us',
      },
      {
        name: 'prod',
        seed: 'second',
        apiKey: OFFLINE_APP_API_KEYS[1],
        appId: 'sandbox-app-2',
        region: 'us',
      },
    ]);
  });

  it('uses keys that differ from each other and from every other offline secret', () => {
    const all = [...OFFLINE_APP_API_KEYS, ...Object.values(OFFLINE_SECRETS)];
    expect(new Set(all).size).toBe(all.length);
    for (const key of OFFLINE_APP_API_KEYS) expect(key).toMatch(/^sandbox-api-key-/);
  });

  it('takes an app’s key from the environment when one is set there', () => {
    const [staging, prod] = planOfflineApps(['staging', 'eu-prod'], {
      COMETCHAT_EU_PROD_API_KEY: 'chosen-by-the-test',
      COMETCHAT_API_KEY: 'not-for-several-apps',
    });
    expect(staging?.apiKey).toBe(OFFLINE_APP_API_KEYS[0]);
    expect(prod?.apiKey).toBe('chosen-by-the-test');
  });

  it('refuses a list the stand-ins cannot serve', () => {
    expect(() => planOfflineApps([])).toThrow(/1 to 2 apps/);
    expect(() => planOfflineApps(['a', 'b', 'c'])).toThrow(/1 to 2 apps/);
    expect(() => planOfflineApps(['prod', 'prod'])).toThrow(/twice/);
    expect(() => planOfflineApps(['Prod'])).toThrow(/"Prod" must be lower-case/);
    expect(() => planOfflineApps(['eu_prod'])).toThrow(/"eu_prod"/);
  });

  it('serves one app too, as the first with the default seed', () => {
    expect(planOfflineApps(['only'])).toMatchObject([{ name: 'only', seed: 'default' }]);
  });
});

describe('appEnvPrefix', () => {
  it('upper-cases the name and writes - as _', () => {
    expect(appEnvPrefix('prod')).toBe('COMETCHAT_PROD_');
    expect(appEnvPrefix('eu-prod-2')).toBe('COMETCHAT_EU_PROD_2_');
  });
});

describe('offlineAppsEnv', () => {
  const apps = () => {
    const [staging, prod] = planOfflineApps(['staging', 'eu-prod']);
    if (!staging || !prod) throw new Error('two apps planned');
    return [
      { ...staging, sandbox: STAGING },
      { ...prod, sandbox: PROD },
    ];
  };

  it('names the apps in order and points each one’s variables at its own sandbox', () => {
    expect(offlineAppsEnv(apps(), SLACK, 'http')).toEqual({
      SLACK_BOT_TOKEN: 'xoxb-t',
      SLACK_SIGNING_SECRET: OFFLINE_SECRETS.signingSecret,
      SLACK_API_URL: SLACK.apiUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      STORE_URL: 'memory:',
      COMETCHAT_APPS: 'staging,eu-prod',
      COMETCHAT_STAGING_APP_ID: 'sandbox-app',
      COMETCHAT_STAGING_REGION: 'us',
      COMETCHAT_STAGING_API_KEY: OFFLINE_APP_API_KEYS[0],
      COMETCHAT_STAGING_API_URL: STAGING.apiUrl,
      COMETCHAT_STAGING_CALL_API_URL: STAGING.callUrl,
      COMETCHAT_EU_PROD_APP_ID: 'sandbox-app-2',
      COMETCHAT_EU_PROD_REGION: 'us',
      COMETCHAT_EU_PROD_API_KEY: OFFLINE_APP_API_KEYS[1],
      COMETCHAT_EU_PROD_API_URL: PROD.apiUrl,
      COMETCHAT_EU_PROD_CALL_API_URL: PROD.callUrl,
    });
  });

  it('sets nothing a single-app configuration would read, so nothing falls back to it', () => {
    const env = offlineAppsEnv(apps(), SLACK, 'http');
    for (const name of [
      'COMETCHAT_API_KEY',
      'COMETCHAT_API_URL',
      'COMETCHAT_CALL_API_URL',
      'COMETCHAT_APP_ID',
      'COMETCHAT_REGION',
    ]) {
      expect(env, name).not.toHaveProperty(name);
    }
  });

  it('shares the Slack part with the single-app environment, in both modes', () => {
    for (const mode of ['http', 'socket'] as const) {
      const several = offlineAppsEnv(apps(), SLACK, mode);
      const single = offlineEnv(STAGING, SLACK, mode);
      const slackPart = (env: Record<string, string>) =>
        Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('COMETCHAT_')));
      expect(slackPart(several)).toEqual(slackPart(single));
    }
    expect(offlineAppsEnv(apps(), SLACK, 'socket').SLACK_APP_TOKEN).toBe('xapp-t');
  });
});

describe('offlineEnv (one app)', () => {
  it('is what it always was: the unprefixed variables and no COMETCHAT_APPS', () => {
    const env = offlineEnv(STAGING, SLACK, 'http');
    expect(env).toMatchObject({
      COMETCHAT_API_KEY: OFFLINE_SECRETS.apiKey,
      COMETCHAT_API_URL: STAGING.apiUrl,
      COMETCHAT_CALL_API_URL: STAGING.callUrl,
    });
    expect(env).not.toHaveProperty('COMETCHAT_APPS');
    expect(env).not.toHaveProperty('SLACK_APP_TOKEN');
  });
});

describe('startAppSandboxes', () => {
  async function started<const A extends string>(names: readonly A[]) {
    const apps = planOfflineApps(names);
    const sandboxes = await startAppSandboxes(apps);
    closing.push(...Object.values<Sandbox>(sandboxes));
    const env = offlineAppsEnv(
      apps.map((app) => ({ ...app, sandbox: sandboxes[app.name] })),
      SLACK,
      'http',
    );
    return { apps, sandboxes, env };
  }

  /** A role list fetched the way the app would for `app`, from the environment alone. */
  function rolesFor(env: Record<string, string>, app: string, apiKey?: string) {
    const prefix = appEnvPrefix(app);
    return fetch(`${env[`${prefix}API_URL`]}/v3/roles`, {
      headers: { apikey: apiKey ?? env[`${prefix}API_KEY`] ?? '' },
    });
  }

  it('starts one sandbox per app, with the app’s seed', async () => {
    const { sandboxes } = await started(['staging', 'prod']);
    expect(Object.keys(sandboxes)).toEqual(['staging', 'prod']);
    expect(sandboxes.staging.seed).toBe('default');
    expect(sandboxes.prod.seed).toBe('second');
    expect(sandboxes.staging.apiUrl).not.toBe(sandboxes.prod.apiUrl);
    expect(Object.isFrozen(sandboxes)).toBe(true);
  });

  it('answers each app at the addresses and with the key its environment names', async () => {
    const { sandboxes, env } = await started(['staging', 'prod']);
    for (const [app, roleOnlyThere] of [
      ['staging', 'support-agent'],
      ['prod', 'auditor'],
    ] as const) {
      const response = await rolesFor(env, app);
      expect(response.status, app).toBe(200);
      const { data } = (await response.json()) as { data: { role: string }[] };
      expect(data.map((r) => r.role)).toContain(roleOnlyThere);
    }
    expect(sandboxes.staging.requests).toHaveLength(1);
    expect(sandboxes.prod.requests).toHaveLength(1);
  });

  it('refuses one app’s key at the other’s sandbox, so a mixed-up request cannot succeed', async () => {
    const { env } = await started(['staging', 'prod']);
    expect((await rolesFor(env, 'prod', env.COMETCHAT_STAGING_API_KEY)).status).toBe(401);
    expect((await rolesFor(env, 'staging', env.COMETCHAT_PROD_API_KEY)).status).toBe(401);
  });

  it('serves each app’s calls at its own call address only', async () => {
    const { env } = await started(['staging', 'prod']);
    const call = (app: string, id: string) =>
      fetch(`${env[`${appEnvPrefix(app)}CALL_API_URL`]}/v3/calls/${id}`, {
        headers: { apikey: env[`${appEnvPrefix(app)}API_KEY`] ?? '' },
      }).then((r) => r.status);
    expect(await call('staging', SANDBOX_SESSION_IDS.audioEnded)).toBe(200);
    expect(await call('prod', SANDBOX_SESSION_IDS.audioEnded)).toBe(404);
    expect(await call('prod', SECOND_SANDBOX_SESSION_IDS.videoEnded)).toBe(200);
    expect(await call('staging', SECOND_SANDBOX_SESSION_IDS.videoEnded)).toBe(404);
    for (const id of Object.values(SECOND_SANDBOX_SESSION_IDS)) {
      expect(id).toContain(`.${env.COMETCHAT_PROD_APP_ID}.`);
    }
    expect(env.COMETCHAT_PROD_APP_ID).toBe(SANDBOX_SEEDS.second.appId);
  });

  it('passes the latency on to every sandbox', async () => {
    const sandboxes = await startAppSandboxes(planOfflineApps(['a', 'b']), { latencyMs: 150 });
    closing.push(...Object.values<Sandbox>(sandboxes));
    for (const sandbox of Object.values<Sandbox>(sandboxes)) {
      const started = performance.now();
      await fetch(`${sandbox.apiUrl}/v3/roles`);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    }
  });

  it('passes on the error of a sandbox that cannot start', async () => {
    const [first, second] = planOfflineApps(['a', 'b']);
    if (!first || !second) throw new Error('two apps planned');
    await expect(startAppSandboxes([first, { ...second, apiKey: '' }])).rejects.toThrow(
      /apiKey must not be empty/,
    );
  });
});

describe('startOfflineStack with apps', () => {
  it('refuses shared stand-ins that lack a sandbox for an app, before starting anything', async () => {
    const sandbox = await startSandbox({ apiKey: 'k' });
    const slack = await startSlackStandIn();
    closing.push(sandbox, slack);
    await expect(
      startOfflineStack({ apps: ['staging', 'prod'], shared: { sandbox, slack } }),
    ).rejects.toThrow(/no sandbox for the app "staging"/);
    await expect(
      startOfflineStack({
        apps: ['staging', 'prod'],
        shared: { sandbox, slack, sandboxes: { staging: sandbox } },
      }),
    ).rejects.toThrow(/no sandbox for the app "prod"/);
    expect(slack.calls).toEqual([]);
  });

  it('refuses an app list it cannot serve before starting anything', async () => {
    await expect(startOfflineStack({ apps: ['a', 'b', 'c'] })).rejects.toThrow(/1 to 2 apps/);
  });
});
