import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { backgroundLoad } from './cpu.ts';
import { measureReplicaIntake, replicasNotMeasured } from './replica-intake.ts';
import { budgetLines, machine } from './report.ts';
import { startStandIns } from './stack.ts';

// `npm run bench:replicas`: growth with replicas alone (replica-intake.ts), as `npm run bench`
// measures it: CometChat's webhooks on one, two and three replicas sharing one Redis behind a
// round-robin, a channel subscribed, at 200 events a second; the 200's p99 and the posts the
// channel got per replica count. About two and a half minutes; BENCH_QUICK=1 for a smoke run.
// Needs redis-server on PATH (without it, it says loudly that it measured nothing). Exits 0 when
// budgets fail (it reports them) and 1 when the bench itself breaks.

const QUICK = process.env.BENCH_QUICK === '1';
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const began = performance.now();
  const work = await mkdtemp(join(tmpdir(), 'bench-replicas-'));
  const { sandbox, slack, close } = await startStandIns();
  try {
    log('# cometchat-slack-ops benchmark: growth with replicas');
    log(`Machine: ${machine()}`);
    const background = await backgroundLoad(1_000);
    log(
      `Other processes before the run: ${background.toFixed(0)} % of one core (load average ${loadavg()
        .map((v) => v.toFixed(2))
        .join(', ')}).${QUICK ? ' QUICK (smoke run, figures not comparable).' : ''}`,
    );
    const replicas = await measureReplicaIntake({
      slack,
      sandbox,
      work,
      quick: QUICK,
      progress: (line) => log(`· ${line}`),
    });
    log(replicas.report);
    if (replicas.budgets.length > 0) {
      log('\n## Budgets');
      log(budgetLines(replicas.budgets));
    }
    const met = replicas.budgets.filter((b) => b.pass).length;
    log(
      `\n${met} of ${replicas.budgets.length} budgets met. Total run time ${((performance.now() - began) / 1000).toFixed(0)} s. Subjects' logs: ${work}`,
    );
    if (!replicas.redisMeasured) log(replicasNotMeasured());
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
