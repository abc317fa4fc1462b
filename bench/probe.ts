// Preloaded (`--import`) into every process the bench measures: answers "memory" over the IPC
// channel after a full collection, so resident size is read inside the process, after
// `global.gc()` (which needs `--expose-gc`), without touching the code under test.

const collect = (globalThis as { gc?: () => void }).gc;

process.on('message', (message: unknown) => {
  if (message !== 'memory' || !process.send) return;
  // Two passes: the first may only queue finalisers that free more on the second.
  collect?.();
  collect?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.send({ kind: 'memory', rss, heapUsed, heapTotal, external, gc: collect !== undefined });
});
// The channel must not keep a process alive that would otherwise exit.
process.channel?.unref();
