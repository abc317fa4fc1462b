import type { KnownBlock, RichTextElement } from '@slack/types';
import { scopeName } from '../../changes/index.ts';
import { valueInWords } from '../../cometchat/catalogue.ts';
import { permissionKeyRuns } from '../../replies/permission-key-text.ts';
import { counted, valueSourceRuns } from '../../replies/sentences.ts';
import {
  context,
  header,
  richText,
  section,
  TABLE_ROWS,
  type TableCell,
  table,
} from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { Comparison, KeyDifference, SideValue } from '../known-maps.ts';

// A comparison as a message: what it compares, how many keys differ and how many are equal,
// the differing keys as a table (key, then each side's value and where it came from), and why
// it is the app's own record that is compared. Pure.

/** What is compared: two roles of one app, or one role in two apps. */
export type CompareSubject =
  | {
      kind: 'roles';
      left: string;
      right: string;
      /** The app's name, shown when several apps are configured. */
      appName?: string | undefined;
    }
  | { kind: 'apps'; role: string; left: string; right: string }
  /** One group's scope in two apps. */
  | { kind: 'scope'; guid: string; scope: string; left: string; right: string };

/**
 * The table's text, as Slack counts a message's (about 13,000 characters in all): rows beyond it
 * are counted instead of shown. Each row is a key and two values of at most VALUE_SHOWN, and
 * where they came from.
 */
const TABLE_TEXT = 9_000;
const VALUE_SHOWN = 150;
/** A key is at most 100 characters (the service's limit); its label comes before it. */
const KEY_SHOWN = 100;

/** Why the app's own record is compared: `what` is "role" or "scope". */
function why(what: string): string {
  return `Compared from this app's own record, without asking CometChat: CometChat offers no read of a ${what}'s configured permissions, so this compares what this app set (a ${what} it never changed has the documented defaults, and a change made in CometChat's dashboard does not show).`;
}

export function compareMessage(subject: CompareSubject, comparison: Comparison): SlackMessage {
  const { differing, equal } = comparison;
  const { rows, shown } = differenceRows(differing);
  const more = differing.length - shown;
  const blocks: KnownBlock[] = [
    header(title(subject)),
    section(summary(subject, comparison)),
    ...(rows.length > 0
      ? [
          table(['Key', subject.left, subject.right], rows, [
            { is_wrapped: true },
            { is_wrapped: true },
            { is_wrapped: true },
          ]),
        ]
      : []),
    ...(more > 0
      ? [context([`…and ${more} more ${more === 1 ? 'key differs' : 'keys differ'}, not shown.`])]
      : []),
    context([why(subject.kind === 'scope' ? 'scope' : 'role')]),
  ];
  return {
    response_type: 'ephemeral',
    text: `${titleText(subject)}: ${differingCount(differing.length)}, ${equalCount(equal)}.`,
    blocks,
  };
}

/** What is compared, as a header (plain text: not parsed, nothing to escape). */
function title(subject: CompareSubject): string {
  if (subject.kind === 'scope') {
    return `Compare scope ${subject.scope} of ${subject.guid} in ${subject.left} and ${subject.right}`;
  }
  return subject.kind === 'roles'
    ? `Compare ${subject.left} and ${subject.right}${subject.appName ? ` · ${subject.appName}` : ''}`
    : `Compare ${subject.role} in ${subject.left} and ${subject.right}`;
}

/** The same in mrkdwn (a message's `text` is parsed): role ids as code, app names escaped. */
function titleText(subject: CompareSubject): string {
  const app = (name: string) => `*${escapeMrkdwn(name)}*`;
  if (subject.kind === 'scope') {
    return `Compare the ${scopeName(subject)} in ${app(subject.left)} and ${app(subject.right)}`;
  }
  return subject.kind === 'roles'
    ? `Compare ${code(subject.left)} and ${code(subject.right)}${subject.appName ? ` in ${app(subject.appName)}` : ''}`
    : `Compare ${code(subject.role)} in ${app(subject.left)} and ${app(subject.right)}`;
}

function differingCount(n: number): string {
  return n === 1 ? '1 key differs' : `${n} keys differ`;
}

function equalCount(n: number): string {
  return `${counted(n, 'key')} ${n === 1 ? 'is' : 'are'} equal`;
}

function summary(subject: CompareSubject, { differing, equal, known }: Comparison): string {
  if (!known.left && !known.right) {
    const apps = `*${escapeMrkdwn(subject.left)}* or *${escapeMrkdwn(subject.right)}*`;
    const never =
      subject.kind === 'roles'
        ? `This app has never changed ${code(subject.left)} or ${code(subject.right)}`
        : subject.kind === 'scope'
          ? `This app has never changed the ${scopeName(subject)} in ${apps}`
          : `This app has never changed ${code(subject.role)} in ${apps}`;
    return `${never}: both are the documented defaults, and identical.`;
  }
  if (differing.length === 0) return `No key differs: ${equalCount(equal)}.`;
  return `*${differingCount(differing.length)}*; ${equalCount(equal)} and not listed.`;
}

/** The differing keys' rows, as many as fit the table's rows and its text. */
function differenceRows(differing: readonly KeyDifference[]) {
  const rows: TableCell[][] = [];
  let text = 0;
  for (const difference of differing) {
    const runs = [
      permissionKeyRuns(difference.key, KEY_SHOWN),
      sideRuns(difference.left),
      sideRuns(difference.right),
    ];
    text += runs.flat().reduce((sum, run) => sum + ('text' in run ? run.text.length : 0), 0);
    // The header row is one of Slack's 100.
    if (rows.length === TABLE_ROWS - 1 || text > TABLE_TEXT) break;
    rows.push(runs.map(richText));
  }
  return { rows, shown: rows.length };
}

/**
 * A side's value (as code, shown exactly: a rich-text cell is not parsed, so a stored value
 * cannot mention or link whatever it holds) and, under it, where it came from.
 */
function sideRuns(side: SideValue): RichTextElement[] {
  if (side.source === 'none') {
    return [{ type: 'text', text: valueInWords(undefined), style: { italic: true } }];
  }
  return [
    { type: 'text', text: truncate(valueInWords(side.value), VALUE_SHOWN), style: { code: true } },
    { type: 'text', text: '\n' },
    ...valueSourceRuns(side.source === 'set' ? side.set : undefined),
  ];
}
