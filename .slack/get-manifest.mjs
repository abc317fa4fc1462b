// The Slack CLI's get-manifest hook: manifest.yml, the one manifest this project keeps, served as
// the JSON the CLI reads, in the protocol the CLI asks for (plain, or between boundaries).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getProtocol } from '@slack/cli-hooks/src/protocols.js';
import { parse } from 'yaml';

const manifest = parse(
  readFileSync(fileURLToPath(new URL('../manifest.yml', import.meta.url)), 'utf8'),
);
getProtocol(process.argv.slice(1)).respond(JSON.stringify(manifest));
