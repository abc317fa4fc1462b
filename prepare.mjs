import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

// npm's `prepare` step (after `npm ci`): build dist/ when the tools to build it are installed.
// `npm ci --omit=dev` (a production install) has no TypeScript or esbuild; it then keeps the
// dist/ an earlier `npm ci && npm run build` made, or says what to run, and does not fail.
const canBuild = ['typescript', 'esbuild'].every((name) => {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
});
if (canBuild) {
  execSync('npm run build', { stdio: 'inherit' });
} else if (existsSync('dist/app.mjs')) {
  console.log('prepare: no development dependencies here, so dist/ is kept as it was built.');
} else {
  console.log(
    'prepare: no development dependencies here and no dist/ yet: build it first with `npm ci && npm run build`, then `npm ci --omit=dev`.',
  );
}
