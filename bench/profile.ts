import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { saturate } from './load.ts';
import { MODULES_ENTRY, sourcePath, spawnSubject } from './processes.ts';
import { appEnv, commandText, signedCommand, startStandIns } from './stack.ts';

// `npm run bench:profile [-- help|roles|call|calls|perms ...]`: each command at saturation (10 connections,
// PROFILE_SECONDS) against the app started with --cpu-prof, after a warm-up; then where the
// app's CPU went, by self time, grouped by where the code lives (the app's own folders, each
// dependency, Node's internals). Profiles are kept for a flame graph (Chrome DevTools or
// speedscope open .cpuprofile files).

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 8);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: src/<folder>, a package, node internals, or what V8 calls it. */
function placeOf(url: string, name: string): string {
  if (url === '')
    return name === '(garbage collector)' ? '(gc)' : name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return 'node:internals';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inRepo = sourcePath(relative(ROOT, path));
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(inRepo);
  if (pkg) return pkg[1] as string;
  const src = /^src\/([^/]+)\//.exec(inRepo);
  if (src) return `src/${src[1]}`;
  return inRepo.startsWith('src/') ? 'src' : inRepo;
}

/** The app's own functions (src/) by self time. */
function ownFunctions(profile: Profile): { name: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node?.callFrame.url.startsWith('file://')) return;
    const file = sourcePath(relative(ROOT, fileURLToPath(node.callFrame.url)));
    if (!file.startsWith('src/')) return;
    const name = `${node.callFrame.functionName || '(anonymous)'} ${file}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self.entries()].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

function summarise(profile: Profile): { place: string; ms: number; share: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    if (!node || node.callFrame.functionName === '(idle)') return;
    const place = placeOf(node.callFrame.url, node.callFrame.functionName);
    self.set(place, (self.get(place) ?? 0) + dt);
  });
  const busy = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self.entries()]
    .map(([place, ms]) => ({ place, ms, share: ms / busy }))
    .sort((a, b) => b.ms - a.ms)
    .concat([{ place: '(busy, of the whole profile)', ms: busy, share: busy / total }]);
}

async function profileCommand(command: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), `profile-${command}-`));
  const { sandbox, slack, driver, close } = await startStandIns();
  const subject = await spawnSubject({
    name: command,
    entry: MODULES_ENTRY,
    env: appEnv(slack, sandbox, 'memory:'),
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${work}`],
    logFile: join(work, 'app.log'),
  });
  const next = () => signedCommand(driver, commandText(command));
  try {
    await saturate({
      port: subject.port,
      path: '/slack/events',
      connections: 10,
      durationSeconds: 3,
      next,
    });
    slack.reset();
    const result = await saturate({
      port: subject.port,
      path: '/slack/events',
      connections: 10,
      durationSeconds: SECONDS,
      next,
    });
    process.stdout.write(
      `\n## ${command}: ${result.requestsPerSecond.toFixed(0)} commands/s at saturation (${result.failed} failed)\n`,
    );
  } finally {
    await subject.stop();
    await close();
  }
  const file = (await readdir(work)).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile was written in ${work}`);
  const profile = JSON.parse(await readFile(join(work, file), 'utf8')) as Profile;
  const rows = summarise(profile);
  for (const row of rows.slice(0, 16)) {
    process.stdout.write(
      `${row.place.padEnd(34)} ${row.ms.toFixed(0).padStart(7)} ms  ${(row.share * 100).toFixed(1).padStart(5)} %\n`,
    );
  }
  process.stdout.write(`${rows.at(-1)?.place}: ${rows.at(-1)?.ms.toFixed(0)} ms\n`);
  process.stdout.write("\nThe app's own functions, by self time:\n");
  for (const row of ownFunctions(profile).slice(0, 10)) {
    process.stdout.write(`${row.ms.toFixed(0).padStart(7)} ms  ${row.name}\n`);
  }
  process.stdout.write(`profile: ${join(work, file)}\n`);
}

const commands = process.argv.slice(2);
for (const command of commands.length > 0 ? commands : ['help', 'roles', 'call']) {
  await profileCommand(command);
}
