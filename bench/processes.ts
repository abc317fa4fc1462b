import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GcPause } from './gc-pauses.ts';

// Everything measured runs in a child process of its own, started the way it is started in
// production (the Dockerfile's CMD, read below): resident size is then the subject's alone (not
// the load generator's, the sandbox's or the stand-in's records), start-up is a real cold start,
// and the load generator never shares an event loop with what it measures. No subject runs through
// tsx, whose loader the shipped app never carries: it made no difference to CPU per command
// (interleaved, with and without it), but it held 3 MB of heap and 25 MB of resident memory more
// and doubled the app's start-up (BENCHMARKS.md in git history, "fifth pass").

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** How the image starts the app: node, its options, then the entry file. */
export interface ShippedCommand {
  nodeArgs: string[];
  entry: string;
}

/**
 * The final `CMD` of a Dockerfile (exec form, run by node), split into node's options and the
 * entry. The Dockerfile is where the command is defined; the bench reads it rather than keeping
 * a copy that could drift.
 */
export function shippedCommand(dockerfile: string): ShippedCommand {
  const cmd = dockerfile
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^CMD\s/i.test(line))
    .at(-1);
  if (cmd === undefined) throw new Error('the Dockerfile has no CMD');
  let parsed: unknown;
  try {
    parsed = JSON.parse(cmd.slice(3));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) {
    throw new Error(`the Dockerfile's CMD is not an exec-form JSON array: ${cmd}`);
  }
  const [command, ...rest] = parsed as string[];
  const entry = rest.at(-1);
  if (command !== 'node' || entry === undefined || !/\.m?js$/.test(entry)) {
    throw new Error(`the Dockerfile's CMD does not run node on a .js or .mjs file: ${cmd}`);
  }
  return { nodeArgs: rest.slice(0, -1), entry };
}

const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const SHIPPED = shippedCommand(DOCKERFILE);
/**
 * The app as it ships: the build of src/ (`npm run build`, which every bench script runs first,
 * so the figures are always those of the sources as they are).
 */
export const APP_ENTRY = SHIPPED.entry;
/**
 * The runtime options the app ships with (the CMD's, between node and the entry). Every subject
 * is started with them, the baselines too, so that a ratio compares code under the same runtime,
 * not settings.
 */
export const SHIPPED_NODE_ARGS: readonly string[] = SHIPPED.nodeArgs;
/**
 * The same app as tsc writes it, one file per module of src/ and node_modules beside it (the
 * image runs the bundle, APP_ENTRY): for the tools that say which file the time or the memory
 * went to (bench:profile, bench:alloc), which a single bundled file cannot tell.
 */
export const MODULES_ENTRY = 'dist/main.js';
/**
 * The source file a path of the build was compiled from (`dist/cometchat/client.js` →
 * `src/cometchat/client.ts`; the build keeps src/'s layout), so profiles name the app's files
 * as people edit them. Other paths are returned as they are.
 */
export function sourcePath(inRepo: string): string {
  return inRepo.replace(/^dist\/(.*)\.js$/, 'src/$1.ts');
}
const PROBE = pathToFileURL(fileURLToPath(new URL('./probe.mjs', import.meta.url))).href;

/**
 * The image's compile cache step: the Dockerfile sets `ENV NODE_COMPILE_CACHE=...` and fills the
 * cache with a `RUN node [options] <entry> --fill-compile-cache` line (src/main.ts); its options
 * and the entry it runs.
 */
export function compileCacheStep(dockerfile: string): ShippedCommand {
  const lines = dockerfile.split('\n').map((line) => line.trim());
  if (!lines.some((line) => /^ENV\s+NODE_COMPILE_CACHE=\S/.test(line))) {
    throw new Error('the Dockerfile sets no NODE_COMPILE_CACHE');
  }
  const words = lines
    .filter((line) => /^RUN\s+node\s.*\s--fill-compile-cache$/.test(line))
    .at(-1)
    ?.split(/\s+/)
    .slice(2, -1);
  const entry = words?.at(-1);
  if (words === undefined || entry === undefined || !/\.m?js$/.test(entry)) {
    throw new Error(
      'the Dockerfile has no `RUN node ... <entry> --fill-compile-cache` step to fill the compile cache',
    );
  }
  return { nodeArgs: words.slice(0, -1), entry };
}

/** The environment that points a subject at a compile cache, as the image's ENV does. */
export function compileCacheEnv(directory: string): Record<string, string> {
  return { NODE_COMPILE_CACHE: directory };
}

/**
 * Fills `directory` as the image's build fills its cache (the Dockerfile's step, from the
 * repository as spawnSubject runs the app from it), under the runtime flags every subject gets
 * (Node keeps a cache per V8 flags, and --expose-gc is one): then a subject started with
 * `compileCacheEnv(directory)` and the same `nodeArgs` reads it, as the image's start does.
 */
