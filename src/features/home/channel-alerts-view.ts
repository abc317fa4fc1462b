import type { KnownBlock } from '@slack/types';
import { counted } from '../../replies/sentences.ts';
import { context, divider, header, section, TEXT_LIMIT } from '../../slack/blocks.ts';
import type { ChannelAlerts } from '../deps.ts';

// The Home tab's "Alerts in your channels": the subscriptions of the channels the person is a
// member of, a line each as the alerts feature writes it. Pure; at most the blocks it is given
// room for.

export const ALERTS_TITLE = 'Alerts in your channels';

/** Subscriptions listed before "…and N more": the rest is the channel's own list. */
const LINES_LISTED = 20;

const HINT = '`/cometchat subscriptions` in a channel lists its subscriptions, each with Remove.';
const PARTIAL = 'You are in more channels than the Home tab reads: some are not listed.';
const UNREAD = ':warning: Your channels could not be read just now, so their alerts are not shown.';

/** Lines joined into sections, each within Slack's 3,000 characters; `lines` counts each's. */
function packed(lines: readonly string[]): { text: string; lines: number }[] {
  const sections: { text: string; lines: number }[] = [];
  for (const line of lines) {
    const last = sections.at(-1);
    if (last && last.text.length + 1 + line.length <= TEXT_LIMIT) {
      last.text = `${last.text}\n${line}`;
      last.lines += 1;
    } else {
      sections.push({ text: line, lines: 1 });
    }
  }
  return sections;
}

/**
 * The section for `alerts` (undefined: not known, so not shown; `unread`: one line saying so), in
 * at most `room` blocks: lines beyond it, or beyond the first twenty, are counted. Nothing when
 * the person's channels have no subscription, or not even one line fits.
 */
export function channelAlertBlocks(
  alerts: ChannelAlerts | 'unread' | undefined,
  room: number,
): KnownBlock[] {
  if (alerts === undefined) return [];
  if (alerts === 'unread') {
    return room >= 3 ? [divider(), header(ALERTS_TITLE), section(UNREAD)] : [];
  }
  if (alerts.lines.length === 0) return [];
  // The divider, the header and the closing context take three.
  const fit = room - 3;
  if (fit < 1) return [];
  const shown = packed(alerts.lines.slice(0, LINES_LISTED)).slice(0, fit);
  const more = alerts.lines.length - shown.reduce((sum, s) => sum + s.lines, 0);
  const notes = [
    ...(more > 0 ? [`…and ${counted(more, 'more subscription')}.`] : []),
    HINT,
    ...(alerts.partial ? [PARTIAL] : []),
  ];
  return [
    divider(),
    header(ALERTS_TITLE),
    ...shown.map((s) => section(s.text)),
    context([notes.join(' ')]),
  ];
}
