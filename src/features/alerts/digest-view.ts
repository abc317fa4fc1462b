import type { KnownBlock } from '@slack/types';
import type { Usage } from '../../cometchat/model.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { context, fields, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import { SUBSCRIPTIONS_HINT } from './alert-view.ts';
import type { DigestDay } from './digest-rules.ts';

// What a channel sees of its daily digest: the app's usage since the one before and its calls by
// status, or, where CometChat could not be read, the sentence that says so in their place. Pure.

/** The calls of the day, counted by status from the pages read. */
export interface CallCounts {
  /** Status (as CometChat names it) to how many calls had it. */
  byStatus: ReadonlyMap<string, number>;
  /** How many calls were counted. */
  counted: number;
  /** More calls than the pages read hold: the counts are of the newest `counted`. */
  capped: boolean;
  /** The list's own total, where it gives one. */
  total: number;
}

/** A part of the digest CometChat did not give: the sentence of its failure (mrkdwn). */
export interface Unread {
  failure: string;
}

export interface DigestInput {
  /** The app's name when several are configured. */
  appName: string | undefined;
  day: DigestDay;
  at: { time: string; zone: string };
  usage: Usage | Unread;
  calls: CallCounts | Unread;
}

/** Statuses in the order a reader looks for them; others follow by name. */
const STATUS_ORDER = ['ended', 'unanswered', 'rejected', 'canceled', 'ongoing', 'initiated'];

/** Made on first use, as mrkdwn.ts makes its segmenter: no Intl object at start-up. */
let numberFormat: Intl.NumberFormat | undefined;

function number(value: number): string {
  numberFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
  return numberFormat.format(value);
}

function figure(value: number | undefined): string {
  return value === undefined ? '— (not given)' : number(value);
}

function usageFields(usage: Usage): KnownBlock {
  return fields([
    `*Audio minutes*\n${figure(usage.audioMinutes)}`,
    `*Video minutes*\n${figure(usage.videoMinutes)}`,
    `*Recorded minutes*\n${figure(usage.recordedMinutes)}`,
    `*Active users*\n${figure(usage.activeUsers)}`,
  ]);
}

/** `12 ended · 3 unanswered`, the known statuses first; CometChat's words escaped. */
function statusLine(byStatus: ReadonlyMap<string, number>): string {
  const rank = (status: string) => {
    const known = STATUS_ORDER.indexOf(status);
    return known === -1 ? STATUS_ORDER.length : known;
  };
  return [...byStatus]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .slice(0, 20)
    .map(([status, n]) => `${number(n)} ${escapeMrkdwn(truncate(status, 40))}`)
    .join(' · ');
}

function callsLine(calls: CallCounts): string {
  if (calls.counted === 0) return '*Calls*: none started and ended in that time.';
  if (!calls.capped) return `*Calls*: ${number(calls.counted)}, ${statusLine(calls.byStatus)}`;
  // The list's total counts them all; by status, only the pages read were.
  const total = number(Math.max(calls.total, calls.counted));
  return `*Calls*: ${total}; at least ${statusLine(calls.byStatus)} (only the newest ${number(calls.counted)} were counted)`;
}

const isUnread = <T extends object>(part: T | Unread): part is Unread => 'failure' in part;

const HOUR_SECONDS = 60 * 60;

/**
 * The time a digest covers: `the 23 hours to <date>` (a day across a change of summer time), or
 * from one date to another when that is not whole hours (its time of day was changed).
 */
function spanOf(day: DigestDay): string {
  const seconds = day.to - day.from;
  return seconds % HOUR_SECONDS === 0
    ? `the ${counted(seconds / HOUR_SECONDS, 'hour')} to ${slackDate(day.to)}`
    : `${slackDate(day.from)} to ${slackDate(day.to)}`;
}

/** The digest's post: a heading, the usage figures, the calls by status, and how to stop it. */
export function digestPost(input: DigestInput): SlackMessage {
  const { day, at, usage, calls } = input;
  const heading = `:bar_chart: *Daily digest*${inApp(input.appName)}: ${spanOf(day)}`;
  const blocks: KnownBlock[] = [
    section(heading),
    isUnread(usage) ? section(`*Usage*: ${usage.failure}`) : usageFields(usage),
    section(isUnread(calls) ? `*Calls*: ${calls.failure}` : callsLine(calls)),
    context([`Posted each day at ${at.time} (${escapeMrkdwn(at.zone)}). ${SUBSCRIPTIONS_HINT}`]),
  ];
  return {
    text: `Daily digest${input.appName ? ` of ${input.appName}` : ''} for ${day.day}`,
    blocks,
  };
}
