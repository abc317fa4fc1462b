import { context, section } from '../slack/blocks.ts';
import type { SlackMessage } from '../slack/deliver.ts';
import { withRef } from './sentences.ts';

// Why a person may not use the app, or may not do what they asked: written here from what the
// access check decided, so that every refusal reads alike.

/** Why a check refused: not on the list, or Slack did not answer it (in time, or at all). */
export type RefusalReason = 'not-listed' | 'timeout' | 'slack-error';

/** What was asked: to change permissions, or to approve a change someone else asked for. */
export type EditAction = 'change' | 'approve' | 'moderate' | 'approve-moderation';

const DOING: Record<EditAction, string> = {
  change: 'change permissions',
  approve: 'approve permission changes',
  moderate: 'review flagged and blocked messages',
  'approve-moderation': 'approve moderation decisions',
};

const TRY_AGAIN = 'try again in a moment, and ask an admin of the app if it keeps happening.';

/** Refused the app itself (VIEWERS). */
export function viewRefused(reason: RefusalReason): string {
  if (reason === 'timeout') {
    return 'Slack did not answer in time, so the app could not check that you may use it; try again in a moment.';
  }
  return reason === 'slack-error'
    ? `This app is limited to the people listed in its VIEWERS setting, and Slack answered with an error when the app checked that list; ${TRY_AGAIN}`
    : 'This app is limited to the people listed in its VIEWERS setting; ask an admin of the app if you need access.';
}

/**
 * Refused a change or an approval. `setting` names the list that decided (EDITORS, the app's own
 * editors setting, APPROVERS); without one, workspace admins and owners decide.
 */
export function editRefused(
  reason: RefusalReason,
  setting: string | undefined,
  action: EditAction = 'change',
): string {
  const doing = DOING[action];
  if (reason === 'timeout') {
    return `Slack did not answer in time, so the app could not check that you may ${doing}; try again in a moment.`;
  }
  if (setting !== undefined) {
    return reason === 'slack-error'
      ? `Only the people listed in the app's ${setting} setting may ${doing}, and Slack answered with an error when the app checked that list; ${TRY_AGAIN}`
      : `Only the people listed in the app's ${setting} setting may ${doing}; ask one of them, or an admin of the app.`;
  }
  return reason === 'slack-error'
    ? `Only workspace admins and owners may ${doing}, and Slack answered with an error when the app asked whether you are one; ${TRY_AGAIN}`
    : `Only workspace admins and owners may ${doing} (the app has no EDITORS list); ask one of them.`;
}

/** The sentences as a person meets them most: changing permissions, under EDITORS. */
export const REFUSALS = {
  view: viewRefused('not-listed'),
  edit: editRefused('not-listed', 'EDITORS'),
  editAdmins: editRefused('not-listed', undefined),
  viewTimeout: viewRefused('timeout'),
  editTimeout: editRefused('timeout', 'EDITORS'),
  viewError: viewRefused('slack-error'),
  editError: editRefused('slack-error', 'EDITORS'),
  editAdminsError: editRefused('slack-error', undefined),
} as const;

/**
 * A command that could not be read: the problem in one line, where to find the usage, and the
 * reference that finds its log line.
 */
export function inputRefused(problem: string, ref: string): SlackMessage {
  return {
    text: withRef(`${problem} Try /cometchat help.`, ref),
    blocks: [
      section(`:warning: ${problem}`),
      context([`\`/cometchat help\` lists every subcommand. Reference: \`${ref}\``]),
    ],
  };
}
