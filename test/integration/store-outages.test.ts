import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { confirm, openEditor } from '../../offline/stack/editor-steps.ts';
import { type RedisServer, skipRedisSuites, startRedisServer } from '../store/redis-server.ts';
import { commandText, textOf } from './harness.ts';
import { puts, readiness, readyzTurns, reviewFlip, useHarnessStarter } from './support.ts';

// The store goes away mid-run: what needs no state keeps working, what needs it says so in one
// sentence and sends nothing, /readyz says which part is down, and everything works again when
// the store is back, without a restart.

describe.skipIf(skipRedisSuites)('a Redis outage', { tags: ['redis'] }, () => {
  const start = useHarnessStarter();
  let redis: RedisServer | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it('keeps lookups working, refuses what needs the store, and recovers without a restart', async () => {
    redis = await startRedisServer();
    const h = await start({ env: { STORE_URL: redis.url, EDITORS: 'U0OPERATOR' } });
    expect((await readiness(h)).status).toBe(200);
    // A change reviewed while Redis is up, confirmed while it is down.
    const { confirmation } = await reviewFlip(h);

    await redis.stop();
    await storeNotAnswering(h);

    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    expect(await commandText(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`)).toContain('Audio call');

    const editor = await openEditor(h, 'default');
    expect(textOf(editor)).toContain('Pre-fill is unavailable');
    expect(textOf(editor)).toContain('listUsers');

    const { outcome } = await confirm(h, confirmation);
    const said = textOf(outcome);
    expect(said).toContain("Nothing was sent: the app's store is not answering");
    expect(puts(h)).toEqual([]);

    // Back at the same address: the client reconnects by itself.
    redis = await startRedisServer({ port: redis.port });
    await readyzTurns(h, 200, 15_000);
    const again = await reviewFlip(h);
    const applied = await confirm(h, again.confirmation);
    expect(textOf(applied.outcome)).not.toContain('Nothing was sent');
    expect(puts(h)).toHaveLength(1);
  }, 60_000);
});

/**
 * A file that can no longer be written, made the way a root user can: the immutable attribute
 * (chmod does not stop a process that has the file open, and root ignores it anyway). Not every
 * machine allows it; CI does, and there the test must run.
 */
/** /readyz turns 503 within 5 s and names the store, and only the store. */
async function storeNotAnswering(h: Parameters<typeof readiness>[0]): Promise<void> {
  await readyzTurns(h, 503, 5_000);
  expect((await readiness(h)).body).toEqual({
    ready: false,
    slack: 'ok',
    store: 'not answering',
    serving: 'ok',
  });
}

function canMakeImmutable(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'immutable-'));
  const file = join(dir, 'probe');
  writeFileSync(file, 'x');
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const immutable = canMakeImmutable();
if (!immutable && !process.env.CI) {
  process.stderr.write(
    '\n! WARNING: the read-only SQLite test did NOT run: `chattr +i` is not allowed here (it needs root on ext4 or xfs). CI runs it.\n',
  );
}

describe.skipIf(!immutable && !process.env.CI)('a SQLite file that becomes read-only', () => {
  const start = useHarnessStarter();
  let dir: string | undefined;
  let locked: string[] = [];
  const chattr = (flag: '+i' | '-i', files: string[]) =>
    execFileSync('chattr', [flag, ...files], { stdio: 'ignore' });
  afterEach(() => {
    if (locked.length > 0) chattr('-i', locked);
    locked = [];
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('refuses to apply with one sentence while it cannot be written, then recovers', async () => {
    dir = mkdtempSync(join(tmpdir(), 'readonly-'));
    const file = join(dir, 'state.sqlite');
    const h = await start({ env: { STORE_URL: file, EDITORS: 'U0OPERATOR' } });
    const { confirmation } = await reviewFlip(h);
    expect((await readiness(h)).status).toBe(200);

    // The database and its write-ahead log: every write fails, reads still work.
    locked = [file, `${file}-wal`];
    chattr('+i', locked);
    await storeNotAnswering(h);
    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain("Nothing was sent: the app's store is not answering");
    expect(puts(h)).toEqual([]);

    chattr('-i', locked);
    locked = [];
    await readyzTurns(h, 200, 5_000);
    const again = await reviewFlip(h);
    const applied = await confirm(h, again.confirmation);
    expect(textOf(applied.outcome)).not.toContain('Nothing was sent');
    expect(puts(h)).toHaveLength(1);
  }, 30_000);
});

describe('a SQLite file deleted under the running app', () => {
  const start = useHarnessStarter();
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('turns readiness off and refuses changes, so no update leaves without its record', async () => {
    dir = mkdtempSync(join(tmpdir(), 'deleted-'));
    const file = join(dir, 'state.sqlite');
    const h = await start({ env: { STORE_URL: file, EDITORS: 'U0OPERATOR' } });
    const first = await reviewFlip(h);
    await confirm(h, first.confirmation);
    expect(puts(h)).toHaveLength(1);

    const { confirmation } = await reviewFlip(h);
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    await storeNotAnswering(h);
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain("Nothing was sent: the app's store is not answering");
    expect(puts(h)).toHaveLength(1);
  }, 30_000);
});
