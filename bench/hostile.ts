import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_ENTRY, spawnSubject } from './processes.ts';
import { appEnv, signedCommand, startStandIns } from './stack.ts';

// `npm run bench:hostile`: what requests that need no signing secret, and one oversized
// CometChat answer, cost the app as it ships (dist/main.js, the Dockerfile's node options):
// resident memory (the kernel's VmRSS, and its peak VmHWM) before and after 100 concurrent
// unsigned 3.9 MB posts, with and without a Content-Length; how long a connection that sends
// nothing, or a byte a second, stays open; and memory after a 50 MB answer to the role list.

const MIB = 1024 * 1024;
const POST_BYTES = Math.round(3.9 * MIB);
const CONCURRENT = 100;

const say = (line: string) => process.stdout.write(`${line}\n`);

/** VmRSS and VmHWM of a process, in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Posts `bytes` of junk, unsigned; resolves with the status, or the error's name. */
async function junkPost(port: number, bytes: number, chunked: boolean): Promise<string> {
  const body = Buffer.alloc(bytes, 0x61);
  const init: RequestInit & { duplex?: 'half' } = chunked
    ? { method: 'POST', body: new Blob([body]).stream(), duplex: 'half' }
    : { method: 'POST', body };
  try {
    const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
      ...init,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await response.arrayBuffer();
    return String(response.status);
  } catch (error) {
    return error instanceof Error
      ? error.cause instanceof Error
        ? error.cause.message
        : error.name
      : 'error';
  }
}

/** Opens a connection that sends `trickle` (a byte a second) or nothing; resolves with its life in s. */
function idleConnection(port: number, trickle: boolean): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    const text = 'POST /slack/events HTTP/1.1\r\nhost: app\r\n';
    let sent = 0;
    const timer = trickle
      ? setInterval(() => {
          if (sent < text.length && !socket.destroyed) socket.write(text[sent++] ?? '');
        }, 1_000)
      : undefined;
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve((performance.now() - started) / 1000);
    });
  });
}

async function main(): Promise<void> {
  const stack = await startStandIns();
  const dir = await mkdtemp(join(tmpdir(), 'cometchat-hostile-'));
  const app = await spawnSubject({
    name: 'app',
    entry: APP_ENTRY,
    env: appEnv(stack.slack, stack.sandbox, join(dir, 'state.sqlite')),
    logFile: join(dir, 'app.log'),
  });
  const row = (label: string) => {
    const { rss, peak } = memoryOf(app.pid);
    say(
      `${label.padEnd(58)} RSS ${rss.toFixed(0).padStart(4)} MiB   peak ${peak.toFixed(0).padStart(4)} MiB`,
    );
  };
  try {
    say(`Node ${process.version}; the app: ${APP_ENTRY} (pid ${app.pid}); logs in ${dir}`);
    row('started');
    for (const chunked of [false, true]) {
      const statuses = await Promise.all(
        Array.from({ length: CONCURRENT }, () => junkPost(app.port, POST_BYTES, chunked)),
      );
      const counts = new Map<string, number>();
      for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
      row(
        `after ${CONCURRENT} unsigned 3.9 MB posts, ${chunked ? 'chunked' : 'with a length'} (${[...counts].map(([s, n]) => `${n}× ${s}`).join(', ')})`,
      );
    }
    const [silent, trickling] = await Promise.all([
      idleConnection(app.port, false),
      idleConnection(app.port, true),
    ]);
    say(`a connection that sends nothing was closed after ${silent.toFixed(1)} s`);
    say(`a connection that sends a byte a second was closed after ${trickling.toFixed(1)} s`);

    stack.sandbox.inject({
      kind: 'malformed',
      method: 'GET',
      pathIncludes: '/v3/roles',
      rawBody: `{"data":[${'"x",'.repeat(Math.floor((50 * MIB) / 4))}"x"]}`,
    });
    const mark = stack.slack.responses.length;
    const command = signedCommand(stack.driver, 'roles');
    await fetch(`http://127.0.0.1:${app.port}/slack/events`, {
      method: 'POST',
      headers: command.headers,
      body: command.body,
    });
    const reply = await stack.slack.nextResponse(mark, 30_000);
    row('after a 50 MB answer to the role list');
    say(`  the reply: ${JSON.stringify(reply.body).slice(0, 160)}…`);
    say(`  CometChat requests for it: ${stack.sandbox.requests.length}`);
  } finally {
    await app.stop();
    await stack.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:hostile: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
