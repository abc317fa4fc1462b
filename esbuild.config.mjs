import { build } from 'esbuild';

// `npm run build`'s second step: the app and every dependency it runs with in one file,
// dist/app.mjs, which the image runs (the Dockerfile's CMD). A start then reads one file instead
// of resolving and loading some 900 modules one by one from dist/ and node_modules: with Node's
// compile cache, spawn to /healthz fell from 1.7 to 1.3 times bare Bolt's (`npm run
// bench:startup`, BENCHMARKS.md). tsc still writes dist/ (types checked, the healthcheck).
// Minified for less to parse; names kept, so stack traces and logs name the app's functions;
// the source map beside it maps a trace back to src/ (`node --enable-source-maps`).
await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/app.mjs',
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
});
