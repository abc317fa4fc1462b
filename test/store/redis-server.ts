import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll } from 'vitest';
import { onPath } from '../../bench/redis.ts';

/** A real redis-server on loopback, with nothing persisted, for one test file. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 5_000;

/**
 * Whether the Redis suites are skipped: only outside CI, and only when no `redis-server` is on
 * PATH, so that `npm test` passes on a fresh machine. Under CI they always run, and fail with
 * the message below when the server is missing. Each Redis suite is tagged `redis` and skipped
 * with `describe.skipIf(skipRedisSuites)`; test/reporters/redis-notice.ts says so at the end of
 * the run.
 */
export const skipRedisSuites = !process.env.CI && !onPath('redis-server');

const MISSING = process.env.CI
  ? 'redis-server is not installed, but CI must run the Redis store tests: .ci/run installs it ' +
    '(apt-get update && apt-get install -y redis-server); check that step ran.'
  : 'redis-server is not installed. The Redis store tests need a real server: install it with ' +
    '`apt-get update && apt-get install -y redis-server` (as root), then run the tests again.';

/**
 * Starts `redis-server` on a free loopback port (or `port`, to restart one at the same address)
 * and resolves once it answers PING. Rejects (never skips) when redis-server is not installed.
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-test-'));
  const port = options.port ?? (await freePort());
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'ENOENT' ? new Error(MISSING) : error);
    });
    child.once('exit', (code, signal) => {
      resolve(new Error(`redis-server exited (${signal ?? code}) before answering:\n${output}`));
    });
  });

  // A test worker that dies before its afterAll must not leave the server running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    await terminate(child);
    await rm(dir, { recursive: true, force: true });
  };

  const failure = await Promise.race([waitForPong(port).then(() => undefined), exited]);
  if (failure) {
    await stop();
    throw failure;
  }
  return { port, url: `redis://127.0.0.1:${port}`, stop };
}

/**
 * Starts one server for the calling test file (or describe block) and stops it after. The
 * returned getter throws the start-up failure, so that without redis-server every test that
 * needs it fails (and is counted as failed), rather than being skipped by a failed hook.
 */
export function useRedisServer(): () => RedisServer {
  let server: RedisServer | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      server = await startRedisServer();
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server) return server;
    throw failure ?? new Error('redis-server has not been started yet');
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

async function waitForPong(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) {
      throw new Error(`redis-server on port ${port} did not answer within ${READY_TIMEOUT_MS} ms`);
    }
    await sleep(20);
  }
}

/** One PING over a raw socket: true when the answer is +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exit;
  clearTimeout(timer);
}
