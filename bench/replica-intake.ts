import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SANDBOX_SESSION_IDS } from '../offline/cometchat-standin/server.ts';
import type { SlackStandIn } from '../offline/slack-standin/server.ts';
import { openStore } from '../src/store/open-store.ts';
import type { Store } from '../src/store/store.ts';
import {
  burstRule,
  type ChannelBurst,
  channelBurst,
  type ShownBurst,
  settled,
  shownInChannel,
} from './channel-burst.ts';
import { type CpuReading, cpuMeter } from './cpu.ts';
import { type GcRound, gcRound } from './gc-pauses.ts';
import { type Prepared, pacedLoad } from './load.ts';
import { APP_ENTRY, freePort, logProblems, type Subject, spawnSubject } from './processes.ts';
import { type BenchRedis, onPath, startRedis } from './redis.ts';
import { type Budget, ms, table } from './report.ts';
import { appEnv } from './stack.ts';
import { medianOf, percentile } from './stats.ts';
import {
  checkAnswers,
  handled,
  INTAKE_P99_BUDGET_MS,
  INTAKE_PATH,
  INTAKE_WEBHOOK,
  type IntakeFigures,
  type IntakeOptions,
  redisNotMeasured,
  webhookCounts,
  webhookEvents,
} from './webhook-intake.ts';

// Growth with replicas (`npm run bench:replicas`, and a part of `npm run bench` through
// measureReplicaIntake): CometChat's webhooks reach one, two and three replicas of the app as it
// ships, sharing one redis-server, behind a round-robin on loopback (a TCP proxy in the bench's
// process that hands each new connection to the next replica). A channel is subscribed to the
// calls, so every event is read from CometChat and goes through the alert burst gate, which
// counts in Redis: the channel must get what one replica gives it (the first few alerts, then
// one count message counting the rest), however many replicas share the burst.
//
// Each event travels on a connection of its own (`connection: close`): a round-robin by
// connection then spreads the events one by one, where a kept-alive connection would carry them
// all to one replica. Two figures per replica count, in rounds at 200 events a second, open
// loop (each sent on schedule whatever the answers do), the counts interleaved in each round:
// the p99 of the 200 answer, and what the round's channel (a fresh one each round, so a fresh
// burst window) got. Medians over rounds.

/** The burst's posts are compared, round by round, across these. */
const REPLICA_COUNTS = [1, 2, 3] as const;
type ReplicaCount = (typeof REPLICA_COUNTS)[number];

function replicaPlan(quick: boolean) {
  return {
    rate: 200,
    rounds: quick ? 1 : 3,
    roundMs: quick ? 2_000 : 10_000,
    warmUpMs: quick ? 500 : 2_000,
  } as const;
}

