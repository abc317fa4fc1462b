import type { Button, ContextBlock, KnownBlock, View } from '@slack/types';
import { z } from 'zod';
import type { ValueWriter } from '../../apps/apps.ts';
import { MAX_SESSION_ID, MAX_UID } from '../../cometchat/id-rules.ts';
import type { Call, Participant, Person, Recording } from '../../cometchat/model.ts';
import { counted } from '../../replies/sentences.ts';
import {
  actions,
  blocksTextLength,
  button,
  context,
  divider,
  fields,
  header,
  MESSAGE_TEXT_LIMIT,
  plain,
  section,
} from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import {
  code,
  codeUpTo,
  escapedUpTo,
  escapeMrkdwn,
  hms,
  link,
  slackDate,
  truncate,
} from '../../slack/mrkdwn.ts';
import { PageSchema } from '../../slack/values.ts';
import { openInCometChat } from '../unfurl.ts';
import { callShape, timelineSections, transcriptsText } from './call-timeline.ts';
import { markedStatus, WORD_MAX } from './status-marks.ts';

/**
 * How many participants, recordings and transcripts the message lists: the first that keeps the
 * whole message within Slack's text limit (long names and links from the service can fill it).
 * Participants left out are a button away, in a paged modal.
 */
const LISTED = [10, 5, 2, 0] as const;
export const PARTICIPANTS_PER_PAGE = 20;
const LINES_PER_SECTION = 5;

/**
 * What a call's buttons carry (Details, Share in channel, Show all participants and the
 * participants pages): re-validated when it comes back.
 */
export const CallRefSchema = z.object({
  sessionId: z.string().min(1).max(MAX_SESSION_ID),
  onBehalfOf: z.string().min(1).max(MAX_UID).optional(),
  page: PageSchema,
});

export type CallRef = z.infer<typeof CallRefSchema>;

export interface CallViewOptions {
  /** Writes the buttons' values (signed for the app). */
  value?: ValueWriter;
  /** The app's name, shown when several apps are configured. */
  appName?: string | undefined;
  /** Unix seconds: where the timeline of a call still going on ends. */
  now?: number | undefined;
  /** The app's CometChat id: the card links to the call's dashboard page (none when unknown). */
  appId?: string | undefined;
}

/** The call as a message: the summary up front, then participants and recordings. Pure. */
export function callMessage(
  call: Call,
  onBehalfOf?: string,
  options: CallViewOptions = {},
): SlackMessage {
  const write = options.value ?? JSON.stringify;
  const listing = (listed: number): SlackMessage => ({
    text: fallbackText(call),
    blocks: [
      ...headlineBlocks(call, onBehalfOf, options.appName),
      ...whoBlocks(call),
      whenFields(call),
      divider(),
      ...participantBlocks(call, listed),
      ...recordingBlocks(call, listed),
      ...transcriptBlocks(call, listed),
      ...footerBlocks(call, onBehalfOf, write, listed, options.appId),
    ],
  });
  const [most, ...fewer] = LISTED;
  let message = listing(most);
  for (const listed of fewer) {
    if (blocksTextLength(message.blocks ?? []) <= MESSAGE_TEXT_LIMIT) break;
    message = listing(listed);
  }
  return message;
}

/** The title, the session id (and who it was looked up as), and the call's shape. */
function headlineBlocks(
  call: Call,
  onBehalfOf: string | undefined,
  appName: string | undefined,
): KnownBlock[] {
  const app = appName ? ` · ${appName}` : '';
  return [
    header(`${capitalise(call.type ?? 'unknown')} call · ${call.status ?? 'unknown status'}${app}`),
    section(
      `Session ${codeUpTo(call.sessionId, MAX_SESSION_ID)}${onBehalfOf ? ` · looked up as ${codeUpTo(onBehalfOf, MAX_UID)}` : ''}`,
    ),
    ...shapeContext(call),
  ];
}

/** What kind of call, between whom, and their avatars when the service gave usable ones. */
function whoBlocks(call: Call): KnownBlock[] {
  const avatars = avatarContext([
    ['Initiator', call.initiator],
    ['Receiver', call.receiver],
  ]);
  return [
    fields([
      `*Type*\n${escapedUpTo(call.type ?? '—', WORD_MAX)}`,
      `*Mode*\n${escapedUpTo(call.mode ?? '—', WORD_MAX)}`,
      `*Status*\n${escapedUpTo(call.status ?? '—', WORD_MAX)}`,
      `*Receiver type*\n${escapedUpTo(call.receiverType ?? '—', WORD_MAX)}`,
      `*Initiator*\n${personText(call.initiator)}`,
      `*Receiver*\n${personText(call.receiver)}`,
    ]),
    ...(avatars ? [avatars] : []),
  ];
}

