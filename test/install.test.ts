import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// `npm ci` runs a dependency's install script only when package.json's allowScripts covers it,
// and warns about each one it skipped. npm decides what an entry covers (a pinned version is
// matched against the lock's resolved address), so the check is npm's own listing.
describe('npm ci', () => {
  it("leaves no dependency's install script unreviewed by allowScripts", () => {
    const listed = execFileSync('npm', ['install-scripts', 'ls'], { encoding: 'utf8' });
    expect(listed.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