export function fillCompileCache(directory: string, nodeArgs: readonly string[] = []): void {
  const step = compileCacheStep(DOCKERFILE);
  const args = [
    ...subjectNodeArgs(step.nodeArgs, nodeArgs, []),
    step.entry,
    '--fill-compile-cache',
  ];
  execFileSync(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(directory) },
    stdio: 'pipe',
  });
}

/**
 * Node's options for a subject: the image's (the CMD's, or its cache step's), the caller's,
 * then the probe and any preloads.
 */
function subjectNodeArgs(
  imageArgs: readonly string[],
  nodeArgs: readonly string[],
  preload: readonly string[],
): string[] {
  return [
    '--expose-gc',
    ...imageArgs,
    ...nodeArgs,
    '--import',
    PROBE,
    ...preload.flatMap((module) => ['--import', module]),
  ];
}

export interface MemorySnapshot {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** Resident bytes of V8's young generation (new space), which V8 grows and shrinks. */
  young: number;
  gc: boolean;
}

export interface Subject {
  name: string;
  port: number;
  pid: number;
  /** From spawn to the first 200 on GET /healthz. */
  startupMs: number;
  logFile: string;
  memory(): Promise<MemorySnapshot>;
  /** The collector's pauses since the last call (the first: since start). */
  gcPauses(): Promise<GcPause[]>;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  name: string;
  /** Entry file, relative to the repository root: JavaScript (no loader is preloaded). */
  entry: string;
  env: Record<string, string>;
  logFile: string;
  /** Node options before the entry, e.g. --cpu-prof (not allowed in NODE_OPTIONS). */
  nodeArgs?: readonly string[];
  /** More modules to preload, after the probe (JavaScript too). */
  preload?: readonly string[];
  /** A command that runs node for the subject (memory.ts: joining a cgroup, then exec). */
  launcher?: readonly string[];
}

/** A port that was free a moment ago (the child binds it; a clash fails the start loudly). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('bench: no free port');
  return address.port;
}

export async function spawnSubject(options: SpawnOptions): Promise<Subject> {
  const port = await freePort();
  const log = openSync(options.logFile, 'w');
  const started = performance.now();
  const [command, ...launcherArgs] = [...(options.launcher ?? []), process.execPath];
  const child = spawn(
    command ?? process.execPath,
    [
      ...launcherArgs,
      ...subjectNodeArgs(SHIPPED_NODE_ARGS, options.nodeArgs ?? [], options.preload ?? []),
      options.entry,
    ],
    {
      cwd: ROOT,
      // Only what the subject needs: nothing from the caller's shell steers it.
      env: { PATH: process.env.PATH ?? '', ...options.env, PORT: String(port) },
      stdio: ['ignore', log, log, 'ipc'],
    },
  );
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await waitForHealth(port, child, exited, options);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const startupMs = performance.now() - started;
  return {
    name: options.name,
    port,
    pid: child.pid ?? -1,
    startupMs,
    logFile: options.logFile,
    memory: () => ask<MemorySnapshot>(child, options.name, 'memory'),
    gcPauses: async () => (await ask<{ pauses: GcPause[] }>(child, options.name, 'gc')).pauses,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitForHealth(
  port: number,
  child: ChildProcess,
  exited: Promise<number | null>,
  options: SpawnOptions,
): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    if (gone) {
      throw new Error(
        `bench: ${options.name} exited with ${child.exitCode} before answering /healthz:\n${tail(options.logFile)}`,
      );
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`bench: ${options.name} did not answer /healthz within 30 s`);
}

/** Asks the subject's probe (probe.mjs) over the IPC channel and waits for its answer. */
function ask<T>(child: ChildProcess, name: string, what: 'memory' | 'gc'): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`bench: ${name} did not answer "${what}"`));
    }, 10_000);
    const onMessage = (message: unknown) => {
      if ((message as { kind?: string })?.kind !== what) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.send(what);
  });
}

/** The last lines of a log, for an error message. */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Warnings and errors a subject logged (JSON lines in ECS: `log.level` warn and up). */
export function logProblems(file: string): { warnings: number; errors: number; samples: string[] } {
  let warnings = 0;
  let errors = 0;
  const samples: string[] = [];
  const text = (() => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  })();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let record: { 'log.level'?: string; message?: string };
    try {
      record = JSON.parse(line) as { 'log.level'?: string; message?: string };
    } catch {
      continue;
    }
    const level = record['log.level'];
    if (level === 'error' || level === 'fatal') errors += 1;
    else if (level === 'warn') warnings += 1;
    else continue;
    if (samples.length < 3) samples.push(String(record.message ?? line).slice(0, 160));
  }
  return { warnings, errors, samples };
}
