import type { RichTextElement } from '@slack/types';
import { MAX_ROLES } from '../cometchat/id-rules.ts';
import { context, dateElement, section } from '../slack/blocks.ts';
import type { SlackMessage } from '../slack/deliver.ts';
import { code, escapeMrkdwn, slackDate } from '../slack/mrkdwn.ts';

// The small pieces every reply is written with, defined once: how a count reads, how a reply
// names its app, and where a role's permission value came from.

/** `1 change`, `3 changes`; `plural` for a noun that does not take an s (`matches`). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** ` in *staging*` after what a reply is about, when several apps are configured; else nothing. */
export function inApp(appName: string | undefined): string {
  return appName ? ` in *${escapeMrkdwn(appName)}*` : '';
}

/**
 * A sentence with the request's reference, which finds its log lines: plain in a message's
 * `text`, in a code span in mrkdwn (copyable, and safe from the formatting around it).
 */
export function withRef(sentence: string, ref: string, format: 'text' | 'mrkdwn' = 'text'): string {
  return `${sentence} (ref ${format === 'mrkdwn' ? `\`${ref}\`` : ref})`;
}

/** A failure as one sentence plus the reference that finds its log line. */
export function failureMessage(sentence: string, ref: string): SlackMessage {
  return {
    text: withRef(sentence, ref),
    blocks: [section(`:warning: ${sentence}`), context([`Reference: \`${ref}\``])],
  };
}

const SET_BY_THIS_APP = 'as this app last set the role, ';
/** The same of a group's scope, whose permissions have the form of a role's. */
const SET_FOR_THE_SCOPE = 'as this app last set the scope, ';
const DOCUMENTED_DEFAULT = 'the documented default';

/**
 * The map of a role's permissions this app last set (an update's answer): when it was seen, in
 * Unix ms, and the reference of the change that set it (absent from a map an earlier version
 * stored).
 */
export interface SetByThisApp {
  seenAt: number;
  ref?: string | undefined;
}

/**
 * Where a role's permission value came from, as every reply says it: the map this app last set
 * (`set`), else the documented default. CometChat offers no read of a role's permissions, so
 * these are all the app knows. One sentence, written two ways: mrkdwn here, a table cell's
 * rich-text runs in {@link valueSourceRuns}.
 */
export function valueSourceText(
  set: SetByThisApp | undefined,
  of: 'role' | 'scope' = 'role',
): string {
  if (set === undefined) return DOCUMENTED_DEFAULT;
  const text = `${of === 'scope' ? SET_FOR_THE_SCOPE : SET_BY_THIS_APP}${slackDate(Math.floor(set.seenAt / 1000))}`;
  // A map stored by an earlier version has no reference: then the date alone.
  return set.ref === undefined ? text : withRef(text, set.ref, 'mrkdwn');
}

/**
 * {@link valueSourceText} as rich-text runs, for a table cell (which renders no `<!date>` token):
 * the time as a `date` element in each reader's own zone, the reference as code.
 */
export function valueSourceRuns(set: SetByThisApp | undefined): RichTextElement[] {
  if (set === undefined) return [{ type: 'text', text: DOCUMENTED_DEFAULT }];
  // Not a real time: `—`, as slackDate writes it.
  const when: RichTextElement = dateElement(Math.floor(set.seenAt / 1000)) ?? {
    type: 'text',
    text: '—',
  };
  const runs: RichTextElement[] = [{ type: 'text', text: SET_BY_THIS_APP }, when];
  if (set.ref === undefined) return runs;
  return [
    ...runs,
    { type: 'text', text: ' (ref ' },
    { type: 'text', text: set.ref, style: { code: true } },
    { type: 'text', text: ')' },
  ];
}

/**
 * How many users hold a role about to be deleted, as its review and its approval request say it
 * (`where`: ` there`, for another app's): CometChat's count with deactivated users, or that it
 * could not be read (undefined).
 */
export function roleHoldersSentence(holders: number | undefined, where = ''): string {
  if (holders === undefined) return `How many users hold it${where} could not be read.`;
  if (holders === 0) return `No user holds it${where}.`;
  return `${counted(holders, 'user holds', 'users hold')} it${where} (deactivated ones included).`;
}

/** Said where a uid is typed: why one typed in capitals is sent, and shown, in lower case. */
export const UID_CASE_SENTENCE =
  'CometChat keeps uids in lower case, so a uid is sent in lower case however it is typed.';

/** The sentence for a 26th role, said before anything is sent. */
export function roleLimitSentence(count: number, appName?: string): string {
  return `This app has ${counted(count, 'role')}${inApp(appName)}, and CometChat keeps at most ${MAX_ROLES} per app: delete one first. Nothing was sent.`;
}

/**
 * Said of a message no moderation queue holds: decided already (here, on another replica, in
 * CometChat's dashboard) or never there. `id` when known (else "That message"); `app` names the
 * app in the command when several are configured; `serviceCode` is CometChat's error code, as a
 * code span, when its answer said so. The one sentence for every reader of the queue.
 */
export function notWaitingSentence(
  id: string | undefined,
  { app, serviceCode = '' }: { app?: string | undefined; serviceCode?: string } = {},
): string {
  const which = id === undefined ? 'That message' : `Message ${code(id)}`;
  const command = app ? `/cometchat ${app} moderation` : '/cometchat moderation';
  return `${which} is no longer waiting for a decision${serviceCode}: it was decided already, or there is no such message, so nothing was changed. Run \`${command}\` to see what waits.`;
}