/** Round-robin by connection over the given ports, whichever they are when one connects. */
async function roundRobin(
  ports: () => readonly number[],
): Promise<{ port: number; server: Server }> {
  let next = 0;
  const server = createServer((client: Socket) => {
    const targets = ports();
    const upstream = connect(targets[next++ % targets.length] ?? 0, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, server };
}

interface Round {
  p50: number;
  p99: number;
  max: number;
  lagP99: number;
  /** Events each replica took this round (from its /metrics). */
  perReplica: number[];
  /** The replicas' CPU, summed, as % of one core. */
  replicasPct: number;
  redisPct: number;
  /** The bench process's CPU (load generator, proxy, stand-ins), % of one core. */
  benchPct: number;
  /** Every other process on the machine's, % of one core. */
  otherPct: number;
  /** From the load's end until no event was left stored (handed on, posted or counted). */
  handledAfterMs: number;
  events: number;
  channel: ChannelBurst;
  /** The active replicas' collector pauses, together, against the round's answers. */
  gc: GcRound;
}

/** The app's webhook counts of each replica, from their /metrics. */
async function countsOf(replicas: readonly Subject[]): Promise<Record<string, number>[]> {
  return Promise.all(
    replicas.map(async (r) =>
      webhookCounts(await (await fetch(`http://127.0.0.1:${r.port}/metrics`)).text()),
    ),
  );
}

interface Running {
  replicas: Subject[];
  store: Store;
  redis: BenchRedis;
  slack: SlackStandIn;
  /** Sets how many replicas the round-robin spreads over. */
  use: (count: ReplicaCount) => void;
  proxyPort: number;
  next: () => Prepared;
}

/** A channel subscribed to the calls, for the length of `run`. */
async function withChannel<T>(r: Running, channel: string, run: () => Promise<T>): Promise<T> {
  const id = `bench-${channel}`;
  await r.store.putSubscription({
    id,
    app: 'default',
    channel,
    kind: 'calls',
    filters: ['status:ended'],
    createdBy: 'U0OPERATOR',
    createdAt: Date.now(),
  });
  try {
    return await run();
  } finally {
    await r.store.removeSubscription(id);
  }
}

/** One round of `count` replicas: the load, every event handed on, what the channel got. */
async function round(
  r: Running,
  count: ReplicaCount,
  plan: ReturnType<typeof replicaPlan>,
  channel: string,
): Promise<Round> {
  r.use(count);
  const active = r.replicas.slice(0, count);
  return withChannel(r, channel, async () => {
    const mark = r.slack.calls.length;
    const before = await countsOf(active);
    await Promise.all(active.map((s) => s.gcPauses()));
    const meters = active.map((s) => cpuMeter(s.pid));
    const redisMeter = cpuMeter(r.redis.pid);
    const samples = await pacedLoad({
      port: r.proxyPort,
      path: INTAKE_PATH,
      rate: plan.rate,
      durationMs: plan.roundMs,
      next: r.next,
    });
    const cpu = meters.map((read) => read());
    const redis = redisMeter();
    const pauses = (await Promise.all(active.map((s) => s.gcPauses()))).flat();
    const ok = checkAnswers(`${count} replica(s)`, samples);
    const handledAfterMs = await handled({ label: `${count} replica(s)`, store: r.store });
    await settled(r.slack, channel);
    const after = await countsOf(active);
    const taken = (outcome: string) =>
      after.map((a, i) => (a[outcome] ?? 0) - (before[i]?.[outcome] ?? 0));
    const perReplica = taken('received');
    const sum = (values: number[]) => values.reduce((total, v) => total + v, 0);
    if (sum(perReplica) !== ok.length || sum(taken('deduplicated')) + sum(taken('refused')) > 0) {
      throw new Error(
        `bench: ${count} replica(s) answered ${ok.length} events but counted ${sum(perReplica)} received, ${sum(taken('deduplicated'))} deduplicated, ${sum(taken('refused'))} refused`,
      );
    }
    const acks = ok.map((s) => s.ackMs);
    const p99 = percentile(acks, 99);
    const pctOf = (reading: CpuReading) => (reading.subjectMs / reading.elapsedMs) * 100;
    const replicasPct = sum(cpu.map(pctOf));
    // Each meter counts its own replica apart from the rest of the machine; the first's is read.
    const first = cpu[0] ?? redis;
    return {
      p50: percentile(acks, 50),
      p99,
      max: percentile(acks, 100),
      lagP99: percentile(
        samples.map((s) => s.lagMs),
        99,
      ),
      perReplica,
      replicasPct,
      redisPct: pctOf(redis),
      benchPct: (first.benchMs / first.elapsedMs) * 100,
      otherPct: Math.max(0, first.foreignPct - (replicasPct - pctOf(first)) - pctOf(redis)),
      handledAfterMs,
      events: ok.length,
      channel: channelBurst(r.slack, channel, mark),
      gc: gcRound(pauses, ok, p99),
    };
  });
}

/**
 * The webhook intake with one, two and three replicas on one Redis: the 200's p99 at 200
 * events a second, and the posts a subscribed channel got, each replica count against one's.
 * Without redis-server it measures nothing, and its report says so.
 */
export async function measureReplicaIntake(options: IntakeOptions): Promise<IntakeFigures> {
  if (!onPath('redis-server')) {
    options.progress('replicas: no redis-server, nothing measured');
    return { report: `${heading()}\n${replicasNotMeasured()}`, budgets: [], redisMeasured: false };
  }
  const plan = replicaPlan(options.quick);
  const replicas: Subject[] = [];
  let redis: BenchRedis | undefined;
  let store: Store | undefined;
  let proxy: Server | undefined;
  try {
    redis = await startRedis();
    store = await openStore(redis.url);
    options.progress('replicas: starting three replicas on one Redis');
    const env = {
      ...appEnv(options.slack, options.sandbox, redis.url),
      COMETCHAT_WEBHOOK_USER: INTAKE_WEBHOOK.user,
      COMETCHAT_WEBHOOK_PASSWORD: INTAKE_WEBHOOK.password,
    };
    const started = await Promise.allSettled(
      REPLICA_COUNTS.map((n) =>
        spawnSubject({
          name: `replica-${n}`,
          entry: APP_ENTRY,
          env,
          logFile: join(options.work, `replica-${n}.log`),
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') replicas.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    let active = 1;
    const rr = await roundRobin(() => replicas.slice(0, active).map((s) => s.port));
    proxy = rr.server;
    const events = webhookEvents(
      options.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.audioEnded),
      'destroyed_at',
    );
    const running: Running = {
      replicas,
      store,
      redis,
      slack: options.slack,
      use: (count) => {
        active = count;
      },
      proxyPort: rr.port,
      next: () => {
        const event = events();
        return { ...event, headers: { ...event.headers, connection: 'close' } };
      },
    };
    const rounds = await runRounds(running, plan, options);
    return { ...replicaReport(replicas, plan, rounds), redisMeasured: true };
  } finally {
    proxy?.close();
    await Promise.allSettled(replicas.map((s) => s.stop()));
    await store?.close();
    await redis?.stop();
  }
}

/** Warm-up, then the rounds, the replica counts interleaved in each. */
async function runRounds(
  r: Running,
  plan: ReturnType<typeof replicaPlan>,
  options: IntakeOptions,
): Promise<Map<ReplicaCount, Round[]>> {
  options.progress('replicas: warming up');
  await withChannel(r, 'C0REPLWARM', async () => {
    for (const count of REPLICA_COUNTS) {
      r.use(count);
      await pacedLoad({
        port: r.proxyPort,
        path: INTAKE_PATH,
        rate: plan.rate,
        durationMs: plan.warmUpMs,
        next: r.next,
      });
      await handled({ label: 'warm-up', store: r.store });
    }
  });
  const rounds = new Map<ReplicaCount, Round[]>();
  for (let n = 1; n <= plan.rounds; n += 1) {
    for (const count of REPLICA_COUNTS) {
      options.progress(
        `replicas: round ${n}/${plan.rounds}, ${count} replica(s) at ${plan.rate} events/s`,
      );
      const result = await round(r, count, plan, `C0REPL${count}R${n}`);
      rounds.set(count, [...(rounds.get(count) ?? []), result]);
      // The sandbox's records of 2,000 call reads a round are not read: let them go.
      options.sandbox.requests.length = 0;
    }
  }
  return rounds;
}

/** Said where the figures would be, and again at the end: nothing measured without Redis. */
export function replicasNotMeasured(): string {
  return redisNotMeasured('the webhook intake with 1, 2 and 3 replicas on one Redis');
}

function heading(): string {
  return `\n## Growth with replicas: POST ${INTAKE_PATH} on 1, 2 and 3 replicas sharing one Redis, a channel subscribed`;
}

const pct = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} %` : 'n/a');

/** A channel's burst in words: `3 alerts + 1 count message counting 1997 (highest 1997)`. */
function burstWords(b: ShownBurst): string {
  return `${b.alerts} alerts + ${b.countMessages} count message${b.countMessages === 1 ? '' : 's'} counting ${b.counted} (highest ${b.highest}${b.refused > 0 ? `, ${b.refused} refused` : ''})`;
}

const same = (a: object, b: object) => JSON.stringify(a) === JSON.stringify(b);

/** Each round's burst in words, or one phrase for all when every round got the same. */
function roundsWords(rounds: readonly ShownBurst[]): string {
  const [first] = rounds;
  if (first && rounds.every((b) => same(b, first))) {
    return `${burstWords(first)}, ${rounds.length === 1 ? 'in the one round' : `in each of ${rounds.length} rounds`}`;
  }
  return rounds.map(burstWords).join('; ');
}

/** The tables and the budgets. */
function replicaReport(
  replicas: readonly Subject[],
  plan: ReturnType<typeof replicaPlan>,
  rounds: Map<ReplicaCount, Round[]>,
): Omit<IntakeFigures, 'redisMeasured'> {
  const of = (count: ReplicaCount) => rounds.get(count) ?? [];
  const lines = [heading()];
  lines.push(
    `\n### The 200 answer at ${plan.rate} events a second (open loop, ${plan.rounds} round${plan.rounds === 1 ? '' : 's'} of ${plan.roundMs / 1000} s per replica count; medians over rounds)`,
  );
  lines.push(
    table(
      [
        'replicas',
        'p50',
        'p99',
        'p99 by round',
        'slowest',
        'events per replica',
        'replicas CPU',
        'redis-server CPU',
        'bench CPU',
        'other CPU',
        'generator lag p99',
        'all handled after the load',
        'longest GC pause',
        'slowest 1% in a GC pause',
      ],
      REPLICA_COUNTS.map((count) => {
        const r = of(count);
        return [
          String(count),
          ms(medianOf(r, (x) => x.p50)),
          ms(medianOf(r, (x) => x.p99)),
          r.map((x) => x.p99.toFixed(2)).join(', '),
          ms(medianOf(r, (x) => x.max)),
          r.at(-1)?.perReplica.join(' / ') ?? '-',
          pct(medianOf(r, (x) => x.replicasPct)),
          pct(medianOf(r, (x) => x.redisPct)),
          pct(medianOf(r, (x) => x.benchPct)),
          pct(medianOf(r, (x) => x.otherPct)),
          ms(
            medianOf(r, (x) => x.lagP99),
            1,
          ),
          ms(
            medianOf(r, (x) => x.handledAfterMs),
            0,
          ),
          ms(medianOf(r, (x) => x.gc.longestMs)),
          `${r.reduce((sum, x) => sum + x.gc.tailInPause, 0)} of ${r.reduce((sum, x) => sum + x.gc.tail, 0)}`,
        ];
      }),
    ),
  );
  lines.push(
    "Each event is a `call_ended` of a seeded call on a connection of its own through the round-robin; \"events per replica\" is the last round's split, from each replica's /metrics. Every event is answered 200, stored, read from CometChat and counted by the burst gate in Redis; \"all handled\" is how long after the load the last stored event was posted or counted (the count message is updated every 2 s). CPU as % of one core over the round: the replicas' summed, redis-server's, the bench process's (load generator, proxy, stand-ins), every other process's. The last column counts the answers at or above their round's p99 in flight while a collector pause of any active replica began or lasted.",
  );
  lines.push(`\n### What the round's channel got (a fresh channel each round: one burst window)`);
  lines.push(
    table(
      ['replicas', 'events a round', 'the channel got, each round', 'count updates by round'],
      REPLICA_COUNTS.map((count) => {
        const r = of(count);
        return [
          String(count),
          r.map((x) => x.events).join(', '),
          roundsWords(r.map((x) => shownInChannel(x.channel))),
          r.map((x) => x.channel.updates).join(', '),
        ];
      }),
    ),
  );
  const budgets: Budget[] = [];
  for (const count of REPLICA_COUNTS) {
    const p99 = medianOf(of(count), (x) => x.p99);
    budgets.push({
      name: `webhook intake p99 at ${plan.rate} events/s, ${count} replica(s) on one Redis`,
      measured: ms(p99),
      limit: `< ${INTAKE_P99_BUDGET_MS} ms`,
      pass: p99 < INTAKE_P99_BUDGET_MS,
    });
  }
  const oneRounds = of(1).map((x) => shownInChannel(x.channel));
  const rule = of(1).map((x) => burstRule(x.events));
  budgets.push({
    name: "a channel's burst, 1 replica, as the burst gate's rule says",
    measured: roundsWords(oneRounds),
    limit: roundsWords(rule),
    pass: oneRounds.length > 0 && same(oneRounds, rule),
  });
  for (const count of [2, 3] as const) {
    const shown = of(count).map((x) => shownInChannel(x.channel));
    budgets.push({
      name: `a channel's burst, ${count} replicas, as with 1 replica`,
      measured: roundsWords(shown),
      limit: "= 1 replica's, round by round",
      pass: shown.length > 0 && same(shown, oneRounds),
    });
  }
  for (const s of replicas) {
    const problems = logProblems(s.logFile);
    lines.push(
      `${s.name}'s log: ${problems.warnings} warnings, ${problems.errors} errors${problems.samples.length > 0 ? ` (e.g. ${problems.samples.join(' | ')})` : ''}`,
    );
  }
  return { report: lines.join('\n'), budgets };
}
