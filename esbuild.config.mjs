import { build } from 'esbuild';

// `npm run build`'s second step: the app and every dependency it runs with bundled, which the
// image runs (the Dockerfile's CMD: dist/app.mjs). A start then reads two files instead of
// resolving and loading some 900 modules one by one from dist/ and node_modules: with Node's
// compile cache, spawn to /healthz fell from 1.7 to 1.3 times bare Bolt's (`npm run
// bench:startup`, BENCHMARKS.md). tsc still writes dist/ (types checked, the healthcheck).
// Minified for less to parse; names kept, so stack traces and logs name the app's functions;
// the source maps beside them map a trace back to src/ (`node --enable-source-maps`).
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  keepNames: true,
  legalComments: 'none',
  sourcemap: 'external',
  logLevel: 'warning',
  // CommonJS dependencies (Bolt, its HTTP stack) call require() for Node's own modules; an ES
  // module has none, so the bundle makes one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};

// Two files. dist/app.mjs is src/main.ts alone: it checks the Node version and only then imports
// dist/run.mjs, the app. In one file, node:sqlite's import would fail on an older Node before
// the check could run. (esbuild's own code splitting would also cut a file per dynamic import
// inside the app, which a start would then read one by one.)
await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile: 'dist/app.mjs',
  plugins: [
    {
      name: 'run-apart',
      setup(plugin) {
        plugin.onResolve({ filter: /^\.\/run\.ts$/ }, () => ({
          path: './run.mjs',
          external: true,
        }));
      },
    },
  ],
});
await build({ ...common, entryPoints: ['src/run.ts'], outfile: 'dist/run.mjs' });
