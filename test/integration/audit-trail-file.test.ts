import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSlackApp } from '../../src/app.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { createSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { type Harness, startHarness, textOf } from './harness.ts';
import { applyChange } from './support.ts';

// The audit trail leaving Slack through the real app: `/cometchat audit export` sends the CSV
// through the Slack stand-in's file upload, in a DM; and an uninstalled app stops its sweeps.

const AUDIT_CHANNEL = 'C0AUDIT';

/** The reply that replaces the command's progress message. */
async function exportReply(h: Harness, text: string) {
  const before = h.slack.responses.length;
  expect((await h.driver.command(text)).status).toBe(200);
  const first = await h.slack.nextResponse(before);
  if (!textOf(first.body).includes('Writing the audit trail')) return first.body;
  return (await h.slack.nextResponse(before + 1)).body;
}

describe('the audit trail as a file', () => {
  let dir: string;
  const running: Harness[] = [];
  const opened: Store[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-trail-file-'));
  });
  afterEach(async () => {
    for (const h of running.splice(0)) {
      h.checkAllPayloads();
      await h.stop();
    }
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (file: string) => {
    const h = await startHarness({ env: { STORE_URL: join(dir, file), AUDIT_CHANNEL } });
    running.push(h);
    return h;
  };

  it('sends the records as a CSV file in a direct message, through files.uploadV2', async () => {
    const h = await start('export.sqlite');
    await applyChange(h, { key: 'sendMessage', value: 'deny' });
    const reply = await exportReply(h, 'audit export since:1h');
    expect(textOf(reply)).toContain('Sent 1 record as a CSV file in your direct messages');
    const methods = h.slack.calls.map((c) => c.method);
    expect(methods).toContain('files.getUploadURLExternal');
    expect(methods).toContain('files.completeUploadExternal');
    const files = [...h.slack.files.values()];
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file?.channel).toMatch(/^D/);
    const text = file?.content?.toString('utf8') ?? '';
    const [header, row, rest] = text.split('\r\n');
    expect(header).toBe(
      '\uFEFF"time","app","kind","target","before","after","requester","approver","outcome","reference","steps","reason"',
    );
    expect(row).toContain('"permissions"');
    expect(row).toContain('"sendMessage: deny"');
    expect(row).toContain('"applied"');
    expect(rest).toBe('');

    // An empty range: one sentence, no file.
    const none = await exportReply(h, 'audit export until:2026-01-01');
    expect(textOf(none)).toContain('No change was recorded in that range; no file was sent.');
    expect(h.slack.files.size).toBe(1);
  });

  it('refuses words it cannot read in one sentence', async () => {
    const h = await start('words.sqlite');
    const reply = await exportReply(h, 'audit export since:yesterday');
    expect(textOf(reply)).toContain('is not a time the export takes');
    expect(h.slack.files.size).toBe(0);
  });

  it('after app_uninstalled, the sweeps of every replica make no Slack call, and say why', async () => {
    const h = await start('uninstalled.sqlite');
    // A post Slack refused: the minute sweep would make it.
    h.slack.fail('chat.postMessage', { status: 500 });
    await applyChange(h, { key: 'sendMessage', value: 'deny' });
    const sent = await h.driver.event({ type: 'app_uninstalled' });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() =>
      h.logs.errors().find((r) => r.message.includes('has stopped serving this workspace')),
    );

    // Another replica on the same file, an hour later: its sweep finds the mark and calls no one.
    const store = createSqliteStore(join(dir, 'uninstalled.sqlite'));
    opened.push(store);
    const later = Date.now() + 60 * 60_000;
    const replica = createSlackApp({
      config: h.config,
      logger: h.logger,
      store,
      metrics: createMetrics({ defaultMetrics: false }),
      now: () => later,
    });
    const callsBefore = h.slack.calls.length;
    await replica.features.periodic(h.logger.child({ component: 'sweep' }));
    await replica.features.periodic(h.logger.child({ component: 'sweep' }));
    expect(h.slack.calls.slice(callsBefore)).toEqual([]);
    expect(await store.listAuditPosts(Number.MAX_SAFE_INTEGER)).toHaveLength(1);
    const stopped = h.logs.errors().filter((r) => r.message.includes('reinstall the app'));
    // One line where the event arrived, one from the replica that found the mark (once).
    expect(stopped).toHaveLength(2);
  });

  it('a revoked user token leaves the app serving; a revoked bot token stops it', async () => {
    const h = await start('revoked.sqlite');
    await h.driver.event({ type: 'tokens_revoked', tokens: { oauth: ['U0PERSON'], bot: [] } });
    await h.slack.waitFor(() =>
      h.logs.records().find((r) => r.message.includes('user tokens revoked')),
    );
    expect(h.logs.errors()).toEqual([]);
    await h.driver.event({ type: 'tokens_revoked', tokens: { bot: ['U0BOT'] } });
    await h.slack.waitFor(() =>
      h.logs.errors().find((r) => r.message.startsWith('The bot token was revoked')),
    );
  });
});
