import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSandbox } from '../../offline/cometchat-standin/server.ts';
import { createSlackDriver } from '../../offline/slack-standin/driver.ts';
import { startSlackStandIn } from '../../offline/slack-standin/server.ts';
import { OFFLINE_SECRETS, offlineEnv } from '../../offline/stack/offline-stack.ts';
import { freePort } from '../crash/child-app.ts';
import {
  cachedModules,
  cacheUse,
  type Launch,
  startTimes,
  summary,
  timedStart,
} from './compile-cache.ts';
import { checkProductionInstall } from './production-install.ts';

// `npm run test:recipe`: the Dockerfile's steps without a container engine. Each stage gets a
// clean directory; its COPY, `npm` and `node` RUN lines are carried out as written (other RUN
// lines, such as apt-get, are reported and left to the image build), with its ENV; then the
// final stage's CMD is started with plain node against the offline stand-ins. Node's compile
// cache (ENV NODE_COMPILE_CACHE) must have been filled, and a start must read every module but
// its entry from it (start-up with and without it is measured and printed, not asserted). It
// must answer /healthz and /readyz, pass the image's HEALTHCHECK command, answer a signed
// /cometchat help, and exit 0 on SIGTERM; the final stage must hold no development dependency.
// Then the README's production install outside a container (production-install.ts). CI runs it; the image build itself is not exercised here.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Starts with the compile cache and without it, alternating, for the printed figures. */
const TIMED_STARTS = 5;

interface Stage {
  name: string;
  dir: string;
  /** The base image, e.g. `node:24.21.0-bookworm-slim`. */
  from: string;
  env: Record<string, string>;
  cmd?: string[];
  healthcheck?: string[];
}

const say = (line: string) => process.stdout.write(`${line}\n`);

function jsonArray(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) {
    throw new Error(`expected an exec-form JSON array: ${text}`);
  }
  return parsed;
}

