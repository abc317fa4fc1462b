import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run try -- moderation` as a person runs it: the queue as a moderator sees it, one flagged
// message approved through its review, the queue again without it, and its audit record; then a
// channel subscribed to moderation alerts and the post of a blocked message, without its text.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run try -- moderation', () => {
  it('shows the queue, approves its first flagged message once, and lists the record', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'offline/try.ts', 'moderation'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'error' },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain('13 messages waiting, newest first · page 1 of 2');
    expect(out).toContain('[ Approve ] [ Block ] [ Details ]');
    expect(out).toContain('[ Deliver ] [ Keep blocked ] [ Details ]');
    expect(out).toContain('Approve message `9001` from `banned-spammer`?');
    expect(out).toContain('Applied to message `9001`: the message is now approved.');
    expect(out).toContain('12 messages waiting, newest first');
    expect(out).toContain('status: flagged → approved');
    const post = out.slice(out.indexOf('(posted in #call-alerts)'));
    expect(post).toContain('A rule blocked a message.');
    expect(post).toContain('Message `9101`');
    expect(post).toContain('[ Review ] [ Claim ]');
    // The seeded message's text, shown to the moderator in the queue above, is not in the post.
    const seededText = /`9101`[^\n]*\n(?:│[^\n]*\n)*?│ > ([^\n]+)/.exec(out)?.[1];
    expect(seededText).toBeTruthy();
    expect(post).not.toContain(seededText);
  }, 60_000);
});
