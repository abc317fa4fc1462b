import type { Button, KnownBlock } from '@slack/types';
import { z } from 'zod';
import type { ValueWriter } from '../../apps/apps.ts';
import { MAX_UID } from '../../cometchat/id-rules.ts';
import type { CallPage, CallSummary, Person } from '../../cometchat/model.ts';
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
import {
  code,
  codeUpTo,
  escapedUpTo,
  escapeMrkdwn,
  slackDate,
  truncate,
} from '../../slack/mrkdwn.ts';
import { PageSchema } from '../../slack/values.ts';
import { type ResolvedSearch, ResolvedSearchSchema } from '../call-filters.ts';
import { type CallRef, type CallViewOptions, personText } from './call-view.ts';
import { statusMark, WORD_MAX } from './status-marks.ts';

// The call search's result as a message: a table of calls, newest first, a Details button per
// call, then page buttons that carry the search itself. Pure.

/** Calls per page: a row and a button each, well inside a message's 50 blocks. */
export const CALLS_PER_PAGE = 10;
/** A page never shows more (a service that ignored the page size is paged by the client). */
const MAX_SHOWN = 20;

/** What a page button carries: the search, its times fixed, and the page. */
export const SearchPageSchema = z.object({ s: ResolvedSearchSchema, page: PageSchema });

export type SearchPageValue = z.infer<typeof SearchPageSchema>;

/**
 * How the list writes its button values and names its app, as the call view does, and where it
 * is shown: a message (the default) or a modal, which takes no table.
 */
export type CallListOptions = Omit<CallViewOptions, 'now'> & {
  surface?: 'message' | 'modal' | undefined;
};

/** A search's filters with its times written in any form: fixed (Unix seconds), or as typed. */
export type SearchInWords<T> = Omit<ResolvedSearch, 'since' | 'until' | 'zone'> & {
  since?: T | undefined;
  until?: T | undefined;
};

/** The filters of a search as a person would say them, each in a code span. */
export function describeSearch(search: ResolvedSearch): string {
  const parts = filterParts(search, (time) => slackDate(time));
  if (search.zone !== undefined) parts.push(`days in ${code(search.zone)}`);
  return joined(parts);
}

/**
 * The same words for a search whose times are not all fixed yet, each time written by `when`:
 * the progress message names a calendar day as typed before the person's time zone is known.
 */
export function describeFilters<T>(search: SearchInWords<T>, when: (time: T) => string): string {
  return joined(filterParts(search, when));
}

/** One phrase per filter given, in the order a person would say them. */
function filterParts<T>(search: SearchInWords<T>, when: (time: T) => string): string[] {
  return [
    search.uid !== undefined ? `calls of ${codeUpTo(search.uid, 100)}` : undefined,
    search.status !== undefined ? `status ${code(search.status)}` : undefined,
    search.type !== undefined ? `type ${code(search.type)}` : undefined,
    search.mode !== undefined ? `mode ${code(search.mode)}` : undefined,
    search.to !== undefined ? `to a ${code(search.to)}` : undefined,
    search.recorded ? 'recorded' : undefined,
    search.transcribed ? 'transcribed' : undefined,
    search.since !== undefined ? `since ${when(search.since)}` : undefined,
    search.until !== undefined ? `until ${when(search.until)}` : undefined,
    search.onBehalfOf !== undefined ? `as ${codeUpTo(search.onBehalfOf, 100)}` : undefined,
  ].filter((part): part is string => part !== undefined);
}

/** The phrases as one line, or what a search without filters shows. */
function joined(parts: readonly string[]): string {
  return parts.length > 0 ? parts.join(' · ') : 'no filters (the newest calls)';
}

/**
 * One call as a line: marker, type and mode, who called whom, when, how long, who answered.
 * Each of CometChat's words is cut, then escaped, so the line is well inside a section's 3,000
 * characters and is never cut whole (which could leave a span open or drop the date).
 */
export function callLine(call: CallSummary): string {
  const kind = [call.type, call.mode].filter(Boolean).map((s) => escapedUpTo(s ?? '', WORD_MAX));
  const from = personText(call.initiator);
  const to = personText(call.receiver);
  const when = call.startedAt ?? call.initiatedAt;
  const facts = [
    when !== undefined ? slackDate(when) : undefined,
    duration(call),
    `${counted(call.totalParticipants, 'participant')}${call.neverJoined > 0 ? `, ${call.neverJoined} never answered` : ''}`,
    call.hasRecording ? ':movie_camera: recorded' : undefined,
  ].filter((fact): fact is string => fact !== undefined);
  return [
    `${statusMark(call.status)} *${kind.join(' · ') || 'call'}* · ${escapedUpTo(call.status ?? 'unknown status', WORD_MAX)}`,
    `${from} → ${to}`,
    facts.join(' · '),
  ].join('\n');
}

function duration(call: CallSummary): string | undefined {
  if (call.totalDurationInMinutes !== undefined) {
    return `${Math.round(call.totalDurationInMinutes * 10) / 10} min`;
  }
  if (call.startedAt !== undefined && call.endedAt !== undefined) {
    return `${Math.round((call.endedAt - call.startedAt) / 6) / 10} min`;
  }
  return undefined;
}

/**
 * The page of calls as a message, or "No calls match" with the filters that were applied. In a
 * message the calls are a table with a Details button per row below it; in a modal, which takes
 * no table, each call is a section with its Details button beside it.
 */
