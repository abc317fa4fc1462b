import { join } from 'node:path';
import {
  SANDBOX_SEEDS,
  SANDBOX_SESSION_IDS,
  type Sandbox,
  type WebhookEnvelope,
} from '../offline/cometchat-standin/server.ts';
import type { SlackStandIn } from '../offline/slack-standin/server.ts';
import { openStore } from '../src/store/open-store.ts';
import type { Store } from '../src/store/store.ts';
import { type CpuReading, cpuMeter } from './cpu.ts';
import { type GcRound, gcRound } from './gc-pauses.ts';
import { type Prepared, pacedLoad, type Sample, saturate } from './load.ts';
import { APP_ENTRY, logProblems, type Subject, spawnSubject } from './processes.ts';
import { type BenchRedis, onPath, startRedis } from './redis.ts';
import { type Budget, ms, ratio, table } from './report.ts';
import { appEnv } from './stack.ts';
import { medianOf, percentile } from './stats.ts';

// Webhook intake (`npm run bench:intake`, and a part of `npm run bench`): CometChat's webhooks
// at `POST /cometchat/webhooks/<app>` on one replica of the app as it ships, on the SQLite store
// and on Redis, beside a bare node:http server answering 200 to the same requests. Every event
// is a `call_ended` of its own call, built as the stand-in builds them, with Basic
// authentication, so each is checked, claimed (deduplication is always on), stored and answered,
// then handed on; no channel is subscribed, so handing on ends at the subscriptions (none) and
// what is measured is the intake, not posting. Two figures: events a second at saturation (10
// connections, closed loop) and the p99 of the 200 answer at 200 events a second, open loop
// (each sent on schedule whatever the answers do), in rounds of 10 s; medians over rounds.

export const INTAKE_PATH = '/cometchat/webhooks/default';

/** The Basic authentication the app is started with and every event carries. */
export const INTAKE_WEBHOOK = {
  user: 'bench-webhooks',
  password: 'bench-webhook-password-3f9a61',
} as const;

/** The issue's goal, on this machine: p99 of the 200 answer at 200 events a second. */
export const INTAKE_P99_BUDGET_MS = 20;

function intakePlan(quick: boolean) {
  return {
    rate: 200,
    pacedRounds: quick ? 1 : 3,
    pacedRoundMs: quick ? 2_000 : 10_000,
    saturationRounds: quick ? 1 : 3,
    saturationSeconds: quick ? 1 : 3,
    connections: 10,
    warmUpMs: quick ? 500 : 2_000,
  } as const;
}

/**
 * A maker of unique deliveries: the stand-in's `call_ended` of a seeded call (`template`), each
 * for a session id of its own, so no two bodies are the same delivery. `key` is the session id.
 * With `distinct: 'destroyed_at'` each keeps the seeded call's session id (so the call can be
 * read, as for an alert) and ends a second later than the one before instead.
 */
