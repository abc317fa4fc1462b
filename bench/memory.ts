import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Prepared, pacedLoad } from './load.ts';
import type { Subject } from './processes.ts';
import { type Budget, mib, ms, ratio, table } from './report.ts';
import { percentile } from './stats.ts';

// What a replica costs in memory, as an operator sizes it: the peak resident size over a long
// run (the kernel's own high-water mark, VmHWM, not a reading after a collection), and whether
// the app lives within a real memory limit. The limit is a cgroup made for the run, as a
// container's is: v2 (memory.max) or v1 (memory.limit_in_bytes), swap off, under the bench's own
// group. Making one needs write access to the cgroup tree (root, or a delegated subtree); without
// it the limited run is reported as not measured, never as passed.

/** The kernel's high-water mark of a process's resident size (VmHWM), in bytes. */
export async function peakResident(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`bench: no VmHWM for process ${pid}`);
  return Number(kib) * 1024;
}

/** Sets the high-water mark back to the current resident size (`clear_refs` 5, Linux 4.0+). */
export async function resetPeak(pid: number): Promise<void> {
  await writeFile(`/proc/${pid}/clear_refs`, '5');
}

export interface MemoryGroup {
  /** Where the group is, for the report. */
  path: string;
  version: 1 | 2;
  limitBytes: number;
  /** The argv prefix that starts a command inside the group (a shell that joins it, then execs). */
  launcher: readonly string[];
  /** The group's own peak usage (memory.peak, memory.max_usage_in_bytes), page cache included. */
  peak(): Promise<number>;
  /** Processes the kernel's OOM killer killed in the group. */
  oomKills(): Promise<number>;
  remove(): Promise<void>;
}

/** The memory cgroup this process is in: its directory and the hierarchy's version. */
async function ownGroup(): Promise<{ dir: string; version: 1 | 2 } | undefined> {
  const lines = (await readFile('/proc/self/cgroup', 'utf8')).split('\n');
  const v1 = lines.find((line) => /^\d+:([^:]*,)?memory(,[^:]*)?:/.test(line));
  if (v1 !== undefined) {
    const dir = join('/sys/fs/cgroup/memory', v1.slice(v1.lastIndexOf(':') + 1));
    if (existsSync(join(dir, 'memory.limit_in_bytes'))) return { dir, version: 1 };
  }
  const v2 = lines.find((line) => line.startsWith('0::'));
  if (v2 !== undefined) {
    const dir = join('/sys/fs/cgroup', v2.slice(3));
    const controllers = await readFile(join(dir, 'cgroup.controllers'), 'utf8').catch(() => '');
    if (controllers.split(/\s+/).includes('memory')) return { dir, version: 2 };
  }
  return undefined;
}

async function readNumber(file: string): Promise<number> {
  return Number((await readFile(file, 'utf8')).trim());
}

/** The `name value` lines of a cgroup file (memory.events, memory.oom_control) as a lookup. */
async function readFields(file: string): Promise<Map<string, number>> {
  const text = await readFile(file, 'utf8');
  return new Map(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/))
      .map(([key, value]) => [key ?? '', Number(value)] as const),
  );
}

/**
 * A new memory cgroup of `limitBytes` (swap off) under the bench's own, or why none could be
 * made. Its processes are charged for their resident memory and their page cache, as in a
 * container; at the limit the kernel reclaims cache, then kills.
 */
