import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AUDIT_CSV_COLUMNS,
  auditCsvFields,
  csvField,
  EXPORT_PAGE_SIZE,
} from '../../../src/features/audit/audit-csv.ts';
import {
  createAuditExport,
  type ExportDeps,
  exportRange,
  parseExportWords,
} from '../../../src/features/audit/audit-export.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { createLogger } from '../../../src/log.ts';
import type { SlackMessage } from '../../../src/slack/deliver.ts';
import { type AuditRecord, createMemoryStore, type Store } from '../../../src/store/store.ts';
import { LogCapture } from '../../log-capture.ts';

const NOW = Date.UTC(2026, 10, 29, 12);
const DAY = 86_400_000;

const record = (i: number, overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  ref: `ref-${String(i).padStart(5, '0')}`,
  at: NOW - 20 * DAY + i * 60_000,
  app: 'prod',
  teamId: 'T1',
  userId: 'U0ASKER',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'last-update',
  outcome: 'applied',
  ...overrides,
});

/**
 * A CSV reader as a spreadsheet reads the file (RFC 4180): quoted fields, doubled quotes, line
 * breaks inside quotes kept, CRLF between records, after a UTF-8 byte-order mark. Throws on
 * anything else, so a broken file fails.
 */
function readCsv(file: string): string[][] {
  // A spreadsheet takes the byte-order mark as the file's encoding, not as text.
  if (!file.startsWith('\uFEFF')) throw new Error('no UTF-8 byte-order mark');
  const text = file.slice(1);
  const rows: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const row: string[] = [];
    for (;;) {
      if (text[i] !== '"') throw new Error(`unquoted field at ${i}`);
      let field = '';
      i += 1;
      for (;;) {
        const next = text.indexOf('"', i);
        if (next < 0) throw new Error('unterminated field');
        field += text.slice(i, next);
        if (text[next + 1] === '"') {
          field += '"';
          i = next + 2;
        } else {
          i = next + 1;
          break;
        }
      }
      row.push(field);
      if (text[i] === ',') i += 1;
      else if (text.startsWith('\r\n', i)) {
        i += 2;
        break;
      } else throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
    }
    rows.push(row);
  }
  return rows;
}

interface Sent {
  channel: string;
  filename: string;
  comment: string;
  content: string;
}

function setup(store: Pick<Store, 'listAuditBetween'>, tempDir: string) {
  const sent: Sent[] = [];
  const replies: SlackMessage[] = [];
  const pages: number[] = [];
  const logs = new LogCapture();
  const spied: ExportDeps['store'] = {
    listAuditBetween: async (query) => {
      const page = await store.listAuditBetween(query);
      pages.push(page.length);
      return page;
    },
  };
  const client = {
    conversations: {
      open: async ({ users }: { users: string }) => ({ ok: true, channel: { id: `D-${users}` } }),
    },
    files: {
      getUploadURLExternal: async (args: { filename: string; length: number }) => {
        uploads.set('F1', { filename: args.filename, length: args.length });
        return { ok: true, upload_url: 'https://files.example/upload/F1', file_id: 'F1' };
      },
      completeUploadExternal: async (args: {
        files: { id: string; title?: string }[];
        channel_id: string;
        initial_comment: string;
      }) => {
        const [file] = args.files;
        const upload = uploads.get(file?.id ?? '');
        if (!upload?.content) throw new Error('completed before its bytes were sent');
        sent.push({
          channel: args.channel_id,
          filename: upload.filename,
          comment: args.initial_comment,
          content: upload.content,
        });
        return { ok: true, files: [] };
      },
    },
  };
  // As Slack's upload address takes them: the bytes, which must be as many as announced.
  const uploads = new Map<string, { filename: string; length: number; content?: string }>();
  const postFile = async (url: string, path: string, length: number) => {
    const upload = uploads.get(url.split('/').pop() ?? '');
    const content = await readFile(path);
    if (!upload || content.length !== length) throw new Error('not the announced upload');
    upload.content = content.toString('utf8');
  };
  const exporter = createAuditExport({
    store: spied,
    // The fake holds the methods the export calls, typed as the export reads them.
    client: client as unknown as ExportDeps['client'],
    postFile,
    timeZones: { of: async () => 'America/Los_Angeles' },
    now: () => NOW,
    tempDir,
  });
  const asker = {
    userId: 'U0ASKER',
    app: 'prod',
    respond: async (message: SlackMessage) => {
      replies.push(message);
    },
    log: createLogger({ level: 'debug', destination: logs }),
  };
  return { exporter, asker, sent, replies, pages, logs };
}

