import type { Call, Participant, Transcription } from '../../cometchat/model.ts';
import {
  codeUpTo,
  escapedUpTo,
  escapeMrkdwn,
  hms,
  joinedUpTo,
  link,
  slackDate,
  truncate,
} from '../../slack/mrkdwn.ts';
import { WORD_MAX } from './status-marks.ts';

// Who was there when: a call's participants as bars across the call's span, for a person to
// read at a glance, and the call's shape in one line. Pure: "now" (for a call still going on)
// is passed in.

/** Characters of the bar: the call's span from its start to its end. */
export const BAR_WIDTH = 24;
const NAME_WIDTH = 18;
/** A preformatted section holds at most this much text (Slack allows 3000 per section). */
const SECTION_TEXT = 2_900;

/** The first join, the last join or leave, the first leave, and whether anyone is still in. */
function times(participants: readonly Participant[]) {
  let firstJoin = Number.POSITIVE_INFINITY;
  let latest = Number.NEGATIVE_INFINITY;
  let firstLeave = Number.POSITIVE_INFINITY;
  let stillIn = false;
  // One pass, no intermediate arrays: a call may have thousands of participants.
  for (const p of participants) {
    if (p.joinedAt !== undefined) {
      firstJoin = Math.min(firstJoin, p.joinedAt);
      latest = Math.max(latest, p.joinedAt);
      if (p.leftAt === undefined) stillIn = true;
    }
    if (p.leftAt !== undefined) {
      latest = Math.max(latest, p.leftAt);
      firstLeave = Math.min(firstLeave, p.leftAt);
    }
  }
  return { firstJoin, latest, firstLeave, stillIn };
}

/** The call's span in Unix seconds, or undefined when nothing in the record dates it. */
export function callSpan(
  call: Pick<Call, 'startedAt' | 'initiatedAt' | 'endedAt' | 'participants'>,
  now?: number,
): { start: number; end: number } | undefined {
  const seen = times(call.participants);
  const start =
    call.startedAt ??
    call.initiatedAt ??
    (Number.isFinite(seen.firstJoin) ? seen.firstJoin : undefined);
  if (start === undefined) return undefined;
  const latest = Math.max(start, seen.latest);
  // A call that has not ended runs until now, when now is known.
  const end = call.endedAt ?? (seen.stillIn && now !== undefined ? Math.max(now, latest) : latest);
  return { start, end: Math.max(start, end) };
}

/** East Asian wide letters and emoji take two columns in a monospace font. */
const WIDE =
  /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\p{Extended_Pictographic}]/u;

function columns(char: string): number {
  return WIDE.test(char) ? 2 : 1;
}

/**
 * Text for a preformatted block: `&<>` still escaped (Slack parses them everywhere), a backtick
 * (which would end the block) and line breaks replaced, cut or padded to `width` columns (wide
 * letters count two), so that the bars after a name line up.
 */
