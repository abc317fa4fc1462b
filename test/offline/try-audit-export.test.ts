import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run try -- audit export` as a person runs it: two changes, then the trail as a CSV file.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run try -- audit export', () => {
  it('makes two changes, exports them, and prints the reply and the CSV it uploaded', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'offline/try.ts', 'audit', 'export'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'error' },
        timeout: 60_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain('Applied to user `cometchat-uid-4`: role is now `vip`.');
    expect(out).toContain('Applied to user `cometchat-uid-4`: role is now `premium`.');
    expect(out).toContain('> /cometchat audit export since:1h');
    expect(out).toContain('Sent 2 records as a CSV file in your direct messages with the app.');
    expect(out).toMatch(
      /< files\.completeUploadExternal: audit-default-[\d-]+\.csv \(\d+ bytes, UTF-8 with a byte-order mark\) shared in D/,
    );
    const csv = out.split('< files.completeUploadExternal:')[1]?.split('\n').slice(1) ?? [];
    expect(csv[0]).toBe(
      '  "time","app","kind","target","before","after","requester","approver","outcome","reference","steps","reason"',
    );
    expect(csv[1]).toMatch(/"user-role","user cometchat-uid-4","role: premium","role: vip"/);
    expect(csv[2]).toMatch(/"user-role","user cometchat-uid-4","role: vip","role: premium"/);
  }, 60_000);
});
