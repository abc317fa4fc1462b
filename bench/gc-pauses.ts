import { constants } from 'node:perf_hooks';

// The collector's pauses in a measured process (recorded by probe.mjs), set against the answers
// of one round. At 200 requests a second a round's p99 is its fifth-slowest answer, and an
// answer that arrives while the subject's main thread is stopped for a scavenge (2-4 ms here) or
// a mark-compact (4-12 ms) waits for it: this tells how much of a round's tail that explains.

export interface GcPause {
  /** Wall-clock ms (sub-millisecond) when the pause began, comparable with a sample's sentAt. */
  at: number;
  ms: number;
  /** perf_hooks' NODE_PERFORMANCE_GC_* kind. */
  kind: number;
}

export interface GcRound {
  /** Main-thread pauses in the round, summed. */
  pauseMs: number;
  scavenges: number;
  markCompacts: number;
  longestMs: number;
  /** The round's slowest 1% of answers (at or above its p99). */
  tail: number;
  /** Of those, how many were in flight while a pause began or lasted. */
  tailInPause: number;
}

interface Timed {
  sentAt: number;
  ackMs: number;
}

/** The pauses of one round against its answers (`p99`: the round's own). */
export function gcRound(
  pauses: readonly GcPause[],
  answers: readonly Timed[],
  p99: number,
): GcRound {
  const tail = answers.filter((a) => a.ackMs >= p99);
  const overlaps = (a: Timed) =>
    pauses.some((p) => p.at < a.sentAt + a.ackMs && p.at + p.ms > a.sentAt);
  return {
    pauseMs: pauses.reduce((sum, p) => sum + p.ms, 0),
    scavenges: pauses.filter((p) => p.kind === constants.NODE_PERFORMANCE_GC_MINOR).length,
    markCompacts: pauses.filter((p) => p.kind === constants.NODE_PERFORMANCE_GC_MAJOR).length,
    longestMs: pauses.reduce((most, p) => Math.max(most, p.ms), 0),
    tail: tail.length,
    tailInPause: tail.filter(overlaps).length,
  };
}
