import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run try -- step ...` as a person runs it: one Workflow Builder step, end to end.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const tryStep = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'offline/try.ts', 'step', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'error' },
    timeout: 60_000,
  });

describe('npm run try -- step', () => {
  it('asks for a role change, a second editor approves, and the step completes', () => {
    const run = tryStep('change-role', 'cometchat-uid-4', 'vip');
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain('> a workflow runs the step change_cometchat_user_role');
    expect(out).toContain('<@U0OPERATOR> asks to apply 1 change to user `cometchat-uid-4`.');
    expect(out).toContain('(the step waits: running)');
    expect(out).toMatch(
      /< functions\.completeSuccess \{\n {2}"outcome": "applied",\n {2}"reference": "[0-9a-f]{10}",\n {2}"approver": "U0TRYLEAD"\n\}/,
    );
    expect(out).toContain('received 1 update: PUT /v3/users/cometchat-uid-4 {"role":"vip"}');
  }, 60_000);

  it('names the steps it knows for one it does not, and fails', () => {
    const run = tryStep('nonsense');
    expect(run.stderr).toContain('There is no step "nonsense"; the steps are lookup-user,');
    expect(run.status).toBe(2);
  }, 60_000);
});
