import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APP_ENTRY, ROOT, SHIPPED_NODE_ARGS, shippedCommand } from '../../bench/processes.ts';

const STAGES = `FROM node:20 AS build
RUN npm run build
FROM node:20 AS runtime
HEALTHCHECK --interval=30s CMD ["node", "dist/healthcheck.js"]
CMD ["node", "--v8-pool-size=1", "dist/main.js"]
`;

describe('shippedCommand', () => {
  it("splits the final CMD into node's options and the entry, past a HEALTHCHECK's CMD", () => {
    expect(shippedCommand(STAGES)).toEqual({
      nodeArgs: ['--v8-pool-size=1'],
      entry: 'dist/main.js',
    });
    expect(shippedCommand('FROM node:20\nCMD ["node", "dist/main.js"]')).toEqual({
      nodeArgs: [],
      entry: 'dist/main.js',
    });
  });

  it('refuses a command the bench could not start as the image does', () => {
    expect(() => shippedCommand('FROM node:20\n')).toThrow('has no CMD');
    expect(() => shippedCommand('CMD node dist/main.js')).toThrow('not an exec-form JSON array');
    expect(() => shippedCommand('CMD ["npm", "start"]')).toThrow('does not run node');
  });
});

describe('the command the app ships with', () => {
  it('is the one `npm start` runs, so that a start by hand is started as the image starts it', () => {
    const start = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts.start;
    expect(start).toBe(['node', ...SHIPPED_NODE_ARGS, APP_ENTRY].join(' '));
  });
});