export async function memoryGroup(
  limitBytes: number,
): Promise<MemoryGroup | { unavailable: string }> {
  if (process.platform !== 'linux') return { unavailable: 'not Linux' };
  const own = await ownGroup();
  if (own === undefined) return { unavailable: 'no memory cgroup controller for this process' };
  const dir = join(own.dir, `cometchat-bench-${process.pid}`);
  try {
    await mkdir(dir);
    if (own.version === 1) {
      await writeFile(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      const memsw = join(dir, 'memory.memsw.limit_in_bytes');
      if (existsSync(memsw)) await writeFile(memsw, String(limitBytes));
    } else {
      await writeFile(join(dir, 'memory.max'), String(limitBytes));
      const swap = join(dir, 'memory.swap.max');
      if (existsSync(swap)) await writeFile(swap, '0');
    }
  } catch (error) {
    await rmdir(dir).catch(() => undefined);
    return { unavailable: `cannot make a cgroup under ${own.dir}: ${(error as Error).message}` };
  }
  const procs = join(dir, 'cgroup.procs');
  return {
    path: dir,
    version: own.version,
    limitBytes,
    launcher: ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', procs],
    peak: () =>
      readNumber(join(dir, own.version === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak')),
    oomKills: async () => {
      const fields = await readFields(
        join(dir, own.version === 1 ? 'memory.oom_control' : 'memory.events'),
      );
      return fields.get('oom_kill') ?? 0;
    },
    remove: async () => {
      // A group can be removed once empty; its last process may take a moment to be reaped.
      for (let attempt = 0; attempt < 20; attempt += 1) {
        try {
          await rmdir(dir);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
  };
}

export interface PeakRun {
  /** The kernel's high-water mark over the run, from the resident size when it began. */
  peakBytes: number;
  /** Resident size when the run began (after the high-water mark was reset). */
  startBytes: number;
  ackP50: number;
  ackP99: number;
  answered: number;
  failed: number;
}

/**
 * `requests` commands at `rate` a second (open loop) to a warm subject, its high-water mark reset
 * first: the peak it reaches serving them, and its acknowledgement times.
 */
export async function peakOverRequests(options: {
  subject: Subject;
  rate: number;
  requests: number;
  next: () => Prepared;
  /** Waits for what the answered commands post (replies), so that none is cut off. */
  settle: (answered: number) => Promise<void>;
}): Promise<PeakRun> {
  const { subject } = options;
  await resetPeak(subject.pid);
  const startBytes = (await readStatus(subject.pid)).rss;
  const samples = await pacedLoad({
    port: subject.port,
    path: '/slack/events',
    rate: options.rate,
    durationMs: (options.requests / options.rate) * 1000,
    next: options.next,
  });
  const ok = samples.filter((s) => s.status >= 200 && s.status < 300);
  await options.settle(ok.length);
  const acks = ok.map((s) => s.ackMs);
  return {
    peakBytes: await peakResident(subject.pid),
    startBytes,
    ackP50: percentile(acks, 50),
    ackP99: percentile(acks, 99),
    answered: ok.length,
    failed: samples.length - ok.length,
  };
}

async function readStatus(pid: number): Promise<{ rss: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024 };
}

/** What a replica is given in the image, compose and Kubernetes files. */
export const REPLICA_MEMORY_BYTES = 256 * 2 ** 20;
/** The peak of the app over the same in bare Bolt's, under the same node options. */
const PEAK_RATIO_BUDGET = 1.5;
/** Slack's deadline for an acknowledgement is 3 s; the app's p99 stays under 1 % of it. */
export const ACK_P99_BUDGET_MS = 30;

export interface PeakSubject {
  label: string;
  subject: Subject;
  text: string;
}

/**
 * The peak resident size of each subject (warm, already started) over `requests` commands at
 * `rate`, one subject after the other; the budget judges the first (the app) against the
 * second (the same command in bare Bolt), with the third (bare Bolt) beside it.
 */
export async function measurePeaks(options: {
  subjects: readonly [PeakSubject, PeakSubject, PeakSubject];
  rate: number;
  requests: number;
  command: (text: string) => Prepared;
  settle: (answered: number) => Promise<void>;
  progress: (line: string) => void;
  /** The limit judged, when not the budget's own (the CI smoke's, over a shorter run). */
  ratioLimit?: number;
}): Promise<{ report: string; budgets: Budget[] }> {
  const limit = options.ratioLimit ?? PEAK_RATIO_BUDGET;
  const runs: PeakRun[] = [];
  for (const { label, subject, text } of options.subjects) {
    options.progress(`memory: ${options.requests} requests at ${options.rate}/s to ${label}`);
    runs.push(
      await peakOverRequests({
        subject,
        rate: options.rate,
        requests: options.requests,
        next: () => options.command(text),
        settle: options.settle,
      }),
    );
  }
  const [app, same, bolt] = runs as [PeakRun, PeakRun, PeakRun];
  const rows = options.subjects.map(({ label }, i) => {
    const run = runs[i] as PeakRun;
    return [
      label,
      mib(run.startBytes),
      mib(run.peakBytes),
      ratio(run.peakBytes, same.peakBytes),
      ratio(run.peakBytes, bolt.peakBytes),
      ms(run.ackP99),
      String(run.failed),
    ];
  });
  const report = [
    `\n## Memory: peak resident size over ${options.requests} requests at ${options.rate}/s (the kernel's VmHWM, reset when the run began)`,
    table(
      ['subject', 'RSS at start', 'peak', '÷ same in Bolt', '÷ bare Bolt', 'ack p99', 'failed'],
      rows,
    ),
  ].join('\n');
  const budgets: Budget[] = [
    {
      name: `peak RSS over ${options.requests} requests at ${options.rate}/s ≤ ${limit} × the same in Bolt`,
      measured: `${mib(app.peakBytes)} = ${ratio(app.peakBytes, same.peakBytes)} of ${mib(same.peakBytes)} (${ratio(app.peakBytes, bolt.peakBytes)} of bare Bolt's ${mib(bolt.peakBytes)})`,
      limit: `≤ ${limit}×`,
      pass: app.peakBytes <= limit * same.peakBytes,
    },
  ];
  return { report, budgets };
}

/**
 * The app as the image runs it, started inside a memory cgroup of REPLICA_MEMORY_BYTES, warmed,
 * then sent `requests` commands at `rate`: it must not be killed, must still answer /healthz,
 * and its acknowledgement p99 must stay within ACK_P99_BUDGET_MS. Without a cgroup to make, it
 * says so loudly and budgets nothing as passed.
 */
export async function measureLimitedReplica(options: {
  spawn: (launcher: readonly string[]) => Promise<Subject>;
  rate: number;
  requests: number;
  warmUpMs: number;
  next: () => Prepared;
  settle: (answered: number) => Promise<void>;
  progress: (line: string) => void;
}): Promise<{ report: string; budgets: Budget[] }> {
  const group = await memoryGroup(REPLICA_MEMORY_BYTES);
  const name = `the app in ${mib(REPLICA_MEMORY_BYTES)} (a cgroup)`;
  if ('unavailable' in group) {
    const line = `MEMORY LIMIT NOT MEASURED: ${group.unavailable}. Run the bench as root on Linux (or with a delegated cgroup) to measure ${name}.`;
    return {
      report: `\n## A replica in ${mib(REPLICA_MEMORY_BYTES)}\n${'!'.repeat(line.length)}\n${line}\n${'!'.repeat(line.length)}`,
      budgets: [
        { name, measured: 'not measured', limit: 'not killed, ack p99 < 30 ms', pass: false },
      ],
    };
  }
  let subject: Subject | undefined;
  try {
    options.progress(`memory: ${name}, ${options.requests} requests at ${options.rate}/s`);
    subject = await options.spawn(group.launcher);
    await pacedLoad({
      port: subject.port,
      path: '/slack/events',
      rate: options.rate,
      durationMs: options.warmUpMs,
      next: options.next,
    }).then((samples) => options.settle(samples.filter((s) => s.status === 200).length));
    const run = await peakOverRequests({ ...options, subject });
    const alive = await fetch(`http://127.0.0.1:${subject.port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    const kills = await group.oomKills();
    const groupPeak = await group.peak();
    const report = [
      `\n## A replica in ${mib(REPLICA_MEMORY_BYTES)}: cgroup v${group.version} ${group.path}, swap off`,
      table(
        [
          'limit',
          'peak (process)',
          'peak (cgroup, page cache too)',
          'OOM kills',
          'answers /healthz after',
          'ack p50',
          'ack p99',
          'failed',
        ],
        [
          [
            mib(group.limitBytes),
            mib(run.peakBytes),
            mib(groupPeak),
            String(kills),
            alive ? 'yes' : 'no',
            ms(run.ackP50),
            ms(run.ackP99),
            String(run.failed),
          ],
        ],
      ),
    ].join('\n');
    const pass = kills === 0 && alive && run.failed === 0 && run.ackP99 < ACK_P99_BUDGET_MS;
    return {
      report,
      budgets: [
        {
          name: `${name}: ${options.requests} requests at ${options.rate}/s`,
          measured: `peak ${mib(run.peakBytes)} (cgroup ${mib(groupPeak)}), ${kills} OOM kills, ${alive ? 'alive' : 'DEAD'}, ${run.failed} failed, ack p99 ${ms(run.ackP99)}`,
          limit: `not killed, ack p99 < ${ACK_P99_BUDGET_MS} ms`,
          pass,
        },
      ],
    };
  } finally {
    await subject?.stop();
    await group.remove();
  }
}
