import { flushCompileCache, getCompileCacheDir } from 'node:module';
// What main.ts imports: every module a start loads, main.ts alone excepted (importing it would
// start the app, so it is compiled at each start; it is one small file).
import './app.ts';
import './config.ts';
import './error-cause.ts';
import './features/index.ts';
import './log.ts';
// What only some settings load, on demand: the stores (SQLite, the default, and Redis).
import './store/sqlite-store.ts';
import './store/redis-store.ts';
import { loadOpenTelemetry } from './observe/tracing.ts';

// Fills Node's compile cache for the image: the Dockerfile runs this once in its runtime stage,
// where the app runs from, as the user and with the node options its CMD runs with (the cache
// is kept per Node version, user and V8 flags), with NODE_COMPILE_CACHE set as the image sets
// it. It loads the modules a start can load and starts nothing; Node keeps V8's compiled code
// of each, and a start of the image then reads that instead of compiling dist/ and node_modules
// again (`npm run bench:startup`). Node checks each entry against its file's contents: a file
// changed since is compiled afresh, never run from a stale entry.

if (getCompileCacheDir() === undefined) {
  process.stderr.write('NODE_COMPILE_CACHE is not set (or the directory cannot be written)\n');
  process.exit(1);
}
// Tracing's modules too (loaded when an OTLP endpoint is configured).
await loadOpenTelemetry();
flushCompileCache();
process.stdout.write(`compile cache filled: ${getCompileCacheDir()}\n`);
