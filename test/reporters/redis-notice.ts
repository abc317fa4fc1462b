import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { skipRedisSuites } from '../store/redis-server.ts';

/** The tag every suite that needs a real redis-server carries (declared in vitest.config.ts). */
export const REDIS_TAG = 'redis';

/**
 * Says, after vitest's summary, that the Redis suites did not run, why, and how to run them.
 * A green run without redis-server tests less than it seems to; a line lost among the skipped
 * tests would go unread, so the notice is boxed and comes last.
 */
export class RedisNoticeReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!skipRedisSuites) return;
    const skipped = testModules.flatMap((module) =>
      [...module.children.allTests('skipped')].filter((test) => test.tags.includes(REDIS_TAG)),
    );
    if (skipped.length === 0) return;
    const files = new Set(skipped.map((test) => test.module.relativeModuleId));
    const notice = redisNotice(skipped.length, [...files].sort());
    // Through vitest's logger: the same stream as the summary, so the box is printed after it.
    if (this.#vitest) this.#vitest.logger.log(notice);
    else console.log(notice);
  }
}

/** The boxed notice: `count` Redis tests in `files` were skipped. */
export function redisNotice(count: number, files: readonly string[]): string {
  const lines = [
    `WARNING: ${count} Redis test${count === 1 ? '' : 's'} did NOT run (skipped).`,
    '',
    'Why: there is no `redis-server` on PATH, and CI is not set.',
    'The Redis store and the two-replica tests need a real server on loopback.',
    '',
    'To run them, install Redis and run the tests again:',
    '  Debian/Ubuntu:  apt-get update && apt-get install -y redis-server   (as root)',
    '  macOS:          brew install redis',
    '',
    'Skipped in:',
    ...files.map((file) => `  ${file}`),
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = '!'.repeat(width + 4);
  const body = lines.map((line) => `! ${line.padEnd(width)} !`);
  return ['', rule, ...body, rule, ''].join('\n');
}
