import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run try -- revert` as a person runs it: a change and its revert, both applied and audited.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run try -- revert', () => {
  it("changes a user's role, puts it back from the audit record, and lists both", () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'offline/try.ts', 'revert'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'error' },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain('Applied to user `cometchat-uid-4`: role is now `vip`.');
    const ref = /> "Revert ([0-9a-f]{10})"/.exec(out)?.[1];
    expect(ref).toBeDefined();
    expect(out).toContain(`give \`cometchat-uid-4\` the role \`premium\` again?`);
    expect(out).toContain('Applied to user `cometchat-uid-4`: role is now `premium`.');
    expect(out).toContain(
      'received 2 updates: PUT /v3/users/cometchat-uid-4 {"role":"vip"}; PUT /v3/users/cometchat-uid-4 {"role":"premium"}',
    );
    expect(out).toContain('2 records · page 1 of 1');
    expect(out).toContain(`Reverts the change with ref ${ref}.`);
  }, 60_000);
});
