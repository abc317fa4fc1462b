import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The project runs on the Node it pins, wherever it is run: .nvmrc for a version manager, the
// `node` package in devDependencies for npm scripts (node_modules/.bin comes first on their
// PATH), the Dockerfile's base image and `engines`. All four name one version.

const root = new URL('../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const pinned = read('.nvmrc').trim();

describe('the pinned Node', () => {
  it('is the one the tests run on', () => {
    expect(process.version).toBe(`v${pinned}`);
  });

  it('is named alike by .nvmrc, the node devDependency, engines and every Dockerfile stage', () => {
    const pkg = JSON.parse(read('package.json')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    expect(pkg.devDependencies.node).toBe(pinned);
    const major = pinned.split('.')[0];
    expect(pkg.engines.node).toMatch(new RegExp(`^>=${major}\\.`));
    const bases = [...read('Dockerfile').matchAll(/^FROM node:(\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toBe(`${pinned}-bookworm-slim`);
  });
});
