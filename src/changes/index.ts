import type { App, BlockAction, ButtonAction, SlashCommand, ViewSubmitAction } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { Logger } from 'pino';
import { noWords } from '../features/command.ts';
import type { AppDeps, SharedDeps } from '../features/deps.ts';
import { type Feature, subcommand } from '../features/feature.ts';
import { replyToCommand } from '../features/load-into-modal.ts';
import { ACTIONS, CALLBACKS } from '../slack/ids.ts';
import { failureSentence } from '../voice/failure.ts';
import { approvalsList, homeApprovalBlocks } from './approval-view.ts';
import {
  createApproveButton,
  createRejectButton,
  createRejectSubmission,
  expireApprovals,
  requestsFor,
} from './approvals.ts';
import { createConfirmSubmission } from './confirm.ts';
import type { ChangeDeps } from './deps.ts';
import { createPromoteButton } from './promote.ts';
import { createRevertButton } from './revert-button.ts';

// The road every change goes, whatever it acts on (a role's permissions, a role itself, a user's
// role or account): its review, the approval a second person may have to give, the apply once,
// the audit, the promotion to another app. Features ask for a change with the review functions
// below and show the review; from "Apply" on, the road's own listeners take it. The composition
// root lists the road beside the features.

export type { Change, KeyChange } from './change.ts';
export type { AppLabel, ChangeDeps } from './deps.ts';
export { revertButton } from './revert-view.ts';
export {
  type AskedRoleChange,
  type AskedUserChange,
  confirmView,
  ROLE_CHANGE_TITLE,
  reviewRoleChange,
  reviewUserChange,
  USER_CHANGE_TITLE,
} from './review.ts';

const APPROVALS_USAGE = '`/cometchat approvals`';

/** What the road is given, from what every feature is registered with. */
export function changeDeps(deps: AppDeps): ChangeDeps {
  return { ...deps, failureSentence: (error) => failureSentence(error, deps) };
}

/**
 * Registers the road's listeners: the review's submission, the decisions, the promotion, and an
 * audit record's _Revert_.
 */
export function registerChanges(bolt: App, deps: ChangeDeps): void {
  bolt.view<ViewSubmitAction>(CALLBACKS.permissionsConfirm, createConfirmSubmission(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.approveChange, createApproveButton(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.rejectChange, createRejectButton(deps));
  bolt.view<ViewSubmitAction>(CALLBACKS.rejectReason, createRejectSubmission(deps));
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.promoteChange}:`),
    createPromoteButton(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.revertChange}:`),
    createRevertButton(deps),
  );
}

/** `/cometchat approvals`: the open requests the caller may act on, oldest first. */
async function listApprovals(deps: AppDeps, command: SlashCommand): Promise<void> {
  const { waiting } = await requestsFor(deps, command.user_id);
  await replyToCommand(deps, command, approvalsList(waiting));
}

/** The Home tab's approvals: those waiting for this person (with buttons), and their own. */
export function homeApprovals(deps: Pick<SharedDeps, 'store' | 'apps' | 'now'>) {
  return async (userId: string, _log: Logger): Promise<KnownBlock[]> => {
    const { waiting, own } = await requestsFor(deps, userId);
    return homeApprovalBlocks(waiting, own);
  };
}

export const changes: Feature = {
  subcommands: [
    subcommand({
      names: ['approvals'],
      usage: `${APPROVALS_USAGE} - the permission changes waiting for your approval (when an app asks for approvals)`,
      parse: noWords(APPROVALS_USAGE),
      run: (_, { body, deps }) => listApprovals(deps, body),
    }),
  ],
  register: (bolt, deps) => registerChanges(bolt, changeDeps(deps)),
  // Requests past their expiry are closed on time, once across replicas.
  periodic: (deps, log) => expireApprovals(deps, deps.client, log),
};
