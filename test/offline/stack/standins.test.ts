import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../../../bench/processes.ts';
import { DEFAULT_SANDBOX_KEY, parseSandboxEnv } from '../../../offline/cometchat-standin/cli.ts';
import { loadSeed } from '../../../offline/cometchat-standin/seed.ts';
import { OFFLINE_SECRETS } from '../../../offline/stack/offline-stack.ts';
import { parseServeEnv } from '../../../offline/stack/serve.ts';
import {
  documentedSettings,
  envFileText,
  OFFLINE_ENV_FILE,
  parseStandInsEnv,
} from '../../../offline/stack/standins.ts';

// The README's "Try it offline", as an operator types it: `npm run standins`, then the built app
// as `npm start` runs it with the settings that wrote, then `npm run try -- --app roles`, which
// sends the running app a signed `/cometchat roles` and prints the reply Slack would show.

const scripts: Record<string, string> = JSON.parse(
  readFileSync(join(ROOT, 'package.json'), 'utf8'),
).scripts;

describe('the offline scripts', () => {
  it('start the app with npm start’s own command, reading .env.offline', () => {
    expect(scripts['start:offline']).toBe(
      scripts.start?.replace(/^node /, `node --env-file=${OFFLINE_ENV_FILE} `),
    );
    expect(scripts.standins).toBe('tsx offline/stack/standins.ts');
  });

  it('give the sandbox, the stand-ins and the offline stack one default key', () => {
    expect(parseSandboxEnv({}).options.apiKey).toBe(DEFAULT_SANDBOX_KEY);
    expect(parseServeEnv({}).sandbox.options.apiKey).toBe(DEFAULT_SANDBOX_KEY);
    expect(parseStandInsEnv({}).serve.sandbox.options.apiKey).toBe(DEFAULT_SANDBOX_KEY);
    expect(OFFLINE_SECRETS.apiKey).toBe(DEFAULT_SANDBOX_KEY);
  });

  it('take fixed settings, whatever the environment says of keys', () => {
    const config = parseStandInsEnv({ COMETCHAT_API_KEY: 'a-real-key', SANDBOX_SEED: 'second' });
    expect(config.serve.sandbox.options).toMatchObject({
      apiKey: DEFAULT_SANDBOX_KEY,
      seed: 'default',
      apiPort: 4010,
      callPort: 4011,
    });
    expect(config.serve.slackPort).toBe(4020);
    expect(config.appPort).toBe(3000);
    expect(config.file).toBe('.env.offline');
  });
});

describe('envFileText', () => {
  it('writes the settings and leaves every other documented setting empty', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const documented = documentedSettings(example);
    expect(documented).toEqual(expect.arrayContaining(['COMETCHAT_APPS', 'VIEWERS', 'STORE_URL']));
    const settings = { SLACK_BOT_TOKEN: 'xoxb-standin-bot-token', STORE_URL: 'memory:' };
    const read = parseEnv(envFileText(settings, documented));
    expect(read).toMatchObject(settings);
    // A real deployment's .env cannot add apps, access lists, a Socket Mode token or a secret file.
    for (const name of ['COMETCHAT_APPS', 'VIEWERS', 'SLACK_APP_TOKEN', 'STORE_URL_FILE']) {
      expect(read[name]).toBe('');
    }
    expect(Object.keys(read).filter((name) => read[name] !== '')).toEqual(Object.keys(settings));
  });
});

/** A command line run as npm runs a script: by the shell, with the project's tools on PATH. */
function runScript(command: string, env: Record<string, string>): ChildProcess {
  const child = spawn(command, {
    cwd: ROOT,
    shell: true,
    // A process group of its own, so that the shell and what it started stop together.
    detached: true,
    env: {
      PATH: [join(ROOT, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
      HOME: process.env.HOME ?? '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  return child;
}

/** Everything the child has printed so far, as it is printed. */
function output(child: ChildProcess): () => string {
  let text = '';
  child.stdout?.on('data', (chunk: string) => {
    text += chunk;
  });
  child.stderr?.on('data', (chunk: string) => {
    text += chunk;
  });
  return () => text;
}

async function until(what: string, ready: () => boolean | Promise<boolean>, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stops a script's process group with SIGINT (the app's stop without the load balancer's wait). */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGINT');
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

describe('npm run standins, then npm start with .env.offline, then npm run try -- --app', () => {
  const dir = mkdtempSync(join(tmpdir(), 'standins-'));
  const file = join(dir, '.env.offline');
  let standins: ChildProcess | undefined;
  let app: ChildProcess | undefined;
  afterAll(async () => {
    await stop(app);
    await stop(standins);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a signed /cometchat roles from the built app', async () => {
    const entry = scripts.start?.split(' ').at(-1) ?? '';
    expect(existsSync(join(ROOT, entry)), `${entry} is missing: run npm run build`).toBe(true);
    // The fixed ports may be in use on this machine (an operator's own stand-ins): free ones.
    const [slackPort, apiPort, callPort, appPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const ports = {
      SLACK_STANDIN_PORT: String(slackPort),
      SANDBOX_API_PORT: String(apiPort),
      SANDBOX_CALL_PORT: String(callPort),
      OFFLINE_APP_PORT: String(appPort),
      OFFLINE_ENV_FILE: file,
    };
    standins = runScript(scripts.standins ?? '', ports);
    const standinsSaid = output(standins);
    await until('the stand-ins', () => standinsSaid().includes('Press Ctrl+C to stop.'));
    expect(standinsSaid()).toContain(`PORT=${appPort}`);
    expect(parseEnv(readFileSync(file, 'utf8'))).toMatchObject({
      PORT: String(appPort),
      SLACK_API_URL: `http://127.0.0.1:${slackPort}/api/`,
      STORE_URL: 'memory:',
      SLACK_APP_TOKEN: '',
    });

    // npm start's command with that file (the first test: what `npm run start:offline` runs).
    app = runScript(scripts['start:offline']?.replace(OFFLINE_ENV_FILE, file) ?? '', {});
    const appSaid = output(app);
    await until('the app', async () => {
      const ready = await fetch(`http://127.0.0.1:${appPort}/readyz`).catch(() => undefined);
      return ready?.status === 200;
    });
    expect(appSaid()).toContain('app started over HTTP');

    const tried = runScript(`${scripts.try} --app roles`, { OFFLINE_ENV_FILE: file });
    const triedSaid = output(tried);
    const status = await new Promise((resolve) => tried.once('exit', resolve));
    expect(triedSaid()).toContain('> /cometchat roles\n  (acknowledged: HTTP 200');
    const roles = loadSeed().roles.map((role) => role.role);
    expect(triedSaid()).toContain(`Page 1 of 1 · ${roles.length} roles`);
    for (const role of roles) expect(triedSaid()).toMatch(new RegExp(`│ ${role} +│`));
    expect(status).toBe(0);
  }, 30_000);
});
