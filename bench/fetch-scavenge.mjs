// `node bench/fetch-scavenge.mjs`: what outlives a scavenge per request, for Node's fetch and for
// node:http (BENCHMARKS.md, "What the tails follow"). Each way runs in a child process whose
// young generation is large enough that no collection falls in its 2,000 requests. After the
// requests, and 50 ms of quiet, two scavenges move whatever they find alive into the old
// generation. The old generation's growth, divided by the number of requests, is what a scavenge
// copies and promotes for each. A full collection then shows how much of it was garbage.
//
// `fetch, registries replaced` loads fetch with undici's two FinalizationRegistry instances made
// inert. Its figure is the same as plain fetch's, so those registries, and the WeakRef held in
// one, are not what keeps each request alive through a scavenge.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

const REQUESTS = 2_000;
const WAYS = ['node:http GET', 'fetch GET', 'fetch POST 4 KB', 'fetch GET, registries replaced'];

/** Used bytes of the old generation (large objects included). */
function oldGeneration() {
  return v8
    .getHeapSpaceStatistics()
    .filter((space) => ['old_space', 'large_object_space'].includes(space.space_name))
    .reduce((sum, space) => sum + space.space_used_size, 0);
}

/** Loads fetch while FinalizationRegistry makes registries that keep nothing. */
async function loadFetchWithInertRegistries() {
  const Real = globalThis.FinalizationRegistry;
  let made = 0;
  globalThis.FinalizationRegistry = class {
    constructor() {
      made += 1;
    }
    register() {}
    unregister() {}
  };
  // Node loads undici on the first call to fetch, or when node:http is loaded (which is why this
  // script imports node:http only afterwards); its registries are made then.
  await fetch('data:,loaded').then((response) => response.arrayBuffer());
  globalThis.FinalizationRegistry = Real;
  // Were fetch loaded before this, its registries would be real and the figure would mislead.
  if (made === 0) throw new Error('fetch was loaded before its registries could be replaced');
}

/** One request of `way` to `url`, its answer read to the end. */
async function request(http, agent, way, url) {
  if (way === 'node:http GET') {
    return new Promise((resolve, reject) => {
      http.get(url, { agent }, (answer) => answer.resume().on('end', resolve)).on('error', reject);
    });
  }
  const init = way.includes('POST')
    ? { method: 'POST', body: JSON.stringify({ text: 'x'.repeat(4_000) }) }
    : {};
  await (await fetch(url, init)).arrayBuffer();
}

/** Runs one way in this process and prints its figures as JSON. */
async function measure(way) {
  if (way.includes('registries replaced')) await loadFetchWithInertRegistries();
  const { default: http } = await import('node:http');
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((incoming, answer) => {
    incoming.resume().on('end', () => answer.setHeader('content-length', 2).end('ok'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const send = () => request(http, agent, way, url);
  for (let i = 0; i < 200; i += 1) await send();
  globalThis.gc();
  const before = oldGeneration();
  for (let i = 0; i < REQUESTS; i += 4) {
    await Promise.all([send(), send(), send(), send()]);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  globalThis.gc({ type: 'minor' });
  globalThis.gc({ type: 'minor' });
  const promoted = oldGeneration() - before;
  globalThis.gc();
  const kept = oldGeneration() - before;
  process.stdout.write(JSON.stringify({ promoted: promoted / REQUESTS, kept: kept / REQUESTS }));
  server.close();
  agent.destroy();
}

const [way] = process.argv.slice(2);
if (way) {
  await measure(way);
} else {
  const self = fileURLToPath(import.meta.url);
  const flags = ['--expose-gc', '--min-semi-space-size=128', '--max-semi-space-size=128'];
  process.stdout.write(`Node ${process.version}, ${REQUESTS} requests each, KB per request:\n`);
  for (const each of WAYS) {
    const run = spawnSync(process.execPath, [...flags, self, each], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${each} failed: ${run.stderr}`);
    const { promoted, kept } = JSON.parse(run.stdout);
    process.stdout.write(
      `  ${each.padEnd(32)} promoted by a scavenge ${(promoted / 1024).toFixed(1).padStart(5)}` +
        ` · left after a full collection ${(kept / 1024).toFixed(1).padStart(4)}\n`,
    );
  }
}
