import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { backgroundLoad } from './cpu.ts';
import { budgetLines, machine } from './report.ts';
import { startStandIns } from './stack.ts';
import { measureIntake, redisNotMeasured } from './webhook-intake.ts';

// `npm run bench:intake`: the webhook intake alone (webhook-intake.ts), as `npm run bench`
// measures it: events a second one replica takes on SQLite and on Redis, and the p99 of the 200
// answer at 200 events a second beside a bare node:http server. About two and a half minutes;
// BENCH_QUICK=1 for a smoke run. Exits 0 when budgets fail (it reports them) and 1 when the bench
// itself breaks.

const QUICK = process.env.BENCH_QUICK === '1';
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const began = performance.now();
  const work = await mkdtemp(join(tmpdir(), 'bench-intake-'));
  const { sandbox, slack, close } = await startStandIns();
  try {
    log('# cometchat-slack-ops benchmark: webhook intake');
    log(`Machine: ${machine()}`);
    const background = await backgroundLoad(1_000);
    log(
      `Other processes before the run: ${background.toFixed(0)} % of one core (load average ${loadavg()
        .map((v) => v.toFixed(2))
        .join(', ')}).${QUICK ? ' QUICK (smoke run, figures not comparable).' : ''}`,
    );
    const intake = await measureIntake({
      slack,
      sandbox,
      work,
      quick: QUICK,
      progress: (line) => log(`· ${line}`),
    });
    log(intake.report);
    log('\n## Budgets');
    log(budgetLines(intake.budgets));
    const met = intake.budgets.filter((b) => b.pass).length;
    log(
      `\n${met} of ${intake.budgets.length} budgets met. Total run time ${((performance.now() - began) / 1000).toFixed(0)} s. Subjects' logs: ${work}`,
    );
    if (!intake.redisMeasured) log(redisNotMeasured());
  } finally {
    await close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`\nThe bench broke: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
