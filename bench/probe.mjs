// Preloaded (`--import`) into every process the bench measures. Plain JavaScript: the subjects
// run without a loader, as the app ships (processes.ts). Over the IPC channel it answers
// "memory" after a full collection, so resident size is read inside the process, after
// `global.gc()` (which needs `--expose-gc`), and "gc" with the collector's pauses since the last
// ask, so the bench can tell which slow answers waited on one. Nothing in the code under test is
// touched.

import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

/** @type {(() => void) | undefined} */
const collect = globalThis.gc;
/** V8's young generation: sized by the recent allocation rate, not by what the app keeps. */
const YOUNG = new Set(['new_space', 'new_large_object_space']);
/** More pauses than a round makes: older ones are dropped if nobody asks. */
const KEPT = 20_000;

/** @type {import('./gc-pauses.ts').GcPause[]} */
let pauses = [];
// Wall-clock stamps (sub-millisecond), comparable with the load generator's send times. Every
// subject carries this observer alike (the app and both baselines): a callback per collection.
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind ?? 0;
    pauses.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration, kind });
  }
  if (pauses.length > KEPT) pauses = pauses.slice(-KEPT / 2);
}).observe({ entryTypes: ['gc'] });

process.on('message', (message) => {
  if (!process.send) return;
  if (message === 'gc') {
    process.send({ kind: 'gc', pauses });
    pauses = [];
    return;
  }
  if (message !== 'memory') return;
  // Two passes: the first may only queue finalisers that free more on the second.
  collect?.();
  collect?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  let young = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (YOUNG.has(space.space_name)) young += space.physical_space_size;
  }
  process.send({
    kind: 'memory',
    rss,
    heapUsed,
    heapTotal,
    external,
    young,
    gc: collect !== undefined,
  });
});
// The channel must not keep a process alive that would otherwise exit.
process.channel?.unref();
