import { mkdtemp } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMeter } from './cpu.ts';
import { pacedLoad, saturate } from './load.ts';
import { APP_ENTRY, freePort, type Subject, spawnSubject } from './processes.ts';
import { startRedis } from './redis.ts';
import { machine, ms, table } from './report.ts';
import { appEnv, COMMAND_TEXTS, signedCommand, startStandIns } from './stack.ts';
import { median, percentile } from './stats.ts';

// `npm run bench:replicas`: one replica against two, sharing Redis, behind a round-robin on
// loopback (a TCP proxy in the bench's process that hands each new connection to the next
// replica). Each serves `/cometchat call` (one CometChat request per command) at saturation and
// at fixed rates; its figures were in BENCHMARKS.md ("Where one process is not enough", now in git history).
// Needs redis-server on PATH.

const ROUNDS = Number(process.env.REPLICA_ROUNDS ?? 3);
const TEXT = COMMAND_TEXTS.call;
const RATES = [200, 400];

/** Round-robin by connection over the given ports. */
async function roundRobin(
  ports: () => readonly number[],
): Promise<{ port: number; server: Server }> {
  let next = 0;
  const server = createServer((client: Socket) => {
    const targets = ports();
    const upstream = connect(targets[next++ % targets.length] as number, '127.0.0.1');
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

const work = await mkdtemp(join(tmpdir(), 'bench-replicas-'));
const redis = await startRedis();
const { sandbox, slack, driver, close } = await startStandIns();
const replicas: Subject[] = [];
for (const name of ['replica-1', 'replica-2']) {
  replicas.push(
    await spawnSubject({
      name,
      entry: APP_ENTRY,
      env: appEnv(slack, sandbox, redis.url),
      logFile: join(work, `${name}.log`),
    }),
  );
}
let active = 1;
const proxy = await roundRobin(() => replicas.slice(0, active).map((r) => r.port));
const next = () => signedCommand(driver, TEXT);
const reset = () => {
  slack.reset();
  sandbox.requests.length = 0;
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

type Row = {
  rps: number[];
  cpuPct: number[];
  benchPct: number[];
  ackP99: Map<number, number[]>;
  replyP99: Map<number, number[]>;
};
const rows: Record<1 | 2, Row> = {
  1: { rps: [], cpuPct: [], benchPct: [], ackP99: new Map(), replyP99: new Map() },
  2: { rps: [], cpuPct: [], benchPct: [], ackP99: new Map(), replyP99: new Map() },
};
try {
  process.stdout.write(`Machine: ${machine()}\n`);
  for (const count of [1, 2] as const) {
    active = count;
    await saturate({
      port: proxy.port,
      path: '/slack/events',
      connections: 20,
      durationSeconds: 3,
      next,
    });
    await settle();
    reset();
  }
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const count of [1, 2] as const) {
      active = count;
      process.stdout.write(`· round ${round}/${ROUNDS}, ${count} replica(s)\n`);
      const meters = replicas.slice(0, count).map((r) => cpuMeter(r.pid));
      const result = await saturate({
        port: proxy.port,
        path: '/slack/events',
        connections: 20,
        durationSeconds: 4,
        next,
      });
      const cpu = meters.map((read) => read());
      rows[count].rps.push(result.requestsPerSecond);
      rows[count].cpuPct.push(
        cpu.reduce((sum, c) => sum + (c.subjectMs / c.elapsedMs) * 100, 0) / cpu.length,
      );
      // The load generator, the proxy, the sandbox and the Slack stand-in share this process.
      rows[count].benchPct.push(((cpu[0]?.benchMs ?? 0) / (cpu[0]?.elapsedMs ?? 1)) * 100);
      await settle();
      reset();
      for (const rate of RATES) {
        const samples = await pacedLoad({
          port: proxy.port,
          path: '/slack/events',
          rate,
          durationMs: 2_500,
          next,
        });
        await settle();
        const postedAt = new Map(slack.responses.map((p) => [p.id, p.at]));
        const replies = samples
          .map((s) => (postedAt.get(s.key) ?? Number.NaN) - s.sentAt)
          .filter((v) => Number.isFinite(v));
        const acks = samples.filter((s) => s.status === 200).map((s) => s.ackMs);
        rows[count].ackP99.set(rate, [
          ...(rows[count].ackP99.get(rate) ?? []),
          percentile(acks, 99),
        ]);
        rows[count].replyP99.set(rate, [
          ...(rows[count].replyP99.get(rate) ?? []),
          percentile(replies, 99),
        ]);
        if (replies.length < samples.length * 0.99) {
          process.stdout.write(
            `  ${samples.length - replies.length} replies missing at ${rate}/s\n`,
          );
        }
        reset();
      }
    }
  }
  const cells = (count: 1 | 2) => [
    String(count),
    median(rows[count].rps).toFixed(0),
    `${median(rows[count].cpuPct).toFixed(0)} %`,
    `${median(rows[count].benchPct).toFixed(0)} %`,
    ...RATES.flatMap((rate) => [
      ms(median(rows[count].ackP99.get(rate) ?? [])),
      ms(median(rows[count].replyP99.get(rate) ?? [])),
    ]),
  ];
  process.stdout.write(
    `${table(
      [
        'replicas',
        'call/s at saturation',
        'CPU per replica',
        'bench CPU',
        ...RATES.flatMap((rate) => [`ack p99 at ${rate}/s`, `reply p99 at ${rate}/s`]),
      ],
      [cells(1), cells(2)],
    )}\n`,
  );
  process.stdout.write(
    `Two replicas ÷ one at saturation: ${(median(rows[2].rps) / median(rows[1].rps)).toFixed(2)}×. CometChat allows 20,000 requests a minute per app (333 a second): one call command is one request.\n`,
  );
} finally {
  await Promise.allSettled(replicas.map((r) => r.stop()));
  proxy.server.close();
  await close();
  await redis.stop();
}