/** Carries out the Dockerfile in `work`; resolves with the final stage. */
function followDockerfile(work: string): Stage {
  const stages: Stage[] = [];
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const line of lines) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    const stage = stages.at(-1);
    switch (instruction.toUpperCase()) {
      case 'FROM': {
        const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.length}`;
        const dir = join(work, name);
        mkdirSync(dir, { recursive: true });
        stages.push({ name, dir, from: args.split(/\s+/)[0] ?? '', env: {} });
        say(`FROM ${args}  -> ${dir}`);
        break;
      }
      case 'COPY': {
        if (!stage) throw new Error('COPY before FROM');
        const from = /^--from=(\S+)\s+/.exec(args);
        const parts = (from ? args.slice(from[0].length) : args).split(/\s+/);
        const dest = parts.pop() ?? '.';
        const source = from ? stages.find((s) => s.name === from[1])?.dir : ROOT;
        if (!source) throw new Error(`COPY --from an unknown stage: ${line}`);
        // WORKDIR is /app in every stage: paths under it are the stage's directory.
        const inStage = (path: string) => path.replace(/^\/app\/?/, '') || '.';
        const intoDir = parts.length > 1 || dest.endsWith('/');
        for (const part of parts) {
          const target = intoDir
            ? join(stage.dir, inStage(dest), basename(part))
            : join(stage.dir, inStage(dest));
          cpSync(join(source, inStage(part)), target, { recursive: true });
        }
        say(`COPY ${args}`);
        break;
      }
      case 'RUN': {
        if (!stage) throw new Error('RUN before FROM');
        for (const command of args.split('&&').map((c) => c.trim())) runStep(stage, command);
        break;
      }
      case 'ENV': {
        if (!stage) throw new Error('ENV before FROM');
        const [key, ...value] = args.split('=');
        // WORKDIR is /app: a path under it is the stage's directory here.
        if (key) stage.env[key] = value.join('=').replace(/^\/app(?=\/|$)/, stage.dir);
        break;
      }
      case 'CMD':
        if (stage) stage.cmd = jsonArray(args);
        break;
      case 'HEALTHCHECK':
        if (stage) stage.healthcheck = jsonArray(args.slice(args.indexOf('CMD') + 3).trim());
        break;
      default:
        say(`${instruction} ${args}  (image metadata)`);
    }
  }
  const last = stages.at(-1);
  if (!last?.cmd) throw new Error('the Dockerfile has no final stage with a CMD');
  return last;
}

/** A RUN command: `npm` and `node` ones are run in the stage; others are left to the image. */
function runStep(stage: Stage, command: string): void {
  const [program = '', ...words] = command.split(/\s+/);
  if (program === 'npm') {
    say(`RUN ${command}`);
    execFileSync('sh', ['-c', command], {
      cwd: stage.dir,
      stdio: 'inherit',
      env: { ...process.env, ...stage.env },
    });
  } else if (program === 'node') {
    // The recipe's own Node (the stage's, as the final start checks), with what the image's
    // environment holds: the stage's ENV, nothing of this process's (no loader, no options).
    say(`RUN ${command}`);
    execFileSync(process.execPath, words, {
      cwd: stage.dir,
      stdio: 'inherit',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...stage.env },
    });
  } else {
    say(`RUN ${command}  (left to the image build)`);
  }
}

/**
 * The compile cache the stage's ENV names was filled, and a start of the CMD reads every module
 * it loads from it, the bundle (dist/app.mjs) included, and compiles none afresh. Then start-up
 * with and without the cache, measured and printed.
 */
async function checkCompileCache(final: Stage, launch: Launch): Promise<void> {
  const directory = final.env.NODE_COMPILE_CACHE;
  if (!directory) throw new Error('the final stage sets no NODE_COMPILE_CACHE');
  const entry = pathToFileURL(join(final.dir, launch.args.at(-1) ?? '')).href;
  const filled = existsSync(directory) ? cachedModules(directory) : 0;
  if (filled < 1) throw new Error(`the compile cache in ${directory} is empty: not filled`);
  say(`compile cache: ${filled} modules in ${directory}`);
  const { stderr } = await timedStart(launch, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  const use = cacheUse(stderr);
  if (!use.accepted.includes(entry) || use.compiled.length > 0) {
    const named = use.compiled.map((c) => `${c.module} (${c.status})`).join('\n  ');
    throw new Error(
      `a start read ${use.accepted.length} modules from the compile cache (${use.accepted.includes(entry) ? 'the entry among them' : 'not the entry'}) and compiled ${use.compiled.length} afresh:\n  ${named}`,
    );
  }
  say(
    `a start read ${use.accepted.length} modules from the cache, ${launch.args.at(-1)} among them, and compiled none`,
  );
  const times = await startTimes(launch, TIMED_STARTS);
  say(`start-up (spawn to /healthz 200), ${TIMED_STARTS} starts each, alternating:`);
  say(`  with the compile cache     ${summary(times.withCache)}`);
  say(`  without it                 ${summary(times.withoutCache)}`);
}

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'recipe-'));
  const sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
  const slack = await startSlackStandIn();
  let child: ChildProcess | undefined;
  try {
    const final = followDockerfile(work);
    for (const dev of ['typescript', 'tsx', 'vitest', '@biomejs/biome']) {
      if (existsSync(join(final.dir, 'node_modules', dev))) {
        throw new Error(`the final stage holds the development dependency ${dev}`);
      }
    }
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      ...final.env,
      ...offlineEnv(sandbox, slack, 'http'),
      PORT: String(port),
      STORE_URL: join(final.dir, 'data', 'state.sqlite'),
      LOG_LEVEL: 'warn',
    };
    const [command = 'node', ...args] = final.cmd ?? [];
    if (command !== 'node') throw new Error(`the CMD does not run node: ${command}`);
    await checkCompileCache(final, { dir: final.dir, args, env });
    say(`\nstarting the final stage: ${[command, ...args].join(' ')}`);
    const started = Date.now();
    child = spawn(process.execPath, args, {
      cwd: final.dir,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));
    const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
    await until('/healthz', 30_000, async () => (await get('/healthz')).ok);
    say(`/healthz 200 after ${Date.now() - started} ms`);
    await until('/readyz', 10_000, async () => (await get('/readyz')).ok);
    say('/readyz 200');
    // The stage runs on its base image's Node: the app's own metrics say which it runs on.
    const wanted = /^node:(\d+\.\d+\.\d+)/.exec(final.from)?.[1];
    if (!wanted) throw new Error(`the final stage's base is not an exact node tag: ${final.from}`);
    const running = /nodejs_version_info\{version="v([^"]+)"/.exec(
      await (await get('/metrics')).text(),
    );
    if (running?.[1] !== wanted) {
      throw new Error(`the final stage runs on Node ${running?.[1]}, its image has ${wanted}`);
    }
    say(`/metrics: Node ${wanted}, as in ${final.from}`);
    if (final.healthcheck) {
      const [hc = 'node', ...hcArgs] = final.healthcheck;
      execFileSync(hc === 'node' ? process.execPath : hc, hcArgs, { cwd: final.dir, env });
      say(`HEALTHCHECK ${final.healthcheck.join(' ')}: exit 0`);
    }
    const driver = createSlackDriver({
      appUrl: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: OFFLINE_SECRETS.signingSecret,
      standIn: slack,
    });
    const mark = slack.responses.length;
    await driver.command('help');
    const reply = await slack.nextResponse(mark, 10_000);
    if (!JSON.stringify(reply.body).includes('/cometchat')) throw new Error('no help reply');
    say('/cometchat help answered');
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`the app exited with ${code} on SIGTERM`);
    say('SIGTERM: exit 0');
    await checkProductionInstall(ROOT, work, env, say);
    say('\nrecipe steps: PASS');
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await sandbox.close();
    await slack.close();
    rmSync(work, { recursive: true, force: true });
  }
}

run().catch((error: unknown) => {
  process.stderr.write(`recipe steps: FAIL: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
