import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Launch, timedStart } from './compile-cache.ts';

// The README's production install outside a container, as an operator types it once the app
// is built (`npm ci && npm run build`): `npm ci --omit=dev`, then `npm start`'s command. npm runs
// the project's `prepare` step on that install, which has no build tools: it must keep dist/
// and exit 0 (it once ran tsc and failed with 127), leave no development dependency, and the
// app must then start.

/** What the clone holds that `npm ci --omit=dev` and a start read; dist/ as `npm run build` made it. */
const CLONE_FILES = ['package.json', 'package-lock.json', 'prepare.mjs', 'dist'];

export async function checkProductionInstall(
  root: string,
  work: string,
  env: Record<string, string>,
  say: (line: string) => void,
): Promise<void> {
  const dir = join(work, 'production-install');
  mkdirSync(dir);
  for (const file of CLONE_FILES) cpSync(join(root, file), join(dir, file), { recursive: true });
  say('\nnpm ci --omit=dev (outside a container, with its prepare step)');
  const output = execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  if (!output.includes('dist/ is kept')) {
    throw new Error(`npm ci --omit=dev did not say that it kept dist/:\n${output}`);
  }
  for (const dev of ['typescript', 'esbuild', 'node', 'vitest']) {
    if (existsSync(join(dir, 'node_modules', dev))) {
      throw new Error(`npm ci --omit=dev installed the development dependency ${dev}`);
    }
  }
  say('npm ci --omit=dev: exit 0, dist/ kept, no development dependency');
  const start = JSON.parse(
    execFileSync('npm', ['pkg', 'get', 'scripts.start'], { cwd: dir, encoding: 'utf8' }),
  );
  const [command = '', ...args] = String(start).split(/\s+/);
  if (command !== 'node') throw new Error(`npm start does not run node: ${start}`);
  const launch: Launch = { dir, args, env: { ...env, STORE_URL: 'memory:' } };
  const { ms } = await timedStart(launch);
  say(`npm start's command (${start}): /healthz 200 after ${Math.round(ms)} ms`);
}
