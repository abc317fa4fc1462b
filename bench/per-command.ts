import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_SESSION_IDS } from '../offline/cometchat-standin/server.ts';
import { OFFLINE_SECRETS } from '../offline/stack/offline-stack.ts';
import { cpuMeter } from './cpu.ts';
import { saturate } from './load.ts';
import { APP_ENTRY, spawnSubject } from './processes.ts';
import { machine, ratio, table } from './report.ts';
import {
  appEnv,
  COMMAND_TEXTS,
  commandText,
  SIGNING_SECRET,
  signedCommand,
  startStandIns,
} from './stack.ts';
import { median } from './stats.ts';

// `npm run bench:cpu [-- help roles call calls perms]`: the quick loop for working on CPU per
// command. The app and a bare Bolt app each answer one command at a time at saturation (10
// connections), rounds interleaved, and the CPU each used per answered command is printed as a
// median with its ratio to bare Bolt's. About a minute; `npm run bench` holds the budgets.

const BOLT_KY = 'bare Bolt + one ky GET (reference)';
const ROUNDS = Number(process.env.CPU_ROUNDS ?? 5);
const SECONDS = Number(process.env.CPU_SECONDS ?? 2);

const wanted = process.argv.slice(2);
const commands = wanted.length > 0 ? wanted : Object.keys(COMMAND_TEXTS);
const work = await mkdtemp(join(tmpdir(), 'bench-cpu-'));
const { sandbox, slack, driver, close } = await startStandIns();
const app = await spawnSubject({
  name: 'app',
  entry: APP_ENTRY,
  env: appEnv(slack, sandbox, join(work, 'store.sqlite')),
  logFile: join(work, 'app.log'),
});
const bolt = await spawnSubject({
  name: 'bolt',
  entry: 'bench/baselines/bare-bolt.mjs',
  env: { SLACK_SIGNING_SECRET: SIGNING_SECRET },
  logFile: join(work, 'bolt.log'),
});
// A reference beside the baseline: bare Bolt making the one CometChat request `call` makes, with
// ky (baselines/bolt-ky.mjs). Budgets stay against bare Bolt; this says how much of the gap the
// request itself is.
const boltKy = await spawnSubject({
  name: 'bolt-ky',
  entry: 'bench/baselines/bolt-ky.mjs',
  env: {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    COMETCHAT_API_KEY: OFFLINE_SECRETS.apiKey,
    COMETCHAT_CALL_API_URL: sandbox.callUrl,
    BENCH_SESSION_ID: SANDBOX_SESSION_IDS.groupOngoing,
  },
  logFile: join(work, 'bolt-ky.log'),
});

const next = (text: string) => () => signedCommand(driver, text);
/** CPU per answered command in µs, and commands a second, for one saturated round. */
async function round(port: number, pid: number, text: string, seconds: number) {
  const meter = cpuMeter(pid);
  const result = await saturate({
    port,
    path: '/slack/events',
    connections: 10,
    durationSeconds: seconds,
    next: next(text),
  });
  // Work that follows the acknowledgements (replies, views) is part of each command's cost.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const cpu = meter();
  slack.reset();
  sandbox.requests.length = 0;
  if (result.failed > 0) throw new Error(`bench: ${text}: ${result.failed} requests failed`);
  return { us: (cpu.subjectMs * 1000) / result.ok, rps: result.requestsPerSecond };
}

try {
  process.stdout.write(`Machine: ${machine()}\n`);
  for (const command of commands) await round(app.port, app.pid, commandText(command), 4);
  await round(bolt.port, bolt.pid, 'help', 4);
  await round(boltKy.port, boltKy.pid, 'help', 4);
  const per = new Map<string, number[]>();
  for (let r = 1; r <= ROUNDS; r += 1) {
    const bare = await round(bolt.port, bolt.pid, 'help', SECONDS);
    per.set('bare Bolt', [...(per.get('bare Bolt') ?? []), bare.us]);
    const withKy = await round(boltKy.port, boltKy.pid, 'help', SECONDS);
    per.set(BOLT_KY, [...(per.get(BOLT_KY) ?? []), withKy.us]);
    for (const command of commands) {
      const measured = await round(app.port, app.pid, commandText(command), SECONDS);
      per.set(command, [...(per.get(command) ?? []), measured.us]);
    }
  }
  const bare = median(per.get('bare Bolt') ?? []);
  const reference = median(per.get(BOLT_KY) ?? []);
  process.stdout.write(
    `${table(
      ['subject', 'CPU per command (median)', '÷ bare Bolt', '÷ bare Bolt + ky GET', 'rounds (µs)'],
      [...per.entries()].map(([name, values]) => [
        name,
        `${median(values).toFixed(0)} µs`,
        ratio(median(values), bare),
        ratio(median(values), reference),
        values.map((v) => v.toFixed(0)).join(', '),
      ]),
    )}\n`,
  );
} finally {
  await Promise.allSettled([app.stop(), bolt.stop(), boltKy.stop()]);
  await close();
}