/** When the call was initiated, started and ended, and how long it lasted. */
function whenFields(call: Call): KnownBlock {
  return fields([
    `*Initiated*\n${slackDate(call.initiatedAt)}`,
    `*Started*\n${slackDate(call.startedAt)}`,
    `*Ended*\n${slackDate(call.endedAt)}`,
    `*Duration*\n${totalDuration(call)}`,
    `*Audio minutes*\n${minutes(call.totalAudioMinutes)}`,
    `*Video minutes*\n${minutes(call.totalVideoMinutes)}`,
  ]);
}

/** The first participants; the rest are counted in the footer. */
function participantBlocks(call: Call, listed: number): KnownBlock[] {
  const shown = call.participants.slice(0, listed);
  return [
    section(
      `*Participants* (${call.totalParticipants})${shown.length === 0 ? '\n_None recorded_' : ''}`,
    ),
    ...participantSections(shown, call.status),
  ];
}

function recordingBlocks(call: Call, listed: number): KnownBlock[] {
  if (!call.hasRecording && call.recordings.length === 0) return [];
  return [
    divider(),
    section(recordingsText(call.recordings.slice(0, listed), call.recordings.length)),
  ];
}

function transcriptBlocks(call: Call, listed: number): KnownBlock[] {
  const transcripts = transcriptsText(call.transcriptions, call.hasTranscription, listed);
  return transcripts ? [divider(), section(transcripts)] : [];
}

/** How many participants the message leaves out, then the buttons. */
function footerBlocks(
  call: Call,
  onBehalfOf: string | undefined,
  write: ValueWriter,
  listed: number,
  appId: string | undefined,
): KnownBlock[] {
  const hidden = Math.max(0, call.participants.length - listed);
  const open = openInCometChat(appId, 'calls', call.sessionId);
  const buttons = [...callButtons(call, onBehalfOf, write, hidden > 0), ...(open ? [open] : [])];
  return [
    ...(hidden > 0 ? [context([`${counted(hidden, 'more participant')} not shown here.`])] : []),
    ...(buttons.length > 0 ? [actions(buttons)] : []),
  ];
}

/**
 * "Show all participants" (when some are left out) and "Share in channel". A button carries
 * the session id back (at most MAX_SESSION_ID characters, see CallRefSchema); an id the
 * service sent longer than that gets no buttons, rather than a message Slack refuses whole (a
 * button value is at most 2000 characters).
 */
function callButtons(
  call: Call,
  onBehalfOf: string | undefined,
  write: ValueWriter,
  someHidden: boolean,
): Button[] {
  if (call.sessionId.length < 1 || call.sessionId.length > MAX_SESSION_ID) return [];
  const value = write({ sessionId: call.sessionId, onBehalfOf, page: 1 } satisfies CallRef);
  const share = button('Share in channel', ACTIONS.shareCall, value);
  if (!someHidden) return [share];
  const count = call.participants.length;
  return [button(`Show all ${count} participants`, ACTIONS.callParticipants, value), share];
}

/**
 * `text` is mrkdwn too (notifications, clients without blocks): service data is escaped here
 * as well, or a session id like `<!channel>` would ping a channel from the fallback.
 */
function fallbackText(call: Call): string {
  const summary = [call.type, call.status].filter(Boolean).join(' ');
  return `Call ${codeUpTo(call.sessionId, MAX_SESSION_ID)}${summary ? `: ${escapedUpTo(summary, 2 * WORD_MAX)}` : ''}`;
}

/** One page of a call's participants, as a modal. Pure. */
export function participantsView(call: Call, ref: CallRef, options: CallViewOptions = {}): View {
  const write = options.value ?? JSON.stringify;
  const pages = Math.max(1, Math.ceil(call.participants.length / PARTICIPANTS_PER_PAGE));
  const page = Math.min(Math.max(1, ref.page), pages);
  const slice = call.participants.slice(
    (page - 1) * PARTICIPANTS_PER_PAGE,
    page * PARTICIPANTS_PER_PAGE,
  );
  const blocks: KnownBlock[] = [
    section(`Session ${code(call.sessionId)}`),
    context([
      `${options.appName ? `${escapeMrkdwn(options.appName)} · ` : ''}Page ${page} of ${pages} · ${call.participants.length} participants`,
    ]),
    ...shapeContext(call),
  ];
  const timeline = timelineSections(call, slice, options.now);
  if (timeline.length > 0) {
    blocks.push(section('*Who was there when* (from the start of the call)'));
    blocks.push(...timeline.map((text) => section(text)));
    blocks.push(divider());
  }
  blocks.push(...participantSections(slice, call.status));
  const nav = [];
  const value = (p: number) => write({ ...ref, page: p } satisfies CallRef);
  if (page > 1)
    nav.push({
      ...button('◀ Previous', ACTIONS.participantsPage, value(page - 1)),
      action_id: `${ACTIONS.participantsPage}_prev`,
    });
  if (page < pages)
    nav.push({
      ...button('Next ▶', ACTIONS.participantsPage, value(page + 1)),
      action_id: `${ACTIONS.participantsPage}_next`,
    });
  if (nav.length > 0) blocks.push(actions(nav));
  return {
    type: 'modal',
    callback_id: CALLBACKS.participantsModal,
    title: plain('Call participants', 24),
    close: plain('Close', 24),
    private_metadata: write({ ...ref, page }),
    blocks,
  };
}