export function preText(text: string, width?: number): string {
  const chars = Array.from(text.replace(/[\p{Cc}\u2028\u2029]/gu, ' ').replace(/`/g, 'ˋ'));
  let fitted = chars;
  if (width !== undefined) {
    fitted = [];
    let used = 0;
    const total = chars.reduce((sum, c) => sum + columns(c), 0);
    for (const char of chars) {
      // Room is kept for the ellipsis when the whole text does not fit.
      const room = total > width ? width - 1 : width;
      if (used + columns(char) > room) break;
      fitted.push(char);
      used += columns(char);
    }
    if (total > width) {
      fitted.push('…');
      used += 1;
    }
    fitted.push(' '.repeat(Math.max(0, width - used)));
  }
  return fitted
    .join('')
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** `+m:ss` (or `+h:mm:ss`) from the call's start. */
export function offset(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `+${h}:${two(m)}:${two(sec)}` : `+${m}:${two(sec)}`;
}

/** One joined participant's line: name, bar, in and out from the start, state. */
export function timelineLine(p: Participant, span: { start: number; end: number }): string {
  const length = span.end - span.start;
  const from = clamp((p.joinedAt ?? span.start) - span.start, 0, length);
  const to = clamp((p.leftAt ?? span.end) - span.start, from, length);
  const first = length === 0 ? 0 : Math.floor((from / length) * BAR_WIDTH);
  const last = length === 0 ? BAR_WIDTH : Math.max(first + 1, Math.ceil((to / length) * BAR_WIDTH));
  const bar = Array.from({ length: BAR_WIDTH }, (_, i) =>
    i >= first && i < last ? '█' : '·',
  ).join('');
  const out = p.leftAt === undefined ? 'still in' : offset(to);
  return `${preText(p.name || p.uid, NAME_WIDTH)} ${bar} ${offset(from).padStart(7)} → ${out.padEnd(8)} ${preText(p.state ?? '', 12).trimEnd()}`;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

/**
 * The timeline of `participants` (one page of a call's) as sections: the joined ones as bars in
 * preformatted text, split over sections when long, then those who never joined, apart.
 */
export function timelineSections(
  call: Call,
  participants: readonly Participant[],
  now?: number,
): string[] {
  const span = callSpan(call, now);
  const joined = participants.filter((p) => p.isJoined && p.joinedAt !== undefined);
  const never = participants.filter((p) => !p.isJoined);
  const texts: string[] = [];
  if (span && joined.length > 0) {
    const scale = `${' '.repeat(NAME_WIDTH)} ${'0'.padEnd(BAR_WIDTH - 5)}${offset(span.end - span.start).padStart(5)}`;
    const lines = [scale, ...joined.map((p) => timelineLine(p, span))];
    let current: string[] = [];
    for (const line of lines) {
      if ([...current, line].join('\n').length + 8 > SECTION_TEXT) {
        texts.push(`\`\`\`${current.join('\n')}\`\`\``);
        current = [];
      }
      current.push(line);
    }
    if (current.length > 0) texts.push(`\`\`\`${current.join('\n')}\`\`\``);
  } else if (joined.length > 0) {
    texts.push('_The call carries no times, so there is no timeline._');
  }
  if (never.length > 0) {
    const names = never.map(
      // A name is escaped; a uid, shown for want of one, stays exact to copy.
      (p) =>
        `${p.name ? escapedUpTo(p.name, 60) : codeUpTo(p.uid, 60)} (${escapedUpTo(p.state ?? 'no state', WORD_MAX)})`,
    );
    const head = `*Never joined* (${never.length}): `;
    texts.push(`${head}${joinedUpTo(names, ', ', SECTION_TEXT - head.length)}`);
  }
  return texts;
}

/** The call's shape in one line: who joined, who did not and why, when the first one left. */
export function callShape(call: Call): string | undefined {
  if (call.participants.length === 0) return undefined;
  const joined = call.participants.filter((p) => p.isJoined).length;
  const notJoined = new Map<string, number>();
  for (const p of call.participants) {
    if (p.isJoined) continue;
    const state = p.state ?? 'not joined';
    notJoined.set(state, (notJoined.get(state) ?? 0) + 1);
  }
  const counts = [
    `${joined} joined`,
    ...[...notJoined].map(([state, n]) => `${n} ${escapedUpTo(state, WORD_MAX)}`),
  ].join(', ');
  const span = callSpan(call);
  const { firstLeave } = times(call.participants);
  if (!span || !Number.isFinite(firstLeave)) return counts;
  const first = Math.max(0, firstLeave - span.start);
  return `${counts}; first to leave after ${first < 60 ? `${first} s` : `${Math.round(first / 60)} min`}`;
}

/** Transcripts as lines: date, length, and a link only for an http(s) address. */
export function transcriptsText(
  transcriptions: readonly Transcription[],
  marked: boolean,
  listed = 10,
): string | undefined {
  if (transcriptions.length === 0) {
    return marked
      ? '*Transcripts*\n_The call is marked as transcribed, but no transcript is listed yet._'
      : undefined;
  }
  const lines = transcriptions.slice(0, listed).map((t) => {
    const label = `Transcript ${truncate(t.tid, 40)}`;
    const date = transcriptDate(t.transcriptDate);
    const parts = [t.transcriptUrl ? link(t.transcriptUrl, label) : escapeMrkdwn(label)];
    if (date !== undefined) parts.push(slackDate(date));
    if (t.startTime !== undefined && t.endTime !== undefined && t.endTime >= t.startTime) {
      parts.push(hms(t.endTime - t.startTime));
    }
    return parts.join(' · ');
  });
  const hidden = transcriptions.length - lines.length;
  const more = hidden > 0 ? `\n_${hidden} more not shown._` : '';
  return `*Transcripts* (${transcriptions.length})\n${lines.join('\n')}${more}`;
}

/** ISO text in current documentation, Unix seconds elsewhere; undefined when it is neither. */
function transcriptDate(value: string | number | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}
