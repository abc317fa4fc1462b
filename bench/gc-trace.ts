import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pacedLoad } from './load.ts';
import { APP_ENTRY, spawnSubject } from './processes.ts';
import { appEnv, commandText, SIGNING_SECRET, signedCommand, startStandIns } from './stack.ts';
import { median, percentile } from './stats.ts';

// `npm run bench:gc [-- app|bolt [command] [rate]]`: one subject under a fixed rate with V8's
// --trace-gc, a warm-up then three rounds of four seconds: each round's acknowledgement median
// and p99, then the scavenges: how many, their median pause, and how much the old generation
// grew across each (what they promoted). Extra node options for the subject go in GC_NODE_ARGS
// (e.g. "--max-semi-space-size=16"). BENCHMARKS.md, "What the tails follow", reads it.

const [subject = 'app', command = 'call', rateText = '200'] = process.argv.slice(2);
const rate = Number(rateText);
const extra = (process.env.GC_NODE_ARGS ?? '').split(' ').filter(Boolean);
const work = await mkdtemp(join(tmpdir(), 'bench-gc-'));
const log = join(work, `${subject}.log`);
const { sandbox, slack, driver, close } = await startStandIns();
const measured = await spawnSubject({
  name: subject,
  entry: subject === 'bolt' ? 'bench/baselines/bare-bolt.mjs' : APP_ENTRY,
  env:
    subject === 'bolt'
      ? { SLACK_SIGNING_SECRET: SIGNING_SECRET }
      : appEnv(slack, sandbox, join(work, 'store.sqlite')),
  logFile: log,
  nodeArgs: ['--trace-gc', ...extra],
});

/** `[pause ms, heap MB after]` of each scavenge --trace-gc printed. */
function scavenges(trace: string): [number, number][] {
  return [
    ...trace.matchAll(/Scavenge [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB.*?, ([\d.]+) \//g),
  ].map((m) => [Number(m[2]), Number(m[1])]);
}

try {
  const next = () => signedCommand(driver, commandText(subject === 'bolt' ? 'help' : command));
  const port = measured.port;
  await pacedLoad({ port, path: '/slack/events', rate, durationMs: 3_000, next });
  for (let round = 1; round <= 3; round += 1) {
    const samples = await pacedLoad({ port, path: '/slack/events', rate, durationMs: 4_000, next });
    const acks = samples.map((s) => s.ackMs).filter((ms) => Number.isFinite(ms));
    process.stdout.write(
      `round ${round}: ack median ${median(acks).toFixed(2)} ms, p99 ${percentile(acks, 99).toFixed(2)} ms\n`,
    );
  }
  const seen = scavenges(await readFile(log, 'utf8'));
  const grown = seen
    .slice(1)
    .map(([, after], i) => after - (seen[i]?.[1] ?? after))
    .filter((mb) => mb > 0);
  process.stdout.write(
    `${subject} ${subject === 'bolt' ? 'help' : command} at ${rate}/s: ${seen.length} scavenges, ` +
      `median pause ${median(seen.map(([ms]) => ms)).toFixed(1)} ms, ` +
      `old generation grown ${median(grown).toFixed(1)} MB per scavenge (median)\n`,
  );
} finally {
  await measured.stop();
  await close();
}
