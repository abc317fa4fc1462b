import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  confirmationOf,
  openEditor,
  submitView,
  switchCategory,
  withFieldSet,
} from '../../offline/stack/editor-steps.ts';
import type { OfflineStack } from '../../offline/stack/offline-stack.ts';

// The app in a child process, started the way production starts it, and a change driven to
// "Apply": shared by the crash test (SIGKILL) and the graceful stop test (SIGTERM).

/** The key every change sets: a MIME type no other change uses marks each one. */
export const KEY = 'sendMessage.allowedMimeTypes';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = import.meta.resolve('tsx');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | undefined>) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts `src/main.ts` the way production does, and resolves once /healthz answers. */
export async function startApp(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', TSX, 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    // Logs (JSON on stdout) only when asked for, with CHILD_LOG_LEVEL.
    stdio: ['ignore', process.env.CHILD_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
  await waitFor('the app to answer /healthz', 20_000, async () => {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`);
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    return response.ok ? true : undefined;
  });
  return child;
}

export function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  return exited;
}

/** One change of KEY through the editor, up to the moment "Apply" is acknowledged. */
export async function applyOne(stack: OfflineStack, marker: string): Promise<void> {
  const editor = await openEditor(stack, 'default');
  const messages = await switchCategory(stack, editor, 'Messages');
  const review = await submitView(stack, messages, withFieldSet(messages, KEY, marker));
  if (review.response_action !== 'push')
    throw new Error(`review answered ${JSON.stringify(review)}`);
  const confirmation = confirmationOf(stack, editor);
  if (!confirmation) throw new Error('no confirmation view');
  await submitView(stack, confirmation, {});
}
