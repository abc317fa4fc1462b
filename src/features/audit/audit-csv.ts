import { changeOf } from '../../changes/index.ts';
import { valueInWords } from '../../cometchat/catalogue.ts';
import type { AuditChange, AuditRecord, Store } from '../../store/store.ts';

// The audit trail as a CSV file (RFC 4180) for auditors and spreadsheets: a header row, then one
// record a line, every field quoted (quotes doubled), a newline inside a field kept inside its
// quotes, lines ended by CRLF. A field a spreadsheet would run as a formula is made text.

/** The columns, in order: what an auditor needs of each record. */
export const AUDIT_CSV_COLUMNS = [
  'time',
  'app',
  'kind',
  'target',
  'before',
  'after',
  'requester',
  'approver',
  'outcome',
  'reference',
  'steps',
  'reason',
] as const;

/** How many records the export reads from the store at a time. */
export const EXPORT_PAGE_SIZE = 500;

/**
 * One field, quoted. A field that starts with `=`, `+`, `-` or `@` is a formula to a spreadsheet
 * (and one that starts with a tab or carriage return can hide one): a `'` before it makes it text,
 * as OWASP's advice on CSV injection says. Pure.
 */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** One line of fields, ended by CRLF. Pure. */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The kind of change a record is of, in the words the code uses for it (`user-role`, ...). */
function kindOf(record: AuditRecord): string {
  if (record.subject?.kind === 'retention') return 'retention';
  return changeOf({ id: record.ref, ...record }).kind;
}

/** What a record acted on, as plain text (ids exact). */
function targetOf(record: AuditRecord): string {
  const { subject, role } = record;
  switch (subject?.kind) {
    case undefined:
      return `role ${role}`;
    case 'user':
    case 'containment':
      return `user ${subject.uid}`;
    case 'role':
      return `role ${role}`;
    case 'message':
      return `${subject.queue} message ${subject.id}`;
    case 'rule':
      return `rule ${role}`;
    case 'messages':
      return `messages of ${subject.sender}`;
    case 'scope':
      return `scope ${subject.scope} of group ${subject.guid}`;
    case 'group-member':
      return `member ${subject.uid} of group ${subject.guid}`;
    case 'retention':
      return `audit records before ${new Date(subject.before).toISOString()}`;
  }
}

/** Each changed key and its value on one side, a line each (`key: value`). */
function sideOf(changes: readonly AuditChange[], side: 'before' | 'after'): string {
  return changes.map((change) => `${change.key}: ${valueInWords(change[side])}`).join('\n');
}

/** Why the change was made, or what else the record says of it. */
function reasonOf(record: AuditRecord): string {
  const { subject } = record;
  if (subject?.kind === 'retention') {
    const removed = subject.removed === undefined ? 'an unknown number' : subject.removed;
    return `${removed} removed: older than AUDIT_RETENTION_DAYS (${subject.days})`;
  }
  const notes = [
    record.approval?.reason,
    record.reverts && `reverts ${record.reverts}`,
    record.promotedFrom && `promoted from ${record.promotedFrom}`,
    record.serviceMessage && `CometChat: ${record.serviceMessage}`,
  ];
  return notes.filter((note) => note).join('\n');
}

/** One record's fields, in AUDIT_CSV_COLUMNS's order. Pure. */
export function auditCsvFields(record: AuditRecord): string[] {
  return [
    new Date(record.at).toISOString(),
    record.app,
    kindOf(record),
    targetOf(record),
    sideOf(record.changes, 'before'),
    sideOf(record.changes, 'after'),
    record.userId,
    record.approval?.approvedBy ?? '',
    record.outcome,
    record.ref,
    (record.steps ?? []).map((step) => `${step.key}: ${step.outcome} (${step.message})`).join('\n'),
    reasonOf(record),
  ];
}

/** Which records the export reads: one app's, from `from` (inclusive) to `to` (exclusive), ms. */
export interface ExportRange {
  app: string;
  from: number;
  to: number;
}

export const UTF8_BOM = '\uFEFF';

/**
 * The file's lines, the header first, then each record of the range oldest first, read from the
 * store a page at a time: only one page is held, however long the trail.
 */
export async function* auditCsvLines(
  store: Pick<Store, 'listAuditBetween'>,
  range: ExportRange,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<string> {
  // The byte-order mark: without it, a spreadsheet on Windows reads UTF-8 as its own code page
  // and garbles every name or reason that is not ASCII.
  yield `${UTF8_BOM}${csvLine(AUDIT_CSV_COLUMNS)}`;
  let after: AuditRecord | undefined;
  for (;;) {
    const page = await store.listAuditBetween({ ...range, after, limit: pageSize });
    for (const record of page) yield csvLine(auditCsvFields(record));
    if (page.length < pageSize) return;
    after = page.at(-1);
  }
}
