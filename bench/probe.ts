// Preloaded (`--import`) into every process the bench measures: answers "memory" over the IPC
// channel after a full collection, so resident size is read inside the process, after
// `global.gc()` (which needs `--expose-gc`), without touching the code under test.

import { getHeapSpaceStatistics } from 'node:v8';

const collect = (globalThis as { gc?: () => void }).gc;
/** V8's young generation: sized by the recent allocation rate, not by what the app keeps. */
const YOUNG = new Set(['new_space', 'new_large_object_space']);

process.on('message', (message: unknown) => {
  if (message !== 'memory' || !process.send) return;
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
