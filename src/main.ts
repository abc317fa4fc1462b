import { readFileSync } from 'node:fs';
import { olderNodeSentence } from './node-version.ts';

// The entry, and all it does before anything else loads: check that this Node is the one the
// project needs. Everything else is in run.ts, imported only then: its imports (node:sqlite, the
// compile cache's API) are resolved before any of its code runs, so on an older Node they fail
// with Node's own message and no word of which Node to use. The bundle keeps run.ts in a file
// of its own for the same reason (esbuild.config.mjs).

const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  .engines?.node;
const older =
  typeof engines === 'string' ? olderNodeSentence(process.versions.node, engines) : undefined;
if (older !== undefined) {
  process.stderr.write(older);
  process.exit(1);
}
await import('./run.ts');
