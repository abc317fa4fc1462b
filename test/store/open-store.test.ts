import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, resolveStoreTarget } from '../../src/store/open-store.ts';
import { DEFAULT_APP } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from './redis-server.ts';

describe('resolveStoreTarget', () => {
  it.each([
    [undefined, { kind: 'sqlite', path: './data/cometchat-ops.sqlite' }],
    ['', { kind: 'sqlite', path: './data/cometchat-ops.sqlite' }],
    ['/var/lib/app/state.sqlite', { kind: 'sqlite', path: '/var/lib/app/state.sqlite' }],
    ['data/state.db', { kind: 'sqlite', path: 'data/state.db' }],
    ['sqlite:data/state.db', { kind: 'sqlite', path: 'data/state.db' }],
    ['sqlite://data/state.db', { kind: 'sqlite', path: 'data/state.db' }],
    ['sqlite:///var/lib/state.db', { kind: 'sqlite', path: '/var/lib/state.db' }],
    ['SQLITE:./x.db', { kind: 'sqlite', path: './x.db' }],
    ['file:///var/lib/my%20state.db', { kind: 'sqlite', path: '/var/lib/my state.db' }],
    ['file:./x.db', { kind: 'sqlite', path: './x.db' }],
    ['redis://127.0.0.1:6379/2', { kind: 'redis', url: 'redis://127.0.0.1:6379/2' }],
    ['rediss://:pw@cache:6380', { kind: 'redis', url: 'rediss://:pw@cache:6380' }],
    ['memory:', { kind: 'memory' }],
  ])('reads %j', (input, expected) => {
    expect(resolveStoreTarget(input)).toEqual(expected);
  });

  it('names the accepted forms, and never a password, for anything else', () => {
    const attempt = () => resolveStoreTarget('postgres://app:s3cret-pw@db:5432/ops');
    expect(attempt).toThrow(/sqlite:PATH.*redis:\/\/.*memory:/);
    expect(attempt).toThrow(/postgres:\/\/app:\*\*\*@db:5432\/ops/);
    expect(attempt).not.toThrow(/s3cret/);
  });

  it('rejects a sqlite URL that names no file', () => {
    expect(() => resolveStoreTarget('sqlite:')).toThrow(/names no file/);
  });
});

describe('openStore', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'open-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens a SQLite file from a file: URL, creating its directory', async () => {
    const path = join(dir, 'sub', 'state.sqlite');
    const store = await openStore(pathToFileURL(path).href);
    try {
      expect(await store.claim('x', 60)).toBe(true);
      expect((await stat(path)).isFile()).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('opens a memory store', async () => {
    const store = await openStore('memory:');
    expect(await store.claim('x', 60)).toBe(true);
    await store.close();
  });
});

describe.skipIf(skipRedisSuites)('openStore on Redis', { tags: ['redis'] }, () => {
  const server = useRedisServer();

  it('opens Redis from a redis:// URL', async () => {
    const store = await openStore(server().url);
    try {
      const known = { app: DEFAULT_APP, role: 'open-store-test', permissions: {}, seenAt: 1 };
      await store.setKnownPermissions(known);
      expect(await store.getKnownPermissions(DEFAULT_APP, 'open-store-test')).toEqual(known);
    } finally {
      await store.close();
    }
  });
});
