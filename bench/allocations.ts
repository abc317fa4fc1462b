import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Prepared, pacedLoad } from './load.ts';
import { MODULES_ENTRY, sourcePath, spawnSubject } from './processes.ts';
import { captureStep, SAME_IN_BOLT_ENTRY, sameInBoltEnv } from './same-in-bolt.ts';
import {
  appEnv,
  commandText,
  drain,
  drainReplies,
  editorsShown,
  SIGNING_SECRET,
  signedCommand,
  startStandIns,
} from './stack.ts';

// `npm run bench:alloc [-- help|roles|call|calls|perms|bolt|same:call ...]`: what each command
// allocates, in KB per command, by the function that allocated it (self) and by what it was
// allocated under (inclusive). `bolt` is the bare Bolt app of `npm run bench`; `same:call` is the
// same command in bare Bolt, scripted from the app first as `npm run bench` scripts it, so that
// what the app keeps can be set beside what the same requests and reply keep. At 200 commands a
// second the acknowledgement p99 follows the number of scavenges in a round, which follows allocation:
// this is where to look for it. The app runs at 100/s: warm-up, then ALLOC_SECONDS sampled.
// ALLOC_SURVIVORS=1 counts only what outlived a scavenge, which is what makes a scavenge long
// (see BENCHMARKS.md, "What the tails follow").

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBE = new URL('./alloc-probe.mjs', import.meta.url).href;
const RATE = 100;
const PATH = '/slack/events';
const WARM_UP_MS = 3_000;
const SECONDS = Number(process.env.ALLOC_SECONDS ?? 5);
const SURVIVORS = process.env.ALLOC_SURVIVORS === '1';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

function frameName(frame: HeapNode['callFrame']): string {
  const path = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  // No file: V8's builtins, or code made at run time (zod compiles its object parsers).
  const inRepo = relative(ROOT, path);
  const source = sourcePath(inRepo);
  const where = source.replace(/^node_modules\//, '') || '(builtin or generated)';
  // A line of the build is not the same line of the source: the app's files go without one.
  const line = frame.lineNumber > 0 && source === inRepo ? `:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'} ${where}${line}`;
}

/** Bytes by function allocating (self) and by every function on the stack (inclusive). */
function tally(head: HeapNode): { self: Map<string, number>; inclusive: Map<string, number> } {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const walk = (node: HeapNode, stack: readonly string[]) => {
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const on = stack.includes(name) ? stack : [...stack, name];
    for (const frame of on) inclusive.set(frame, (inclusive.get(frame) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, on);
  };
  walk(head, []);
  return { self, inclusive };
}

function top(bytes: Map<string, number>, commands: number, count: number): string[] {
  return [...bytes.entries()]
    .filter(([name]) => !name.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, b]) => `${(b / 1024 / commands).toFixed(1).padStart(8)} KB  ${name}`);
}

type Stack = Awaited<ReturnType<typeof startStandIns>>;

/**
 * Writes the script of the same in bare Bolt for one command, as `npm run bench` makes it: the
 * app, warmed with the command, runs it once more, and what it did outside is the script.
 */
async function scriptFromApp(stack: Stack, next: () => Prepared, text: string, work: string) {
  const { sandbox, slack } = stack;
  const app = await spawnSubject({
    name: 'app (scripting)',
    entry: MODULES_ENTRY,
    env: appEnv(slack, sandbox, 'memory:'),
    logFile: join(work, 'scripting-app.log'),
  });
  try {
    const opensView = text === commandText('perms');
    const warm = await pacedLoad({
      port: app.port,
      path: PATH,
      rate: RATE,
      durationMs: 2_000,
      next,
    });
    // The warm-up's replies land before the command is scripted, never in its place.
    const ok = warm.filter((s) => s.status === 200).length;
    if (opensView) await drain(() => editorsShown(slack), ok);
    else await drainReplies(slack, ok);
    const step = await captureStep({ port: app.port, command: next, slack, sandbox, opensView });
    const scriptFile = join(work, 'same-in-bolt.json');
    await writeFile(scriptFile, JSON.stringify({ [text]: step }));
    return scriptFile;
  } finally {
    await app.stop();
  }
}

