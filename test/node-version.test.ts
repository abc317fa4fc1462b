import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { olderNodeSentence } from '../src/node-version.ts';

describe('olderNodeSentence', () => {
  it('names the Node needed, the one running and npm start on an older Node', () => {
    expect(olderNodeSentence('20.20.2', '>=24.21')).toBe(
      "This app needs Node.js 24.21 or newer, and this is 20.20.2: run it with `npm start` after `npm ci`, which installs the project's own Node.\n",
    );
  });

  it.each([
    ['24.20.9', '>=24.21', true],
    ['24.21.0', '>=24.21', false],
    ['24.21.1', '>=24.21.1', false],
    ['24.21.0', '>=24.21.1', true],
    ['25.0.0', '>=24.21', false],
    ['23.99.99', '>=24', true],
    ['v24.21.0', '>= 24.21', false],
  ])('%s against %s: older %s', (running, engines, older) => {
    expect(olderNodeSentence(running, engines) !== undefined).toBe(older);
  });

  it('refuses an engines range it cannot read, rather than letting any Node through', () => {
    expect(() => olderNodeSentence('24.21.0', '^24.21')).toThrow('engines.node is not');
  });

  it("reads package.json's own engines.node, which this test's Node satisfies", () => {
    const { engines } = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(olderNodeSentence(process.versions.node, engines.node)).toBeUndefined();
    expect(olderNodeSentence('20.20.2', engines.node)).toContain('This app needs Node.js 24');
  });
});

describe('the bundle on a Node older than package.json asks for', () => {
  it('stops with the sentence before it loads the app', () => {
    // The built launcher beside a package.json asking for a Node no one has, and no app: were
    // the app imported first, the start would fail on the missing dist/run.mjs instead.
    const root = mkdtempSync(join(tmpdir(), 'old-node-'));
    mkdirSync(join(root, 'dist'));
    copyFileSync('dist/app.mjs', join(root, 'dist', 'app.mjs'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ engines: { node: '>=999' } }));
    const run = spawnSync(process.execPath, [join(root, 'dist', 'app.mjs')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(olderNodeSentence(process.versions.node, '>=999'));
  });
});
