import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMeter } from './cpu.ts';
import { saturate } from './load.ts';
import { APP_ENTRY, type Subject, spawnSubject } from './processes.ts';
import { machine, ratio, table } from './report.ts';
import { captureStep, type ScriptStep, startSameInBolt } from './same-in-bolt.ts';
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
// command. The app, the same commands in bare Bolt (same-in-bolt.ts, scripted from the warm app)
// and a bare Bolt app each answer one command at a time at saturation (10 connections), rounds
// interleaved, and the CPU each used per answered command is printed as a median with its
// ratios. About two minutes; `npm run bench` holds the budgets.

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
/** The same commands in bare Bolt, started once the app is warm and has shown what they do. */
let same: Subject | undefined;
const bolt = await spawnSubject({
  name: 'bolt',
  entry: 'bench/baselines/bare-bolt.mjs',
  env: { SLACK_SIGNING_SECRET: SIGNING_SECRET },
  logFile: join(work, 'bolt.log'),
});

const keyOf = (command: string) => (command === 'perms' ? 'trigger_id' : 'response_url');
const next = (command: string) => () => signedCommand(driver, commandText(command), keyOf(command));
/** CPU per answered command in µs, and commands a second, for one saturated round. */
async function round(port: number, pid: number, command: string, seconds: number) {
  const meter = cpuMeter(pid);
  const result = await saturate({
    port,
    path: '/slack/events',
    connections: 10,
    durationSeconds: seconds,
    next: next(command),
  });
  // Work that follows the acknowledgements (replies, views) is part of each command's cost.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const cpu = meter();
  slack.reset();
  sandbox.requests.length = 0;
  if (result.failed > 0) throw new Error(`bench: ${command}: ${result.failed} requests failed`);
  return { us: (cpu.subjectMs * 1000) / result.ok, rps: result.requestsPerSecond };
}

try {
  process.stdout.write(`Machine: ${machine()}\n`);
  for (const command of commands) await round(app.port, app.pid, command, 4);
  const script: Record<string, ScriptStep> = {};
  for (const command of commands) {
    script[commandText(command)] = await captureStep({
      port: app.port,
      command: next(command),
      slack,
      sandbox,
      opensView: command === 'perms',
    });
  }
  same = await startSameInBolt({
    script,
    scriptFile: join(work, 'same-in-bolt.json'),
    slack,
    logFile: join(work, 'same-in-bolt.log'),
  });
  for (const command of commands) await round(same.port, same.pid, command, 4);
  await round(bolt.port, bolt.pid, 'help', 4);
  const per = new Map<string, number[]>();
  const add = (name: string, us: number) => per.set(name, [...(per.get(name) ?? []), us]);
  for (let r = 1; r <= ROUNDS; r += 1) {
    add('bare Bolt', (await round(bolt.port, bolt.pid, 'help', SECONDS)).us);
    for (const command of commands) {
      add(`same in Bolt: ${command}`, (await round(same.port, same.pid, command, SECONDS)).us);
      add(`app: ${command}`, (await round(app.port, app.pid, command, SECONDS)).us);
    }
  }
  const bare = median(per.get('bare Bolt') ?? []);
  process.stdout.write(
    `${table(
      ['subject', 'CPU per command (median)', '÷ bare Bolt', '÷ the same in Bolt', 'rounds (µs)'],
      [...per.entries()].map(([name, values]) => {
        const same = per.get(name.replace(/^app: /, 'same in Bolt: '));
        return [
          name,
          `${median(values).toFixed(0)} µs`,
          ratio(median(values), bare),
          name.startsWith('app: ') && same ? ratio(median(values), median(same)) : '-',
          values.map((v) => v.toFixed(0)).join(', '),
        ];
      }),
    )}\n`,
  );
} finally {
  await Promise.allSettled([app.stop(), bolt.stop(), same?.stop()]);
  await close();
}
