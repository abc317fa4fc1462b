import type { Button, KnownBlock, RichTextElement } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import {
  containmentKeyText,
  revertButton,
  sessionsChangeLine,
  stepOutcomeLines,
} from '../../changes/index.ts';
import { holdsRoleIds, valueInWords } from '../../cometchat/catalogue.ts';
import { permissionKeyRuns, permissionKeyText } from '../../replies/permission-key-text.ts';
import { permissionValueText } from '../../replies/permission-value-text.ts';
import { counted } from '../../replies/sentences.ts';
import {
  actions,
  button,
  context,
  dateCell,
  header,
  rawText,
  richText,
  section,
  table,
} from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import {
  type AuditChange,
  type AuditPage,
  type AuditRecord,
  DEFAULT_APP,
  failedSteps,
} from '../../store/store.ts';

export const AUDIT_PER_PAGE = 10;
const CHANGES_SHOWN = 6;

export interface AuditQuery {
  role?: string | undefined;
  page: number;
  [key: string]: unknown;
}

export interface AuditListOptions {
  /** Writes the page buttons' values (signed for the app). */
  value?: ValueWriter;
  /** The app's name, shown when several apps are configured. */
  appName?: string | undefined;
}

/** A value as mrkdwn, cut near 120 characters (permission-value-text.ts). */
const valueText = (value: AuditChange['before'], ids: boolean) =>
  permissionValueText(value, ids, 120);

/**
 * A change as one mrkdwn line. Role ids (a role list's items, a user's role when `subject` is a
 * user) are code, so they copy exactly; other values are escaped.
 */
function auditChangeLine(change: AuditChange, subject?: AuditRecord['subject']): string {
  // A user's sessions: fingerprints revoked, not a permission's values ("none" is no session).
  if (subject?.kind === 'user' && change.key === 'sessions') return sessionsChangeLine(change);
  const ids = holdsRoleIds(
    change.key,
    subject?.kind === 'user' || (subject?.kind === 'role' && change.key === 'role'),
  );
  const after = valueText(change.after, ids);
  const key = permissionKeyText(change.key);
  if (change.unset) {
    return `${key}: ${valueText(change.before, ids)} → ${after} _(back to the default)_`;
  }
  return change.explicit
    ? `${key}: ${after} _(stated explicitly)_`
    : `${key}: ${valueText(change.before, ids)} → ${after}`;
}

/** The app, named unless it is the single app of an install with one (`default`). */
function appPart(record: AuditRecord): string {
  return record.app === DEFAULT_APP ? '' : `app *${escapeMrkdwn(record.app)}* · `;
}

const OUTCOME_MARK: Record<AuditRecord['outcome'], string> = {
  applied: ':white_check_mark: applied',
  failed: ':x: failed',
  unknown: ':grey_question: outcome unknown',
};

/** Who made the change: the person who asked, and for an approved change who approved it. */
function whoPart(record: AuditRecord): string {
  if (record.subject?.kind === 'retention') return `the app (${code(record.userId)})`;
  const approved = record.approval ? ` (approved by <@${record.approval.approvedBy}>)` : '';
  return `<@${record.userId}>${approved}`;
}

/**
 * What every rendering of a record leads with, the same facts everywhere (the audit list, the
 * audit post, the Home tab): how it ended, when, who asked and who approved, the app, the role.
 */
function recordHeadline(record: AuditRecord): string {
  const partial = failedSteps(record).length > 0 ? ' (partial)' : '';
  return `${OUTCOME_MARK[record.outcome]}${partial} · ${slackDate(Math.floor(record.at / 1000))} · ${whoPart(record)} · ${appPart(record)}${subjectPart(record)}`;
}

/** What the change acted on: a role's permissions, a user (who had that role), or a role itself. */
function subjectPart(record: AuditRecord): string {
  const { subject } = record;
  if (subject?.kind === 'user') return `user ${code(subject.uid)} (role ${code(record.role)})`;
  if (subject?.kind === 'role') return `role ${code(record.role)} (${ROLE_ACTION[subject.action]})`;
  if (subject?.kind === 'message') return `${subject.queue} message ${code(subject.id)}`;
  if (subject?.kind === 'containment') {
    const what = record.reverts ? 'released' : 'contained';
    return `user ${code(subject.uid)} ${what} (role ${code(record.role)})`;
  }
  if (subject?.kind === 'messages') {
    return `messages of ${code(subject.sender)} (${subject.permanent ? 'deleted permanently' : 'deleted'})`;
  }
  if (subject?.kind === 'scope')
    return `scope ${code(subject.scope)} of group ${code(subject.guid)}`;
  if (subject?.kind === 'group-member') {
    return `member ${code(subject.uid)} of group ${code(subject.guid)}`;
  }
  if (subject?.kind === 'retention') return retentionText(subject);
  return `role ${code(record.role)}`;
}

