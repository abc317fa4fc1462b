import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { freePort } from './processes.ts';

// A redis-server of the bench's own, on a free loopback port with nothing persisted, for the
// figures taken on the Redis store (bench:replicas, the intake). No running Redis is touched.

/** How to get the server, said wherever a figure on Redis could not be taken. */
export const REDIS_INSTALL_HINT =
  'install it (Debian or Ubuntu: `sudo apt-get update && sudo apt-get install -y redis-server`; macOS: `brew install redis`)';

/** Whether an executable file named `command` is in one of PATH's directories. */
export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    if (dir === '') return false;
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

export interface BenchRedis {
  url: string;
  /** The server's process: its CPU is the store's share of what the app's work costs. */
  pid: number;
  stop(): Promise<void>;
}

/** Starts redis-server and resolves once it takes connections (10 s at most). */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  await new Promise<void>((resolve, reject) => {
    const deadline = performance.now() + 10_000;
    child.once('error', () =>
      reject(new Error(`bench: redis-server could not be started: ${REDIS_INSTALL_HINT}`)),
    );
    const poll = () => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', () => {
        if (performance.now() > deadline) {
          reject(new Error('bench: redis-server did not take connections within 10 s'));
        } else setTimeout(poll, 50);
      });
    };
    poll();
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid ?? -1, stop };
}