/** The call's shape in one line ("9 joined, 2 unanswered; first to leave after 4 min"). */
function shapeContext(call: Call): KnownBlock[] {
  const shape = callShape(call);
  return shape ? [context([shape])] : [];
}

function participantSections(
  participants: readonly Participant[],
  callStatus: string | undefined,
): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < participants.length; i += LINES_PER_SECTION) {
    blocks.push(
      section(
        participants
          .slice(i, i + LINES_PER_SECTION)
          .map((p) => participantLine(p, callStatus))
          .join('\n'),
      ),
    );
  }
  return blocks;
}

/**
 * A participant's state, or what their times imply when CometChat gives none (it leaves the
 * initiator's out): joined and not left is in the call while the call goes on, else left with
 * it. Someone who never joined and has no state keeps none. Pure.
 */
export function participantState(
  p: Participant,
  callStatus: string | undefined,
): string | undefined {
  if (p.state || !p.isJoined) return p.state;
  return p.leftAt === undefined && callStatus === 'ongoing' ? 'ongoing' : 'ended';
}

export function participantLine(p: Participant, callStatus?: string): string {
  const state = participantState(p, callStatus);
  const parts = [
    state ? markedStatus(state) : ':heavy_minus_sign: no state',
    personText(p),
    p.isJoined ? 'joined' : 'never joined',
  ];
  if (p.minutes !== undefined) parts.push(`${minutes(p.minutes)} min`);
  if (p.audioMinutes !== undefined || p.videoMinutes !== undefined) {
    parts.push(`(audio ${minutes(p.audioMinutes)}, video ${minutes(p.videoMinutes)})`);
  }
  if (p.joinedAt !== undefined) parts.push(`in ${slackDate(p.joinedAt, '{time}')}`);
  if (p.leftAt !== undefined) parts.push(`out ${slackDate(p.leftAt, '{time}')}`);
  return parts.join(' · ');
}

function recordingsText(recordings: readonly Recording[], total: number): string {
  if (total === 0)
    return '*Recordings*\n_The call is marked as recorded, but no recording is listed yet._';
  const lines = recordings.map((r) => {
    const label = `Recording ${truncate(r.rid, 40)}`;
    const parts = [r.recording_url ? link(r.recording_url, label) : escapeMrkdwn(label)];
    if (r.duration !== undefined) parts.push(`${minutes(r.duration)} min`);
    if (r.startTime !== undefined)
      parts.push(`${slackDate(r.startTime)} → ${slackDate(r.endTime, '{time}')}`);
    return parts.join(' · ');
  });
  const more = total > recordings.length ? `\n_${total - recordings.length} more not shown._` : '';
  return `*Recordings* (${total})\n${lines.join('\n')}${more}`;
}

/** `*Name* (`uid`)`, or just the uid when the service gave no name. */
export function personText(person: Person | undefined): string {
  if (!person) return '—';
  const uid = codeUpTo(person.uid, MAX_UID);
  return person.name ? `*${escapedUpTo(person.name, 100)}* (${uid})` : uid;
}

/**
 * The initiator's and the receiver's pictures, each beside the role it has in the call: their
 * names and uids are in the fields above, once.
 */
function avatarContext(
  people: readonly (readonly [string, Person | undefined])[],
): ContextBlock | undefined {
  const elements: ContextBlock['elements'] = [];
  for (const [role, person] of people) {
    if (!person?.avatar || !/^https:\/\/[^\s<>|]+$/.test(person.avatar)) continue;
    elements.push({
      type: 'image',
      image_url: person.avatar,
      alt_text: truncate(person.name ?? person.uid, 70),
    });
    elements.push({ type: 'mrkdwn', text: role });
  }
  return elements.length > 0 ? { type: 'context', elements } : undefined;
}

function totalDuration(call: Call): string {
  if (call.totalDuration && /^\d{1,4}:\d{2}:\d{2}$/.test(call.totalDuration))
    return call.totalDuration;
  if (call.totalDurationInMinutes !== undefined)
    return hms(Math.round(call.totalDurationInMinutes * 60));
  if (call.startedAt !== undefined && call.endedAt !== undefined)
    return hms(call.endedAt - call.startedAt);
  return '—';
}

function minutes(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
