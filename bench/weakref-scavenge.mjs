// `node --expose-gc bench/weakref-scavenge.mjs`: why fetch's responses outlive scavenges
// (BENCHMARKS.md, "What the collector keeps"). A thousand objects nothing holds but a WeakRef
// each (as undici holds every fetch response and its body stream) are still there after a
// young-generation collection, and gone after a full one: V8 keeps a WeakRef's target through
// scavenges, so such an object is copied, then promoted, instead of freed.

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** How many of 1,000 weakly referenced objects are left after one collection of `type`. */
async function survivors(type) {
  const refs = Array.from({ length: 1_000 }, (_, i) => new WeakRef({ i, items: [i, i, i] }));
  // A WeakRef's target is kept until the end of the task that made or read it: wait for the next.
  await nextTask();
  globalThis.gc({ type });
  await nextTask();
  return refs.filter((ref) => ref.deref() !== undefined).length;
}

const minor = await survivors('minor');
const major = await survivors('major');
process.stdout.write(
  `left after a scavenge: ${minor} of 1000; after a full collection: ${major}\n`,
);
