import { escapedUpTo } from '../../slack/mrkdwn.ts';

// One colour per state, wherever a call or a participant is drawn: a search result and the call
// it opens never disagree.

const MARKS: Readonly<Record<string, string>> = {
  ongoing: ':large_green_circle:',
  ended: ':white_circle:',
  unanswered: ':large_orange_circle:',
  rejected: ':red_circle:',
  canceled: ':black_circle:',
  initiated: ':large_blue_circle:',
};

/** The mark of a call's status or a participant's state; a state the app does not know: `?`. */
export function statusMark(state: string | undefined): string {
  return MARKS[state ?? ''] ?? ':grey_question:';
}

/** A call's type, mode or status, or a participant's state, as CometChat wrote it: short words, cut if not. */
export const WORD_MAX = 40;

/** The mark and the state's name, escaped and cut short (the state comes from CometChat). */
export function markedStatus(state: string): string {
  return `${statusMark(state)} ${escapedUpTo(state, WORD_MAX)}`;
}