/** A retention record's facts: how many records went, and the cut-off. */
function retentionText(subject: Extract<AuditRecord['subject'], { kind: 'retention' }>): string {
  // Unknown when the app stopped during the prune: its pending record became this one.
  const records =
    subject.removed === undefined ? 'Audit records' : counted(subject.removed, 'audit record');
  return `${records} before ${slackDate(Math.floor(subject.before / 1000))} removed (kept ${counted(subject.days, 'day')})`;
}

/** A change to a role itself, in a word. */
const ROLE_ACTION = { create: 'created', update: 'renamed or described', delete: 'deleted' };

/** The uid a record's change acted on, for a change to a user. */
const uidOf = (record: AuditRecord) =>
  record.subject?.kind === 'user' || record.subject?.kind === 'containment'
    ? record.subject.uid
    : record.subject?.kind === 'messages'
      ? record.subject.sender
      : undefined;

/** One record in one line (the Home tab's recent changes): the headline and the keys. */
export function auditSummaryLine(record: AuditRecord): string {
  const keys = record.changes.slice(0, 3).map((c) => permissionKeyText(c.key));
  if (record.changes.length > 3) keys.push(`+${record.changes.length - 3}`);
  return `${recordHeadline(record)} · ${keys.join(', ')}`;
}

/** One record as text: the headline and its reference, then what changed and how it ended. */
export function auditRecordText(record: AuditRecord): string {
  const lines = [
    `${recordHeadline(record)} · ref \`${record.ref}\``,
    ...(record.promotedFrom
      ? [`_Promoted from the change with ref ${code(record.promotedFrom)}._`]
      : []),
    ...(record.reverts ? [`_Reverts the change with ref ${code(record.reverts)}._`] : []),
    ...record.changes
      .slice(0, CHANGES_SHOWN)
      .map((c) =>
        record.subject?.kind === 'containment'
          ? escapeMrkdwn(containmentKeyText(c))
          : auditChangeLine(c, record.subject),
      ),
  ];
  if (record.changes.length > CHANGES_SHOWN)
    lines.push(`_…and ${record.changes.length - CHANGES_SHOWN} more_`);
  // A change of several steps says each step's outcome; CometChat's words are in them.
  if (record.steps) lines.push(...stepOutcomeLines(record.steps));
  else if (record.serviceMessage)
    lines.push(`_CometChat: ${escapeMrkdwn(truncate(record.serviceMessage, 300))}_`);
  if (record.beforeSource === 'defaults')
    lines.push('_“Before” values were the documented defaults, not read from CometChat._');
  return lines.join('\n');
}

/** What the audit trail is called: changes to roles' permissions and to users. */
const AUDIT_TITLE = 'Changes made through this app';

/** `/cometchat audit [role]`: a table of records, newest first, with page buttons. Pure. */
export function auditMessage(
  page: AuditPage,
  query: AuditQuery,
  options: AuditListOptions = {},
): SlackMessage {
  const pages = Math.max(1, Math.ceil(page.total / AUDIT_PER_PAGE));
  const forRole = query.role ? ` for ${code(query.role)}` : '';
  const write = options.value ?? JSON.stringify;
  const blocks: KnownBlock[] = [
    header(options.appName ? `${AUDIT_TITLE} · ${options.appName}` : AUDIT_TITLE),
    context([
      `${counted(page.total, 'record')}${forRole} · page ${query.page} of ${pages} · newest first`,
    ]),
  ];
  if (page.records.length === 0)
    blocks.push(
      section(
        page.total === 0
          ? `No change has been recorded${forRole} yet.`
          : `There is no page ${query.page}.`,
      ),
    );
  if (page.records.length > 0) blocks.push(auditTable(page.records));
  // The table's cells hold no button: each applied record's Revert names its ref instead.
  const reverts = options.value ? revertButtons(options.value, page.records) : [];
  if (reverts.length > 0) blocks.push(actions(reverts));
  const nav: Button[] = [];
  const value = (p: number) => write({ role: query.role, page: p } satisfies AuditQuery);
  if (query.page > 1)
    nav.push({
      ...button('◀ Newer', ACTIONS.auditPage, value(Math.min(query.page - 1, pages))),
      action_id: `${ACTIONS.auditPage}_prev`,
    });
  if (query.page < pages)
    nav.push({
      ...button('Older ▶', ACTIONS.auditPage, value(query.page + 1)),
      action_id: `${ACTIONS.auditPage}_next`,
    });
  if (nav.length > 0) blocks.push(actions(nav));
  return {
    text: `${AUDIT_TITLE}${query.role ? ` for ${query.role}` : ''}: ${counted(page.total, 'record')}`,
    blocks,
  };
}

