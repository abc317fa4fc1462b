// Small order statistics. Nearest-rank percentiles: with 150 samples p99 is the 149th value,
// a real observation rather than an interpolation between two.

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Median over rounds of a figure taken per round; NaN rounds (no samples) are left out. */
export function medianOf<T>(rounds: readonly T[], pick: (round: T) => number): number {
  return median(rounds.map(pick).filter((value) => !Number.isNaN(value)));
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable with the stand-in's. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}
