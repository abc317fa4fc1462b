import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

// Preloaded (`--import`) by `npm run bench:alloc` into the app it measures: V8's sampling heap
// profiler, counting what scavenges and full collections free too (allocation, not what is
// retained), from ALLOC_START_MS to ALLOC_STOP_MS after start; then the profile is written to
// ALLOC_OUT. Nothing else in the app is touched. Plain JavaScript, like probe.mjs.

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
setTimeout(() => {
  void session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    // ALLOC_SURVIVORS=1: only what outlived a scavenge (promoted to the old generation, or freed
    // by a full collection): what makes scavenges long.
    includeObjectsCollectedByMinorGC: process.env.ALLOC_SURVIVORS !== '1',
  });
}, Number(process.env.ALLOC_START_MS)).unref();
setTimeout(async () => {
  const { profile } = await session.post('HeapProfiler.stopSampling');
  writeFileSync(process.env.ALLOC_OUT ?? 'alloc.heapprofile', JSON.stringify(profile));
}, Number(process.env.ALLOC_STOP_MS)).unref();