export function webhookEvents(
  template: Readonly<Record<string, unknown>>,
  distinct: 'sessionId' | 'destroyed_at' = 'sessionId',
): () => Prepared {
  const { appId, region } = SANDBOX_SEEDS.default;
  const credentials = `${INTAKE_WEBHOOK.user}:${INTAKE_WEBHOOK.password}`;
  const headers = {
    'content-type': 'application/json',
    authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`,
  };
  let made = 0;
  return () => {
    made += 1;
    const key = `${String(template.sessionId)}.bench-${made}`;
    const envelope: WebhookEnvelope = {
      trigger: 'call_ended',
      data:
        distinct === 'sessionId'
          ? { ...template, sessionId: key }
          : { ...template, destroyed_at: Number(template.destroyed_at) + made },
      appId,
      region,
      webhook: 'bench-webhook',
    };
    return { body: JSON.stringify(envelope), key, headers };
  };
}

/** The app's webhook deliveries so far by outcome (`received`, `deduplicated`, ...), from /metrics. */
export function webhookCounts(metricsText: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of metricsText.split('\n')) {
    const match = /^cometchat_ops_webhook_events_total\{([^}]*)\} (\S+)$/.exec(line);
    const outcome = match?.[1] ? /outcome="([^"]*)"/.exec(match[1])?.[1] : undefined;
    if (match && outcome) counts[outcome] = (counts[outcome] ?? 0) + Number(match[2]);
  }
  return counts;
}

interface IntakeSubject {
  label: string;
  subject: Subject;
  /** The app's store, opened by the bench too, to see when every stored event was handled. */
  store?: Store;
  /** A store of its own process (redis-server), whose CPU is counted beside the app's. */
  storePid?: number;
}

interface PacedRound {
  p50: number;
  p99: number;
  max: number;
  lagP99: number;
  cpu: CpuReading;
  /** Every other process on the machine, redis-server aside (it is the subject's store). */
  otherPct: number;
  gc: GcRound;
}

interface SaturationRound {
  eventsPerSecond: number;
  cpuUsPerEvent: number;
  /** redis-server's CPU per event; NaN for a store inside the app (SQLite). */
  storeUsPerEvent: number;
  /** From the load's end until no event was left stored (handed on, let go). */
  handledAfterMs: number;
  failed: number;
  /** Every other process on the machine, redis-server aside. */
  otherPct: number;
}

export interface IntakeOptions {
  slack: SlackStandIn;
  sandbox: Sandbox;
  /** The run's directory: the stores' files and the subjects' logs. */
  work: string;
  quick: boolean;
  progress: (line: string) => void;
}

export interface IntakeFigures {
  /** The tables, ready to print. */
  report: string;
  budgets: Budget[];
  /** False when no redis-server was found: Redis was not measured, and the report says so. */
  redisMeasured: boolean;
}

const sleep = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));

/** Everything the webhook intake is measured by: subjects started, rounds run, figures told. */
export async function measureIntake(options: IntakeOptions): Promise<IntakeFigures> {
  const plan = intakePlan(options.quick);
  const started: IntakeSubject[] = [];
  let redis: BenchRedis | undefined;
  try {
    const redisFound = onPath('redis-server');
    options.progress(
      `intake: starting the app on SQLite${redisFound ? ', on Redis' : ' (no redis-server: not on Redis)'} and the node:http server`,
    );
    const appSettings = (storeUrl: string) => ({
      ...appEnv(options.slack, options.sandbox, storeUrl),
      COMETCHAT_WEBHOOK_USER: INTAKE_WEBHOOK.user,
      COMETCHAT_WEBHOOK_PASSWORD: INTAKE_WEBHOOK.password,
    });
    const startApp = async (label: string, name: string, storeUrl: string, storePid?: number) => {
      const subject = await spawnSubject({
        name,
        entry: APP_ENTRY,
        env: appSettings(storeUrl),
        logFile: join(options.work, `${name}.log`),
      });
      const entry: IntakeSubject = { label, subject, ...(storePid ? { storePid } : {}) };
      // Listed before the store is opened, so a failure there still stops the subject.
      started.push(entry);
      entry.store = await openStore(storeUrl);
    };
    await startApp('app (SQLite)', 'intake-sqlite', join(options.work, 'intake.sqlite'));
    if (redisFound) {
      redis = await startRedis();
      await startApp('app (Redis)', 'intake-redis', redis.url, redis.pid);
    }
    const http = await spawnSubject({
      name: 'intake-http',
      entry: 'bench/baselines/plain-http.mjs',
      env: {},
      logFile: join(options.work, 'intake-http.log'),
    });
    started.push({ label: 'node:http', subject: http });
    const template = options.sandbox.webhooks.callEndedData(SANDBOX_SESSION_IDS.unanswered);
    const next = webhookEvents(template);
    const rounds = await runRounds(started, plan, next, options.progress);
    return {
      ...intakeReport(started, plan, rounds, redisFound),
      redisMeasured: redisFound,
    };
  } finally {
    await Promise.allSettled(started.map((s) => s.subject.stop()));
    await Promise.allSettled(started.map((s) => s.store?.close()));
    await redis?.stop();
  }
}

interface Rounds {
  paced: Map<string, PacedRound[]>;
  saturation: Map<string, SaturationRound[]>;
}

/** Warm-up, then the fixed-rate rounds and the saturation rounds, subjects interleaved. */
async function runRounds(
  subjects: readonly IntakeSubject[],
  plan: ReturnType<typeof intakePlan>,
  next: () => Prepared,
  progress: (line: string) => void,
): Promise<Rounds> {
  progress('intake: warming up');
  for (const s of subjects) {
    const { port } = s.subject;
    await pacedLoad({ port, path: INTAKE_PATH, rate: plan.rate, durationMs: plan.warmUpMs, next });
    await saturate({
      port,
      path: INTAKE_PATH,
      connections: plan.connections,
      durationSeconds: 1,
      next,
    });
    if (s.store) await handled(s);
  }
  const paced = new Map<string, PacedRound[]>();
  for (let round = 1; round <= plan.pacedRounds; round += 1) {
    progress(`intake: round ${round}/${plan.pacedRounds} at ${plan.rate} events/s`);
    for (const s of subjects) {
      const rounds = paced.get(s.label) ?? [];
      rounds.push(await pacedRound(s, plan, next));
      paced.set(s.label, rounds);
    }
  }
  const saturation = new Map<string, SaturationRound[]>();
  for (let round = 1; round <= plan.saturationRounds; round += 1) {
    progress(`intake: saturation round ${round}/${plan.saturationRounds}`);
    for (const s of subjects) {
      const rounds = saturation.get(s.label) ?? [];
      rounds.push(await saturationRound(s, plan, next));
      saturation.set(s.label, rounds);
    }
  }
  return { paced, saturation };
}

async function countsOf(s: IntakeSubject): Promise<Record<string, number>> {
  if (!s.store) return {};
  const response = await fetch(`http://127.0.0.1:${s.subject.port}/metrics`);
  return webhookCounts(await response.text());
}

/**
 * Each event was taken as a new one: counted `received` (at least `ok`: a saturation round
 * stops with requests in flight that the app still takes), none deduplicated or refused.
 */
function checkTaken(
  s: IntakeSubject,
  before: Record<string, number>,
  after: Record<string, number>,
  ok: number,
) {
  if (!s.store) return;
  const delta = (outcome: string) => (after[outcome] ?? 0) - (before[outcome] ?? 0);
  if (delta('received') < ok || delta('deduplicated') > 0 || delta('refused') > 0) {
    throw new Error(
      `bench: ${s.label} answered ${ok} events but counted ${delta('received')} received, ${delta('deduplicated')} deduplicated, ${delta('refused')} refused`,
    );
  }
}

/** Waits until the app has handed on every event it stored; resolves with how long that took. */
export async function handled(s: Pick<IntakeSubject, 'label' | 'store'>): Promise<number> {
  const began = performance.now();
  while ((await s.store?.listWebhookEvents(Number.MAX_SAFE_INTEGER))?.length) {
    if (performance.now() - began > 30_000) {
      throw new Error(`bench: ${s.label} still held stored events 30 s after the load`);
    }
    await sleep(5);
  }
  return performance.now() - began;
}

/** Every answer a 200: anything else is a broken bench (a refused event), not a slow app. */
export function checkAnswers(label: string, samples: readonly Sample[]): Sample[] {
  const ok = samples.filter((s) => s.status === 200);
  if (ok.length < samples.length) {
    const statuses = [...new Set(samples.filter((s) => s.status !== 200).map((s) => s.status))];
    throw new Error(
      `bench: ${label}: ${samples.length - ok.length} of ${samples.length} events not answered 200 (${statuses.join(', ')})`,
    );
  }
  return ok;
}

async function pacedRound(
  s: IntakeSubject,
  plan: ReturnType<typeof intakePlan>,
  next: () => Prepared,
): Promise<PacedRound> {
  const before = await countsOf(s);
  await s.subject.gcPauses();
  const meter = cpuMeter(s.subject.pid);
  const storeMeter = s.storePid === undefined ? undefined : cpuMeter(s.storePid);
  const samples = await pacedLoad({
    port: s.subject.port,
    path: INTAKE_PATH,
    rate: plan.rate,
    durationMs: plan.pacedRoundMs,
    next,
  });
  const cpu = meter();
  const store = storeMeter?.();
  const storePct = store ? (store.subjectMs / store.elapsedMs) * 100 : 0;
  const pauses = await s.subject.gcPauses();
  const ok = checkAnswers(s.label, samples);
  await handled(s);
  checkTaken(s, before, await countsOf(s), ok.length);
  const acks = ok.map((sample) => sample.ackMs);
  const p99 = percentile(acks, 99);
  return {
    p50: percentile(acks, 50),
    p99,
    max: percentile(acks, 100),
    lagP99: percentile(
      samples.map((sample) => sample.lagMs),
      99,
    ),
    cpu,
    otherPct: Math.max(0, cpu.foreignPct - storePct),
    gc: gcRound(pauses, ok, p99),
  };
}

async function saturationRound(
  s: IntakeSubject,
  plan: ReturnType<typeof intakePlan>,
  next: () => Prepared,
): Promise<SaturationRound> {
  const before = await countsOf(s);
  const meter = cpuMeter(s.subject.pid);
  const storeMeter = s.storePid === undefined ? undefined : cpuMeter(s.storePid);
  const result = await saturate({
    port: s.subject.port,
    path: INTAKE_PATH,
    connections: plan.connections,
    durationSeconds: plan.saturationSeconds,
    next,
  });
  const handledAfterMs = s.store ? await handled(s) : 0;
  // Read once the stored events are handled: their handing on is part of each event's cost.
  const cpu = meter();
  const storeCpu = storeMeter?.();
  checkTaken(s, before, await countsOf(s), result.ok);
  const perEvent = (cpuMs: number) => (cpuMs * 1000) / Math.max(1, result.ok);
  return {
    eventsPerSecond: result.requestsPerSecond,
    cpuUsPerEvent: perEvent(cpu.subjectMs),
    storeUsPerEvent: storeCpu ? perEvent(storeCpu.subjectMs) : Number.NaN,
    otherPct: Math.max(
      0,
      cpu.foreignPct - (storeCpu ? (storeCpu.subjectMs / storeCpu.elapsedMs) * 100 : 0),
    ),
    handledAfterMs,
    failed: result.failed,
  };
}

/** `3 rounds of 10 s`, `1 round of 2 s`. */
const roundsOf = (count: number, seconds: number) =>
  `${count} round${count === 1 ? '' : 's'} of ${seconds} s`;

const pct = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} %` : 'n/a');

/** The tables and the budgets. */
function intakeReport(
  subjects: readonly IntakeSubject[],
  plan: ReturnType<typeof intakePlan>,
  rounds: Rounds,
  redisMeasured: boolean,
): Omit<IntakeFigures, 'redisMeasured'> {
  const lines: string[] = [];
  const budgets: Budget[] = [];
  const paced = (label: string) => rounds.paced.get(label) ?? [];
  const saturation = (label: string) => rounds.saturation.get(label) ?? [];
  lines.push(
    `\n## Webhook intake: POST ${INTAKE_PATH} (each event unique, deduplication on, no subscriptions)`,
  );
  if (!redisMeasured) lines.push(redisNotMeasured());
  lines.push(
    `\n### Events a second one replica takes (${plan.connections} connections, closed loop, ${roundsOf(plan.saturationRounds, plan.saturationSeconds)})`,
  );
  const httpRate = medianOf(saturation('node:http'), (r) => r.eventsPerSecond);
  lines.push(
    table(
      [
        'subject',
        'events/s',
        '÷ node:http',
        'CPU per event',
        'redis-server CPU per event',
        'all handled after the load',
        'failed',
        'other CPU',
      ],
      subjects.map((s) => {
        const r = saturation(s.label);
        const rate = medianOf(r, (x) => x.eventsPerSecond);
        return [
          s.label,
          rate.toFixed(0),
          ratio(rate, httpRate),
          `${medianOf(r, (x) => x.cpuUsPerEvent).toFixed(0)} µs`,
          s.storePid === undefined ? '-' : `${medianOf(r, (x) => x.storeUsPerEvent).toFixed(0)} µs`,
          s.store
            ? ms(
                medianOf(r, (x) => x.handledAfterMs),
                0,
              )
            : '-',
          String(r.reduce((sum, x) => sum + x.failed, 0)),
          pct(medianOf(r, (x) => x.otherPct)),
        ];
      }),
    ),
  );
  lines.push(
    "An event is taken when it is answered 200: checked, claimed, stored. The app then hands it on (no subscription here, so that ends at the subscriptions) and lets it go; \"all handled\" is how long after the load the last stored event was let go, so a backlog the answers hid would show there. CPU per event is the subject's, that work included; on SQLite the store works inside the app's process, on Redis in redis-server's, shown beside.",
  );
  lines.push(
    `\n### The 200 answer at ${plan.rate} events a second (open loop, ${roundsOf(plan.pacedRounds, plan.pacedRoundMs / 1000)}; medians over rounds)`,
  );
  const httpP99 = medianOf(paced('node:http'), (r) => r.p99);
  lines.push(
    table(
      [
        'subject',
        'p50',
        'p99',
        'p99 ÷ node:http',
        'p99 by round (other CPU)',
        'slowest',
        'subject CPU',
        'bench CPU',
        'other CPU',
        'generator lag p99',
        'longest GC pause',
        'slowest 1% in a GC pause',
      ],
      subjects.map((s) => {
        const r = paced(s.label);
        const p99 = medianOf(r, (x) => x.p99);
        if (s.store) {
          budgets.push({
            name: `webhook intake p99 at ${plan.rate} events/s, ${s.label}`,
            measured: `${ms(p99)} = ${ratio(p99, httpP99)} of node:http's ${ms(httpP99)}`,
            limit: `< ${INTAKE_P99_BUDGET_MS} ms`,
            pass: p99 < INTAKE_P99_BUDGET_MS,
          });
        }
        return [
          s.label,
          ms(medianOf(r, (x) => x.p50)),
          ms(p99),
          ratio(p99, httpP99),
          r.map((x) => `${x.p99.toFixed(2)} (${pct(x.otherPct)})`).join(', '),
          ms(medianOf(r, (x) => x.max)),
          pct(medianOf(r, (x) => (x.cpu.subjectMs / x.cpu.elapsedMs) * 100)),
          pct(medianOf(r, (x) => (x.cpu.benchMs / x.cpu.elapsedMs) * 100)),
          pct(medianOf(r, (x) => x.otherPct)),
          ms(
            medianOf(r, (x) => x.lagP99),
            1,
          ),
          ms(medianOf(r, (x) => x.gc.longestMs)),
          `${r.reduce((sum, x) => sum + x.gc.tailInPause, 0)} of ${r.reduce((sum, x) => sum + x.gc.tail, 0)}`,
        ];
      }),
    ),
  );
  lines.push(
    'CPU as % of one core over the round; "bench" is the load generator\'s process, "other" every process outside the bench and the subject (redis-server aside), per round beside its p99. The last column counts the answers at or above their round\'s p99 in flight while a collector pause began or lasted.',
  );
  for (const s of subjects.filter((x) => x.store)) {
    const problems = logProblems(s.subject.logFile);
    lines.push(
      `${s.label}'s log: ${problems.warnings} warnings, ${problems.errors} errors${problems.samples.length > 0 ? ` (e.g. ${problems.samples.join(' | ')})` : ''}`,
    );
  }
  if (!redisMeasured) lines.push(redisNotMeasured());
  return { report: lines.join('\n'), budgets };
}

/** Said before and after the figures: a figure missing must not pass for one measured. */
export function redisNotMeasured(what = 'the webhook intake on the Redis store'): string {
  const sentence = `REDIS NOT MEASURED: no redis-server on PATH, so ${what} was not measured in this run, and has no budget. Install it (Debian or Ubuntu: sudo apt-get update && sudo apt-get install -y redis-server; macOS: brew install redis), then run the bench again.`;
  // Wrapped at 80 characters, word by word.
  const text = sentence.split(' ').reduce<string[]>((lines, word) => {
    const last = lines.at(-1);
    if (last !== undefined && last.length + word.length < 80)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
    return lines;
  }, []);
  const width = Math.max(...text.map((line) => line.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  return [rule, ...text.map((line) => `| ${line.padEnd(width)} |`), rule].join('\n');
}