describe('the audit export', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-export-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sends 10,000 records as one CSV, read from the store a page at a time', async () => {
    const store = createMemoryStore(() => NOW);
    const all = Array.from({ length: 10_000 }, (_, i) => record(i));
    // Written newest first: the file is oldest first all the same.
    for (const r of [...all].reverse()) await store.appendAudit(r);
    await store.appendAudit(record(99_999, { app: 'staging' }));
    const { exporter, asker, sent, replies, pages } = setup(store, dir);
    const words = parseExportWords([]);
    if (words instanceof Refusal) throw new Error(words.problem);
    await exporter(words, asker);

    // Never more than a page in memory: every read is at most a page, and it took 21 of them.
    expect(Math.max(...pages)).toBe(EXPORT_PAGE_SIZE);
    expect(pages).toHaveLength(Math.ceil(10_000 / EXPORT_PAGE_SIZE) + 1);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.channel).toBe('D-U0ASKER');
    expect(sent[0]?.comment).toContain('10000 records');
    const rows = readCsv(sent[0]?.content ?? '');
    expect(rows).toHaveLength(10_001);
    expect(rows[0]).toEqual([...AUDIT_CSV_COLUMNS]);
    const ref = AUDIT_CSV_COLUMNS.indexOf('reference');
    expect(rows.slice(1).map((row) => row[ref])).toEqual(all.map((r) => r.ref));
    expect(rows[1]?.slice(0, 10)).toEqual([
      new Date(all[0]?.at ?? 0).toISOString(),
      'prod',
      'permissions',
      'role default',
      'sendMessage: allow',
      'sendMessage: deny',
      'U0ASKER',
      '',
      'applied',
      'ref-00000',
    ]);
    expect(replies.map((r) => r.text)).toEqual([
      'Sent 10000 records as a CSV file in your direct messages with the app.',
    ]);
    // The temp file is gone once sent.
    expect(await readdir(dir)).toEqual([]);
  });

  it('sends nothing for an empty range, and says so in one sentence', async () => {
    const store = createMemoryStore(() => NOW);
    await store.appendAudit(record(0));
    const { exporter, asker, sent, replies } = setup(store, dir);
    const words = parseExportWords(['since:2h']);
    if (words instanceof Refusal) throw new Error(words.problem);
    await exporter(words, asker);
    expect(sent).toEqual([]);
    expect(replies.map((r) => r.text)).toEqual([
      'No change was recorded in that range; no file was sent.',
    ]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('exports only the range, a day read in the person\u2019s zone', async () => {
    const store = createMemoryStore(() => NOW);
    // 2026-11-20 in Los Angeles is 08:00Z that day to 08:00Z the next.
    const start = Date.UTC(2026, 10, 20, 8);
    for (const [i, at] of [start - 1, start, start + DAY - 1, start + DAY].entries()) {
      await store.appendAudit(record(i, { at }));
    }
    const { exporter, asker, sent } = setup(store, dir);
    const words = parseExportWords(['since:2026-11-20', 'until:2026-11-20']);
    if (words instanceof Refusal) throw new Error(words.problem);
    await exporter(words, asker);
    const rows = readCsv(sent[0]?.content ?? '');
    expect(rows.slice(1).map((row) => row[9])).toEqual(['ref-00001', 'ref-00002']);
  });

  it('keeps commas, quotes and line breaks inside a field, and disarms formulas', async () => {
    const store = createMemoryStore(() => NOW);
    await store.appendAudit(
      record(0, {
        userId: '=HYPERLINK("http://evil.example","x")',
        changes: [{ key: 'role', before: '+1, "two"\nthree', after: '@vip', explicit: false }],
        subject: { kind: 'user', uid: '-alice' },
        approval: {
          approvedBy: 'U0APPROVER',
          approvedAt: NOW,
          requestedAt: NOW,
          reason: 'on call',
        },
        steps: [{ key: 'sessions', outcome: 'applied', message: '2 revoked' }],
      }),
    );
    const { exporter, asker, sent } = setup(store, dir);
    const words = parseExportWords([]);
    if (words instanceof Refusal) throw new Error(words.problem);
    await exporter(words, asker);
    const [, row] = readCsv(sent[0]?.content ?? '');
    const field = (name: (typeof AUDIT_CSV_COLUMNS)[number]) =>
      row?.[AUDIT_CSV_COLUMNS.indexOf(name)];
    expect(field('kind')).toBe('user-role');
    expect(field('target')).toBe('user -alice');
    expect(field('before')).toBe('role: +1, "two"\nthree');
    expect(field('after')).toBe('role: @vip');
    expect(field('requester')).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(field('approver')).toBe('U0APPROVER');
    expect(field('steps')).toBe('sessions: applied (2 revoked)');
    expect(field('reason')).toBe('on call');
  });

  it('shows a retention record by its facts', () => {
    const fields = auditCsvFields(
      record(0, {
        userId: 'AUDIT_RETENTION_DAYS',
        role: '',
        changes: [],
        subject: { kind: 'retention', before: Date.UTC(2026, 0, 1), days: 90, removed: 12 },
      }),
    );
    expect(fields.slice(2, 4)).toEqual([
      'retention',
      'audit records before 2026-01-01T00:00:00.000Z',
    ]);
    expect(fields[11]).toBe('12 removed: older than AUDIT_RETENTION_DAYS (90)');
  });
});

describe('csvField', () => {
  it('quotes every field and doubles its quotes', () => {
    expect(csvField('a "b", c')).toBe('"a ""b"", c"');
    expect(csvField('')).toBe('""');
  });

  it('makes a field a spreadsheet would run as a formula text', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvField(`${start}1+1`)).toBe(`"'${start}1+1"`);
    }
    expect(csvField('1+1')).toBe('"1+1"');
  });
});

describe('parseExportWords', () => {
  it('reads since and until', () => {
    expect(parseExportWords(['since:3d', 'until:2026-11-20'])).toEqual({
      export: true,
      since: { ago: 3 * 86_400 },
      until: { day: '2026-11-20' },
    });
  });

  it('refuses other words, a bound twice and a time it cannot read, each in one sentence', () => {
    for (const words of [['everything'], ['since:2h', 'since:3h'], ['since:yesterday']]) {
      const read = parseExportWords(words);
      expect(read).toBeInstanceOf(Refusal);
      expect(read instanceof Refusal && read.problem.split('. ').length).toBeLessThanOrEqual(2);
    }
  });

  it('makes a range that ends after the last second of until', () => {
    expect(exportRange({ export: true, since: { ago: 3600 } }, NOW, 'UTC', 'prod')).toEqual({
      app: 'prod',
      from: NOW - 3_600_000,
      to: NOW + 1,
    });
  });
});
