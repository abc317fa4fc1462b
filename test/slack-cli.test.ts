import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startSandbox } from '../offline/cometchat-standin/server.ts';
import { startSlackStandIn } from '../offline/slack-standin/server.ts';
import { offlineEnv } from '../offline/stack/offline-stack.ts';
import { freePort, waitFor } from './crash/child-app.ts';

// `slack run` from a clone: the Slack CLI reads .slack/hooks.json and runs its hooks from the
// project's root. No Slack CLI runs here, so each hook is run the way the CLI runs it: as a shell
// command from the root, with the CLI's protocol arguments where it passes them.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const hooks = JSON.parse(readFileSync(`${ROOT}.slack/hooks.json`, 'utf8')) as {
  hooks: Record<string, string>;
  config?: { watch?: { manifest?: { paths?: string[] } } };
};
const manifest: unknown = parse(readFileSync(`${ROOT}manifest.yml`, 'utf8'));
const hook = (name: string, args = '') =>
  execSync(`${hooks.hooks[name]} ${args}`, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

describe('the Slack CLI hooks', () => {
  let child: ChildProcess | undefined;
  // The hook is a shell command (npx, then tsx, then node): stop the whole process group.
  const stopChild = (signal: NodeJS.Signals) => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, signal);
  };
  afterEach(() => {
    stopChild('SIGKILL');
    child = undefined;
  });

  it('serves manifest.yml as the JSON manifest, plainly and between message boundaries', () => {
    expect(JSON.parse(hook('get-manifest'))).toEqual(manifest);
    const bounded = hook(
      'get-manifest',
      '--protocol=message-boundaries --boundary=b0undary',
    ).trim();
    expect(bounded.startsWith('b0undary') && bounded.endsWith('b0undary')).toBe(true);
    expect(JSON.parse(bounded.slice('b0undary'.length, -'b0undary'.length))).toEqual(manifest);
    // The CLI watches the manifest this project keeps.
    expect(hooks.config?.watch?.manifest?.paths).toEqual(['manifest.yml']);
  });

  it('answers get-hooks from the installed @slack/cli-hooks, with the app managing its socket', () => {
    const answer = JSON.parse(hook('get-hooks')) as { config: Record<string, unknown> };
    expect(answer.config['sdk-managed-connection-enabled']).toBe(true);
  });

  it('starts the app in Socket Mode with the tokens the CLI provides', async () => {
    const sandbox = await startSandbox({ apiKey: 'cli-key' });
    const slack = await startSlackStandIn();
    try {
      const port = await freePort();
      child = spawn('sh', ['-c', hooks.hooks.start ?? 'false'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...offlineEnv(sandbox, slack, 'socket'),
          COMETCHAT_API_KEY: 'cli-key',
          PORT: String(port),
          LOG_LEVEL: 'error',
        },
        stdio: 'ignore',
        detached: true,
      });
      await waitFor('the app started by the start hook to be ready', 20_000, async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined,
      );
      expect(slack.socketConnectionCount()).toBe(1);
    } finally {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      stopChild('SIGTERM');
      await exited;
      await sandbox.close();
      await slack.close();
    }
  }, 40_000);
});
