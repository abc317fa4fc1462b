import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../offline/cometchat-standin/server.ts';
import { startSlackStandIn } from '../offline/slack-standin/server.ts';
import { OFFLINE_SECRETS } from '../offline/stack/offline-stack.ts';
import {
  APP_ENTRY,
  compileCacheEnv,
  fillCompileCache,
  type SpawnOptions,
  spawnSubject,
} from './processes.ts';
import { machine, ms, ratio, table } from './report.ts';
import { appEnv, SIGNING_SECRET } from './stack.ts';
import { median } from './stats.ts';

// `npm run bench:startup`: spawn to the first 200 on GET /healthz, started as `npm run bench`
// starts its subjects (spawnSubject: the image's node options), ROUNDS rounds, the four
// interleaved and in a turning order:
// - the app as the image runs it: its compile cache filled the way the image's build fills it
//   (fillCompileCache), NODE_COMPILE_CACHE pointing at it;
// - the app without a compile cache;
// - bare Bolt (the budget's baseline: start-up at most 1.5x it);
// - bare Bolt with a compile cache of its own, filled by a first start: the like-for-like
//   baseline, printed beside the budget's.
// The app runs on SQLite (the default store) against the stand-ins, as in `npm run bench`.

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 9);
const BUDGET = 1.5;

const work = mkdtempSync(join(tmpdir(), 'cometchat-startup-'));
const sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
const slack = await startSlackStandIn();
const appCache = join(work, 'app-cache');
const boltCache = join(work, 'bolt-cache');
const app = { entry: APP_ENTRY, env: appEnv(slack, sandbox, join(work, 'store.sqlite')) };
const bolt = {
  entry: 'bench/baselines/bare-bolt.mjs',
  env: { SLACK_SIGNING_SECRET: SIGNING_SECRET },
};
const subjects = {
  'app, as the image runs it (compile cache)': {
    ...app,
    env: { ...app.env, ...compileCacheEnv(appCache) },
  },
  'app without a compile cache': app,
  'bare Bolt': bolt,
  'bare Bolt with its own compile cache': {
    ...bolt,
    env: { ...bolt.env, ...compileCacheEnv(boltCache) },
  },
} satisfies Record<string, Pick<SpawnOptions, 'entry' | 'env'>>;
type Name = keyof typeof subjects;
const names = Object.keys(subjects) as Name[];
const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
  Name,
  number[]
>;

let spawned = 0;
async function startOnce(name: Name): Promise<number> {
  spawned += 1;
  const subject = await spawnSubject({
    name,
    ...subjects[name],
    logFile: join(work, `${spawned}.log`),
  });
  await subject.stop();
  return subject.startupMs;
}

try {
  fillCompileCache(appCache);
  // Bare Bolt's cache: Node writes it when the first start exits (bare Bolt exits on SIGTERM).
  // Then a round not counted, so that every subject's files are in the page cache alike.
  for (const name of names) await startOnce(name);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(round + turn) % names.length] as Name;
      times[name].push(await startOnce(name));
    }
  }
} finally {
  await sandbox.close();
  await slack.close();
  rmSync(work, { recursive: true, force: true });
}

const medianOf = (name: Name) => median(times[name]);
const spread = (values: number[]) =>
  `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
const shipped = medianOf('app, as the image runs it (compile cache)');
const plainBolt = medianOf('bare Bolt');
process.stdout.write(
  `# Start-up: spawn to the first 200 on GET /healthz\n${machine()}\n${ROUNDS} rounds, the four interleaved; medians, the range and every start.\n\n${table(
    ['subject', 'median', 'range', 'starts (ms)', '/ bare Bolt', '/ bare Bolt with its cache'],
    names.map((name) => [
      name,
      ms(medianOf(name), 0),
      spread(times[name]),
      times[name].map((v) => v.toFixed(0)).join(', '),
      ratio(medianOf(name), plainBolt),
      ratio(medianOf(name), medianOf('bare Bolt with its own compile cache')),
    ]),
  )}\n${shipped <= BUDGET * plainBolt ? 'PASS' : 'FAIL'}  start-up (as the image runs it) ≤ ${BUDGET} × bare Bolt: ${ms(shipped, 0)} = ${ratio(shipped, plainBolt)} of ${ms(plainBolt, 0)}\n      like for like (bare Bolt with a compile cache of its own too): ${ratio(shipped, medianOf('bare Bolt with its own compile cache'))}\n      without either cache: ${ratio(medianOf('app without a compile cache'), plainBolt)}\n`,
);
