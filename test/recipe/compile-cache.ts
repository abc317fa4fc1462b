import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../crash/child-app.ts';

// The recipe's look at Node's compile cache (the Dockerfile's ENV NODE_COMPILE_CACHE, filled by
// its `node dist/app.mjs --fill-compile-cache` step): that the step filled it, that a start of the CMD reads
// every module from it, and how long a start takes with it and without it.

/** How a final stage's CMD is started: its node options and entry, run from its directory. */
export interface Launch {
  dir: string;
  args: string[];
  env: Record<string, string>;
}

/** Entries in a compile cache directory (one folder per Node version, user and V8 flags). */
export function cachedModules(directory: string): number {
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .reduce((sum, tag) => sum + readdirSync(join(directory, tag.name)).length, 0);
}

export interface CacheUse {
  /** Modules whose compiled code came from the cache. */
  accepted: string[];
  /** Modules compiled afresh: none in the cache, or an entry that no longer matched. */
  compiled: { module: string; status: string }[];
}

/**
 * What a start did with the cache, from Node's own account of it (NODE_DEBUG_NATIVE=
 * COMPILE_CACHE): one line per module, "V8 code cache for <kind> <module> was <status>".
 */
export function cacheUse(debugOutput: string): CacheUse {
  const use: CacheUse = { accepted: [], compiled: [] };
  for (const [, module = '', status = ''] of debugOutput.matchAll(
    /V8 code cache for (?:ESM|CommonJS) (\S+) was ([a-z ]+),/g,
  )) {
    if (status === 'accepted') use.accepted.push(module);
    else use.compiled.push({ module, status });
  }
  return use;
}

/** Spawn to the first 200 on GET /healthz; the process is then killed (the cache left as is). */
export async function timedStart(
  launch: Launch,
  extraEnv: Record<string, string> = {},
): Promise<{ ms: number; stderr: string }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, launch.args, {
    cwd: launch.dir,
    env: { ...launch.env, ...extraEnv, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = started + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${stderr}`);
      if (performance.now() > deadline) throw new Error('no /healthz 200 within 30 s');
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return { ms: performance.now() - started, stderr };
      await sleep(5);
    }
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** `rounds` starts with the cache and as many without it, alternating; the times of each. */
export async function startTimes(launch: Launch, rounds: number) {
  const { NODE_COMPILE_CACHE: _, ...withoutCache } = launch.env;
  const times = { withCache: [] as number[], withoutCache: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    times.withCache.push((await timedStart(launch)).ms);
    times.withoutCache.push((await timedStart({ ...launch, env: withoutCache })).ms);
  }
  return times;
}

/** "median 312 ms (298-340: 301, 312, ...)" */
export function summary(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const spread = `${sorted[0]?.toFixed(0)}-${sorted.at(-1)?.toFixed(0)}`;
  return `median ${median.toFixed(0)} ms (${spread}: ${values.map((v) => v.toFixed(0)).join(', ')})`;
}
