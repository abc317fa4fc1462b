import { readFileSync } from 'node:fs';
import { z } from 'zod';

// What is running: the app's release (package.json's version) and the Node.js under it. Read
// once at start: package.json is two folders up from src/observe (tests, tsx) and one up from the
// bundle the image runs, dist/app.mjs (the image copies it beside dist/).

/** The name the app's logs, metrics and traces go by. */
export const SERVICE_NAME = 'cometchat-slack-ops';

export interface Build {
  version: string;
  node: string;
}

const PackageJson = z.object({ version: z.string().min(1).max(64) });

const PLACES = ['../../package.json', '../package.json'];

function readVersion(): string {
  for (const place of PLACES) {
    try {
      const text = readFileSync(new URL(place, import.meta.url), 'utf8');
      return PackageJson.parse(JSON.parse(text)).version;
    } catch {
      // Not there, or not ours: the next place. A build information metric is never worth
      // failing a start for.
    }
  }
  return 'unknown';
}

export const BUILD: Build = { version: readVersion(), node: process.versions.node };