export function callListMessage(
  result: CallPage,
  search: ResolvedSearch,
  options: CallListOptions = {},
): SlackMessage {
  const write = options.value ?? JSON.stringify;
  const title = options.appName ? `Calls · ${options.appName}` : 'Calls';
  const pages = Math.max(1, result.totalPages);
  const filters = describeSearch(search);
  const blocks: KnownBlock[] = [header(title), context([filters])];
  const shown = result.calls.slice(0, MAX_SHOWN);
  if (shown.length === 0) {
    blocks.push(
      section(
        result.page > 1 && result.total > 0
          ? `There is no page ${result.page}; the last page is ${pages}.`
          : `No calls match: ${filters}.`,
      ),
    );
  } else {
    blocks.push(
      context([
        `Page ${result.page} of ${pages} · ${counted(result.total, 'call')} · newest first`,
      ]),
    );
    const details = (call: CallSummary) =>
      write({
        sessionId: call.sessionId,
        onBehalfOf: search.onBehalfOf,
        page: 1,
      } satisfies CallRef);
    blocks.push(
      ...(options.surface === 'modal'
        ? callSections(shown, details)
        : [callTable(shown), ...detailsRows(shown, details)]),
    );
  }
  const nav = navigation(search, result.page, pages, write);
  if (nav.length > 0) blocks.push(actions(nav));
  return {
    text: `${escapeMrkdwn(title)}: ${counted(result.total, 'match', 'matches')}, page ${result.page} of ${pages}`,
    blocks,
  };
}

/** A Details button's value for a call; one too long for Slack (2000) gets no button. */
type DetailsValue = (call: CallSummary) => string;

/** One section per call, its Details button beside it: the list as a modal shows it. */
function callSections(calls: readonly CallSummary[], details: DetailsValue): KnownBlock[] {
  return calls.map((call) => {
    const value = details(call);
    return section(
      callLine(call),
      // A session id too long for a button value is still listed, without the button.
      value.length <= 2000 ? button('Details', ACTIONS.callDetails, value) : undefined,
    );
  });
}

/**
 * One row per call: what its line says, a column each. Who is name and uid, exact; the session
 * id is left to Details (it is the call's first line there): at up to 255 characters it would
 * be the widest column, and twenty of them crowd the message's text budget.
 */
function callTable(calls: readonly CallSummary[]): KnownBlock {
  return table(
    ['#', 'When', 'Type', 'Status', 'Who', 'Duration', 'Participants', 'Recording'],
    calls.map((call, i) => [
      rawText(String(i + 1)),
      dateCell(call.startedAt ?? call.initiatedAt),
      rawText([call.type, call.mode].filter(Boolean).join(' · ') || 'call', 40),
      richText([
        // The mark is a `:name:` shortcode; rich text names an emoji without the colons.
        { type: 'emoji', name: statusMark(call.status).slice(1, -1) },
        { type: 'text', text: ` ${truncate(call.status ?? 'unknown status', 40)}` },
      ]),
      rawText(`${personPlain(call.initiator)} → ${personPlain(call.receiver)}`, 500),
      rawText(duration(call) ?? ''),
      rawText(
        `${call.totalParticipants}${call.neverJoined > 0 ? ` · ${call.neverJoined} never answered` : ''}`,
      ),
      rawText(
        [call.hasRecording ? 'recorded' : '', call.hasTranscription ? 'transcribed' : '']
          .filter(Boolean)
          .join(' · '),
      ),
    ]),
    [{ align: 'right' }, {}, {}, {}, { is_wrapped: true }, { align: 'right' }],
  );
}

/**
 * `Name (uid)`, or the uid alone, as plain text: the uid exactly as CometChat has it, the name
 * cut shorter than in Details so that twenty rows stay well inside a message's text budget.
 */
function personPlain(person: Person | undefined): string {
  if (!person) return '—';
  const uid = truncate(person.uid, MAX_UID);
  return person.name ? `${truncate(person.name, 60)} (${uid})` : uid;
}

/**
 * A "Details #n" button per row, each in an actions block of its own: a table cell cannot hold
 * a button, and Slack refuses an action_id repeated within one block, while the lookup answers
 * `call_details` exactly. The buttons keep the action_id and value they had beside each call.
 */
function detailsRows(calls: readonly CallSummary[], details: DetailsValue): KnownBlock[] {
  return calls.flatMap((call, i) => {
    const value = details(call);
    return value.length <= 2000
      ? [actions([button(`Details #${i + 1}`, ACTIONS.callDetails, value)])]
      : [];
  });
}

function navigation(
  search: ResolvedSearch,
  page: number,
  pages: number,
  write: ValueWriter,
): Button[] {
  const value = (p: number) => write({ s: search, page: p } satisfies SearchPageValue);
  const buttons: Button[] = [];
  if (page > 1) {
    buttons.push({
      ...button('◀ Newer', ACTIONS.callsPage, value(Math.min(page - 1, pages))),
      action_id: `${ACTIONS.callsPage}_prev`,
    });
  }
  if (page < pages) {
    buttons.push({
      ...button('Older ▶', ACTIONS.callsPage, value(page + 1)),
      action_id: `${ACTIONS.callsPage}_next`,
    });
  }
  buttons.push(button('Share in channel', ACTIONS.shareCalls, value(page)));
  return buttons;
}
