import { readFileSync } from 'node:fs';

// CPU accounting from /proc (Linux; NaN elsewhere): what the subject used, what the bench
// process used, and what everything else on the machine used meanwhile. A shared machine
// (another build, a test run) shows up in the last figure, so a noisy round can be told apart.

/** CPU time in ms (/proc reports clock ticks of 10 ms, USER_HZ = 100 on Linux). */
const TICK_MS = 10;

/** User + system CPU of one process in ms. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU time of the whole machine in ms (every core; steal counts as busy). */
export function machineBusyMs(): number {
  try {
    const first = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/).map(Number);
    return (
      [user, nice, system, irq, softirq, steal].reduce<number>((sum, v) => sum + (v ?? 0), 0) *
      TICK_MS
    );
  } catch {
    return Number.NaN;
  }
}

function benchCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export interface CpuReading {
  elapsedMs: number;
  /** CPU the subject used, ms. */
  subjectMs: number;
  /** CPU the bench process (load generator, sandbox, stand-in) used, ms. */
  benchMs: number;
  /** Everything else on the machine, as % of one core over the interval. */
  foreignPct: number;
}

/** Starts measuring; call the result to read what was used since. */
export function cpuMeter(subjectPid?: number): () => CpuReading {
  const subjectCpu = () => (subjectPid === undefined ? 0 : processCpuMs(subjectPid));
  const started = performance.now();
  const subject = subjectCpu();
  const bench = benchCpuMs();
  const machine = machineBusyMs();
  return () => {
    const elapsedMs = performance.now() - started;
    const subjectMs = subjectCpu() - subject;
    const benchMs = benchCpuMs() - bench;
    const machineMs = machineBusyMs() - machine;
    return {
      elapsedMs,
      subjectMs,
      benchMs,
      foreignPct: Math.max(0, ((machineMs - subjectMs - benchMs) / elapsedMs) * 100),
    };
  };
}

/** Load from other processes over `ms`, as % of one core, while the bench stands still. */
export async function backgroundLoad(ms: number): Promise<number> {
  const read = cpuMeter();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return read().foreignPct;
}
