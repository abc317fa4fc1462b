import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APP_ENTRY, compileCacheStep, ROOT, SHIPPED_NODE_ARGS } from '../../bench/processes.ts';

const STAGES = `FROM node:24 AS runtime
ENV NODE_COMPILE_CACHE=/app/compile-cache
RUN mkdir -p /app/compile-cache && chown node:node /app/compile-cache
USER node
RUN node --v8-pool-size=1 dist/app.mjs --fill-compile-cache
CMD ["node", "--v8-pool-size=1", "dist/app.mjs"]
`;

describe('compileCacheStep', () => {
  it("splits the image's `RUN node` step into node's options and the file it runs", () => {
    expect(compileCacheStep(STAGES)).toEqual({
      nodeArgs: ['--v8-pool-size=1'],
      entry: 'dist/app.mjs',
    });
  });

  it('refuses a Dockerfile whose image has no compile cache to start with', () => {
    expect(() => compileCacheStep(STAGES.replace(/^ENV .*$/m, ''))).toThrow(
      'sets no NODE_COMPILE_CACHE',
    );
    expect(() => compileCacheStep(STAGES.replace(/^RUN node .*$/m, ''))).toThrow(
      'no `RUN node ... <entry> --fill-compile-cache` step',
    );
  });
});

describe("the image's compile cache", () => {
  it('is filled under the options the app runs with (Node keeps a cache per V8 flags)', () => {
    const step = compileCacheStep(readFileSync(`${ROOT}/Dockerfile`, 'utf8'));
    expect(step.nodeArgs).toEqual(SHIPPED_NODE_ARGS);
    expect(step.entry).toBe(APP_ENTRY);
  });
});