/** The subject's entry and settings: the app, bare Bolt, or the same in bare Bolt. */
async function subjectOf(command: string, stack: Stack, next: () => Prepared, work: string) {
  if (command === 'bolt') {
    return {
      entry: 'bench/baselines/bare-bolt.mjs',
      env: { SLACK_SIGNING_SECRET: SIGNING_SECRET },
    };
  }
  const same = command.match(/^same:(.+)$/)?.[1];
  if (same === undefined) {
    return { entry: MODULES_ENTRY, env: appEnv(stack.slack, stack.sandbox, 'memory:') };
  }
  const scriptFile = await scriptFromApp(stack, next, commandText(same), work);
  return { entry: SAME_IN_BOLT_ENTRY, env: sameInBoltEnv(stack.slack, scriptFile) };
}

async function measure(command: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), `alloc-${command.replace(':', '-')}-`));
  const out = join(work, 'alloc.heapprofile');
  const stack = await startStandIns();
  const { driver, close } = stack;
  const text = commandText(command === 'bolt' ? 'help' : command.replace(/^same:/, ''));
  const keyBy = text === commandText('perms') ? 'trigger_id' : 'response_url';
  const next = () => signedCommand(driver, text, keyBy);
  const { entry, env } = await subjectOf(command, stack, next, work);
  const started = Date.now();
  // The profile's window is set from the start: the app is healthy, then warmed up, first.
  const startMs = 4_000 + WARM_UP_MS;
  const subject = await spawnSubject({
    name: command,
    entry,
    env: {
      ...env,
      ALLOC_OUT: out,
      ALLOC_SURVIVORS: process.env.ALLOC_SURVIVORS ?? '0',
      ALLOC_START_MS: String(startMs),
      ALLOC_STOP_MS: String(startMs + SECONDS * 1000 + 200),
    },
    preload: [PROBE],
    logFile: join(work, 'app.log'),
  });
  let sent = 0;
  try {
    const sinceStart = () => Date.now() - started;
    if (sinceStart() > startMs - WARM_UP_MS) {
      throw new Error(`bench: ${command} took ${sinceStart()} ms to start; the window is missed`);
    }
    await pacedLoad({
      port: subject.port,
      path: PATH,
      rate: RATE,
      durationMs: startMs - sinceStart() - 50,
      next,
    });
    const samples = await pacedLoad({
      port: subject.port,
      path: PATH,
      rate: RATE,
      durationMs: SECONDS * 1000,
      next,
    });
    sent = samples.filter((s) => s.status === 200).length;
    while (!existsSync(out) && sinceStart() < startMs + SECONDS * 1000 + 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await subject.stop();
    await close();
  }
  const profile = JSON.parse(await readFile(out, 'utf8')) as { head: HeapNode };
  const { self, inclusive } = tally(profile.head);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(
    `\n## ${command}: ${(total / 1024 / sent).toFixed(0)} KB ${SURVIVORS ? 'outlived a scavenge' : 'allocated'} per command (${sent} commands at ${RATE}/s)\n`,
  );
  process.stdout.write(`\nBy the function allocating:\n${top(self, sent, 15).join('\n')}\n`);
  const ours = new Map([...inclusive].filter(([name]) => / src\//.test(name)));
  process.stdout.write(`\nUnder the app's own functions:\n${top(ours, sent, 12).join('\n')}\n`);
  process.stdout.write(`profile: ${out}\n`);
}

const commands = process.argv.slice(2);
for (const command of commands.length > 0 ? commands : ['bolt', 'help', 'roles', 'call', 'calls']) {
  await measure(command);
}
