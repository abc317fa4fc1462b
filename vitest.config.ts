import { defineConfig } from 'vitest/config';
import { NodeVersionReporter } from './test/reporters/node-version.ts';
import { REDIS_TAG, RedisNoticeReporter } from './test/reporters/redis-notice.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests start real servers on loopback; two workers fit a 2-core machine.
    maxWorkers: 2,
    tags: [
      {
        name: REDIS_TAG,
        description: 'needs redis-server on PATH; skipped without it, except under CI',
      },
    ],
    // The notice comes after the default reporter's summary, so it is the last thing read.
    reporters: [new NodeVersionReporter(), 'default', new RedisNoticeReporter()],
  },
});
