import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run try` as a person runs it: a mistake is said, and the try fails.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function tryWith(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'offline/try.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'error' },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm run try', () => {
  it('names a command it does not know, shows the usage, and fails', () => {
    const run = tryWith('nonsense');
    expect(run.stderr).toContain('There is no try command "nonsense".');
    expect(run.stdout).toContain('Usage: npm run try');
    expect(run.status).toBe(2);
  });

  it('fails, changing nothing, when asked for a change it cannot make', () => {
    const run = tryWith('perms', 'default', 'deny', 'nosuchkey');
    expect(run.stderr).toContain('"deny nosuchkey"');
    expect(run.stderr).toContain('Nothing was changed.');
    expect(run.stdout).not.toContain('received 1 update');
    expect(run.status).toBe(2);
  }, 60_000);
});

describe('npm run try -- --json', () => {
  it('prints each message as Slack gets it, after its drawing', () => {
    const run = tryWith('help', '--json');
    expect(run.status).toBe(0);
    const start = run.stdout.indexOf('\n{');
    expect(start).toBeGreaterThan(0);
    const json = JSON.parse(run.stdout.slice(start, run.stdout.lastIndexOf('}') + 1)) as {
      blocks?: unknown[];
    };
    expect(json.blocks?.length).toBeGreaterThan(0);
    // Every emoji the reply uses is drawn.
    expect(run.stdout.slice(0, start)).not.toMatch(/:[a-z_]+:/);
  }, 60_000);
});