/** A Revert for each applied record of a page, named by its ref (the table's Reference). */
function revertButtons(write: ValueWriter, records: readonly AuditRecord[]): Button[] {
  return records.flatMap((record) => revertButton(write, record, `Revert ${record.ref}`) ?? []);
}

/**
 * The records as one table, newest first. No column for the app: the list is one app's, named
 * in the header when several are configured. A User column (the uid, exactly) only when a record
 * of the page changed a user rather than a role's permissions. What a record adds to its changes
 * (more changes, the service's message, where "before" came from, the change it was promoted
 * from) is in the Changes cell, in italics, under the changes it explains.
 */
function auditTable(records: readonly AuditRecord[]): KnownBlock {
  const users = records.some((record) => uidOf(record) !== undefined);
  // A moderation decision's message, as exactly as a user's uid.
  const messages = records.some((record) => record.subject?.kind === 'message');
  const messageOf = (record: AuditRecord) =>
    record.subject?.kind === 'message' ? `${record.subject.queue} ${record.subject.id}` : '';
  return table(
    [
      ...['When', 'Who', 'Role', ...(users ? ['User'] : []), ...(messages ? ['Message'] : [])],
      ...['Changes', 'Outcome', 'Reference'],
    ],
    records.map((record) => [
      dateCell(Math.floor(record.at / 1000)),
      richText(whoRuns(record)),
      rawText(record.role, 100),
      ...(users ? [rawText(uidOf(record) ?? '', 100)] : []),
      ...(messages ? [rawText(messageOf(record), 120)] : []),
      richText(changeRuns(record)),
      richText(outcomeRuns(record)),
      rawText(record.ref, 100),
    ]),
    [{}, { is_wrapped: true }, {}, ...(users ? [{}] : []), ...(messages ? [{}] : [])].concat([
      { is_wrapped: true },
    ]),
  );
}

/** A Slack user as a `user` element (Slack shows the name); an id that is not one, as text. */
function person(userId: string): RichTextElement {
  return SLACK_USER.test(userId)
    ? { type: 'user', user_id: userId }
    : { type: 'text', text: userId };
}
const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;

/** Who asked, and for an approved change who approved it, as in {@link whoPart}. */
function whoRuns(record: AuditRecord): RichTextElement[] {
  if (!record.approval) return [person(record.userId)];
  return [
    person(record.userId),
    { type: 'text', text: ' (approved by ' },
    person(record.approval.approvedBy),
    { type: 'text', text: ')' },
  ];
}

/** How a record ended, marked partial when one of its steps failed while others took. */
function outcomeRuns(record: AuditRecord): RichTextElement[] {
  const partial = failedSteps(record).length > 0;
  return [...OUTCOME_RUNS[record.outcome], ...(partial ? [italic(' (partial)')] : [])];
}

const OUTCOME_RUNS: Record<AuditRecord['outcome'], RichTextElement[]> = {
  applied: [
    { type: 'emoji', name: 'white_check_mark' },
    { type: 'text', text: ' applied' },
  ],
  failed: [
    { type: 'emoji', name: 'x' },
    { type: 'text', text: ' failed' },
  ],
  unknown: [
    { type: 'emoji', name: 'grey_question' },
    { type: 'text', text: ' outcome unknown' },
  ],
};

