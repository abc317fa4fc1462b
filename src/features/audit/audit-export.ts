import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { counted, inApp } from '../../replies/sentences.ts';
import type { Respond } from '../../slack/deliver.ts';
import { postFileToUploadUrl } from '../../slack/file-upload.ts';
import { code, truncate } from '../../slack/mrkdwn.ts';
import type { Store } from '../../store/store.ts';
import { namesADay, parseTimeBound, resolveSearch, type TimeBound } from '../call-filters.ts';
import { Refusal } from '../feature.ts';
import { auditCsvLines, type ExportRange } from './audit-csv.ts';

// `/cometchat audit export [since:...] [until:...]`: one app's records in the range, oldest
// first, as a CSV file sent to the person who asked. Who may ask: anyone who may read the audit
// list (the viewers), since the file holds what the list shows. Where it goes: a direct message
// with the app, as the deliverer's last route: a reply to a command is seen only by the person
// (ephemeral), and Slack has no ephemeral file, so the channel where they asked would show the
// trail to everyone in it.

export const EXPORT_USAGE = '`/cometchat audit export [since:…] [until:…]`';

/** What `audit export` was asked for: the bounds typed, each when given. */
export interface ExportWords {
  export: true;
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
}

/** Whether the audit words asked for the export (the list's words hold any key, so not `in`). */
export function isExport(words: object): words is ExportWords {
  return 'export' in words && words.export === true;
}

/** The words after `export`: `since:` and `until:`, each at most once. Pure. */
export function parseExportWords(words: readonly string[]): ExportWords | Refusal {
  const asked: ExportWords = { export: true };
  for (const word of words) {
    const [key = '', value = ''] = word.split(/:(.*)/s);
    if (key !== 'since' && key !== 'until') {
      return new Refusal(
        `${code(truncate(word, 30))} is not a bound the export takes. Usage: ${EXPORT_USAGE}, each bound \`30m\`, \`2h\`, \`3d\` or a day \`2026-11-20\`.`,
      );
    }
    if (asked[key]) return new Refusal(`\`${key}:\` is given twice; give it once.`);
    const bound = parseTimeBound(value);
    if (!bound) return new Refusal(`${code(truncate(word, 30))} is not a time the export takes.`);
    asked[key] = bound;
  }
  return asked;
}

/**
 * The range the words name, in Unix ms: a day read in `zone`, as the call search reads it; no
 * `since` is from the first record, no `until` is up to now. Pure.
 */
export function exportRange(words: ExportWords, nowMs: number, zone: string, app: string) {
  const nowSeconds = Math.floor(nowMs / 1000);
  const { since, until } = resolveSearch(
    { since: words.since, until: words.until },
    nowSeconds,
    zone,
  );
  // `until` is the last second it allows: the range ends after that second.
  return {
    app,
    from: since === undefined ? 0 : since * 1000,
    to: until === undefined ? nowMs + 1 : (until + 1) * 1000,
  };
}

export interface ExportDeps {
  store: Pick<Store, 'listAuditBetween'>;
  client: { conversations: Pick<WebClient['conversations'], 'open'> } & {
    files: Pick<WebClient['files'], 'getUploadURLExternal' | 'completeUploadExternal'>;
  };
  /** POSTs a file's bytes to Slack's upload address (src/slack/file-upload.ts by default). */
  postFile?: typeof postFileToUploadUrl | undefined;
  timeZones: { of(userId: string, log: Logger): Promise<string> };
  now: () => number;
  /** Where the file is written before it is sent (the system's temp directory by default). */
  tempDir?: string | undefined;
}

/** Who asked, in which app, and how to answer them. */
export interface ExportAsker {
  userId: string;
  app: string;
  /** The app's name when several are configured, for the sentences. */
  appName?: string | undefined;
  respond: Respond;
  log: Logger;
}

/** Writes the range's lines to `path`, one page of records in memory at a time; returns the records written. */
async function writeCsv(store: ExportDeps['store'], range: ExportRange, path: string) {
  let lines = 0;
  const counting = async function* () {
    for await (const line of auditCsvLines(store, range)) {
      lines += 1;
      yield line;
    }
  };
  await pipeline(Readable.from(counting()), createWriteStream(path, { encoding: 'utf8' }));
  // The header is not a record.
  return lines - 1;
}

export function createAuditExport(deps: ExportDeps) {
  return async (words: ExportWords, asker: ExportAsker): Promise<void> => {
    const { userId, log } = asker;
    const zone = namesADay(words) ? await deps.timeZones.of(userId, log) : 'UTC';
    const range = exportRange(words, deps.now(), zone, asker.app);
    const where = inApp(asker.appName);
    if (range.from >= range.to) {
      return asker.respond({ text: `The range ends before it begins${where}; nothing was sent.` });
    }
    const dir = await mkdtemp(join(deps.tempDir ?? tmpdir(), 'audit-export-'));
    try {
      const filename = `audit-${asker.app}-${new Date(deps.now()).toISOString().slice(0, 10)}.csv`;
      const path = join(dir, filename);
      const records = await writeCsv(deps.store, range, path);
      if (records === 0) {
        return asker.respond({
          text: `No change was recorded in that range${where}; no file was sent.`,
        });
      }
      const between = `${new Date(range.from).toISOString()} to ${new Date(range.to).toISOString()}`;
      await sendFile(deps, userId, {
        path,
        filename,
        title: `Audit trail${where}`,
        comment: `The audit trail${where}, ${counted(records, 'record')} from ${between} (UTC), oldest first.`,
      });
      log.info(
        { event: 'audit_export', app: asker.app, records, from: range.from, to: range.to },
        'audit trail exported',
      );
      return asker.respond({
        text: `Sent ${counted(records, 'record')}${where} as a CSV file in your direct messages with the app.`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

/**
 * Sends the file at `path` to the person, in their direct messages with the app: Slack's three
 * upload steps, the bytes streamed from disk (see src/slack/file-upload.ts).
 */
async function sendFile(
  deps: ExportDeps,
  userId: string,
  file: { path: string; filename: string; title: string; comment: string },
): Promise<void> {
  const opened = await deps.client.conversations.open({ users: userId });
  const channel = opened.channel?.id;
  if (!channel) throw new Error('conversations.open returned no channel');
  const { size } = await stat(file.path);
  const asked = await deps.client.files.getUploadURLExternal({
    filename: file.filename,
    length: size,
  });
  if (!asked.upload_url || !asked.file_id) {
    throw new Error('files.getUploadURLExternal returned no upload address');
  }
  await (deps.postFile ?? postFileToUploadUrl)(asked.upload_url, file.path, size);
  await deps.client.files.completeUploadExternal({
    files: [{ id: asked.file_id, title: file.title }],
    channel_id: channel,
    initial_comment: file.comment,
  });
}
