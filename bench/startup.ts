import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../offline/cometchat-standin/server.ts';
import { startSlackStandIn } from '../offline/slack-standin/server.ts';
import { OFFLINE_SECRETS, offlineEnv } from '../offline/stack/offline-stack.ts';
import { APP_ENTRY, freePort, SHIPPED_NODE_ARGS } from './processes.ts';

// `npm run bench:startup`: spawn to the first /healthz 200, for the sources through tsx (how
// `npm start` ran before the build) and for the compiled app with plain node (`npm start` now),
// alternating, ROUNDS times each; medians. Run `npm run build` first.

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 9);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = import.meta.resolve('tsx');

async function once(args: string[], env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), LOG_LEVEL: 'error' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - started;
      await sleep(5);
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
const slack = await startSlackStandIn();
const env = { ...offlineEnv(sandbox, slack, 'http'), STORE_URL: 'memory:' };
const runs = { tsx: [] as number[], node: [] as number[] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    runs.tsx.push(await once([...SHIPPED_NODE_ARGS, '--import', TSX, 'src/main.ts'], env));
    runs.node.push(await once([...SHIPPED_NODE_ARGS, APP_ENTRY], env));
  }
} finally {
  await sandbox.close();
  await slack.close();
}
const line = (name: string, values: number[]) =>
  `${name.padEnd(28)} median ${median(values).toFixed(0)} ms  (${values.map((v) => v.toFixed(0)).join(', ')})`;
process.stdout.write(
  `start-up, spawn to first /healthz 200, ${ROUNDS} rounds each, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n${line('node --import tsx src/main.ts', runs.tsx)}\n${line('node dist/main.js', runs.node)}\nratio ${(median(runs.node) / median(runs.tsx)).toFixed(2)}\n`,
);