/**
 * What one record's Changes cell may take, in characters: a page of ten stays well inside a
 * message's text budget (about 13,000), however long the service's message or the values.
 */
const CHANGES_CELL = 700;

const italic = (text: string): RichTextElement => ({ type: 'text', text, style: { italic: true } });
const runLength = (line: readonly RichTextElement[]) =>
  line.reduce((sum, run) => sum + (run.type === 'text' ? run.text.length : 0), 1);

/** A change as runs: the key (its label, then the key as code), then what it went from and to. */
function changeLine(change: AuditChange, subject?: AuditRecord['subject']): RichTextElement[] {
  if (subject?.kind === 'containment') return [{ type: 'text', text: containmentKeyText(change) }];
  // No session left reads "none", not a permission's "no restriction".
  const none = (v: AuditChange['after']) => change.key === 'sessions' && Array.isArray(v) && !v[0];
  const value = (v: AuditChange['after']) => truncate(none(v) ? 'none' : valueInWords(v), 80);
  const moved = `: ${value(change.before)} → ${value(change.after)}`;
  let text = moved;
  if (change.unset) text = `${moved} (back to the default)`;
  else if (change.explicit) text = `: ${value(change.after)} (stated explicitly)`;
  return [...permissionKeyRuns(change.key, 60), { type: 'text', text }];
}

/**
 * The changes a line each, as many as the cell has room for, then in italics how many more and
 * what the record adds: the change it was promoted from, the service's message, where "before"
 * came from.
 */
function changeRuns(record: AuditRecord): RichTextElement[] {
  const notes = [
    record.promotedFrom &&
      `Promoted from the change with ref ${truncate(record.promotedFrom, 100)}.`,
    record.reverts && `Reverts the change with ref ${truncate(record.reverts, 100)}.`,
    ...failedSteps(record).map((step) => `Did not take: ${truncate(step.message, 200)}`),
    !record.steps && record.serviceMessage && `CometChat: ${truncate(record.serviceMessage, 200)}`,
    record.beforeSource === 'defaults' &&
      '“Before” values were the documented defaults, not read from CometChat.',
  ].flatMap((note) => (note ? [[italic(note)]] : []));
  // Room for the notes and for an "…and N more" line.
  let room = CHANGES_CELL - 20 - notes.reduce((sum, note) => sum + runLength(note), 0);
  const lines: RichTextElement[][] = [];
  for (const change of record.changes.slice(0, CHANGES_SHOWN)) {
    const line = changeLine(change, record.subject);
    if (lines.length > 0 && runLength(line) > room) break;
    lines.push(line);
    room -= runLength(line);
  }
  const more = record.changes.length - lines.length;
  if (more > 0) lines.push([italic(`…and ${more} more`)]);
  lines.push(...notes);
  return lines.flatMap((line, i) => (i === 0 ? line : [{ type: 'text', text: '\n' }, ...line]));
}

/** What the audit post's text says a change acted on. */
function postSubject(record: AuditRecord): string {
  const uid = uidOf(record);
  if (uid !== undefined) return `User ${code(uid)}`;
  if (record.subject?.kind === 'message') return `Message ${code(record.subject.id)}`;
  if (record.subject?.kind === 'retention') {
    return `Audit records before ${new Date(record.subject.before).toISOString()}`;
  }
  if (record.subject?.kind === 'group-member') {
    return `Member ${code(record.subject.uid)} of group ${code(record.subject.guid)}`;
  }
  return record.subject?.kind === 'role' ? `Role ${record.role}` : `Permissions of ${record.role}`;
}

/**
 * The post for AUDIT_CHANNEL, with _Revert_ when the change was applied and `write` (its app's)
 * is given. Pure.
 */
export function auditPost(record: AuditRecord, write?: ValueWriter): SlackMessage {
  const revert = write && revertButton(write, record);
  return {
    text: `${postSubject(record)}${record.app === DEFAULT_APP ? '' : ` in ${record.app}`} ${{ applied: 'changed', failed: 'change failed', unknown: 'change of unknown outcome' }[record.outcome]} by user ${record.userId}${record.approval ? `, approved by user ${record.approval.approvedBy}` : ''} (ref ${record.ref})`,
    blocks: [section(auditRecordText(record)), ...(revert ? [actions([revert])] : [])],
  };
}
