import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import { failureSentence, type SentenceDeps } from '../replies/failure.ts';
import { ACTIONS, CALLBACKS } from '../slack/ids.ts';
import { createApproveButton, createRejectButton, createRejectSubmission } from './approvals.ts';
import { createConfirmSubmission } from './confirm.ts';
import type { ChangeDeps } from './deps.ts';
import { createPromoteButton } from './promote.ts';
import { createRevertButton } from './revert-button.ts';

// The road every change goes, whatever it acts on (a role's permissions, a role itself, a user's
// role or account): its review, the approval a second person may have to give, the apply once,
// the audit, the promotion to another app. Features ask for a change with the review functions
// below and show the review; from "Apply" on, the road's own listeners take it. It knows nothing
// of the features: the composition root registers it beside them.

export { applyChange } from './apply.ts';
export { approvalsList, homeApprovalBlocks, type ListedRequest } from './approval-view.ts';
export {
  completeWaitingSteps,
  expireApprovals,
  remindApprovals,
  requestsFor,
} from './approvals.ts';
// What features build a change with, and show its review with.
export {
  type Change,
  changeId,
  changeOf,
  changeRecord,
  FingerprintSchema,
  idPayload,
  type KeyChange,
  MAX_CONTAINMENT_GROUPS,
  MAX_DELETED_MESSAGES,
  METADATA_LIMIT,
  type MessageDeletionChange,
  type ModerationChange,
  type ModerationStatus,
  type PermissionsChange,
  type RuleChange,
  RuleIdSchema,
  type ScopePermissionsChange,
  SubmittedValueSchema,
} from './change.ts';
export {
  type AskedContainment,
  CONTAIN_TITLE,
  containmentKeyText,
  reviewContainment,
  stepOutcomeLines,
} from './containment-view.ts';
export { type AppLabel, appLabel, type ChangeDeps, OPEN_CHECK_DEADLINE_MS } from './deps.ts';
export { MAX_CONTAINMENT_DELETIONS, messagesSince } from './kinds/containment.ts';
// A group's member: their scope, a kick, a ban (the groups feature's).
export {
  isBanned,
  KICK_NO_REVERT,
  memberScope,
  type Standing,
} from './kinds/group-member.ts';
export { messageGoneSentence, messageIfAny } from './kinds/message-deletion.ts';
export { noRevertReason } from './kinds/moderation.ts';
export { type Baseline, baselineFrom } from './kinds/permissions.ts';
export { ruleIfAny } from './kinds/rule.ts';
export {
  conditionsSummary,
  fieldPlainText,
  RULE_FIELDS,
  type RuleField,
  ruleChangeLines,
  ruleDifferences,
  ruleUpdateOf,
  ruleValues,
} from './kinds/rule-fields.ts';
export { scopeName } from './kinds/scope-permissions.ts';
export { SESSION_DROP_UNDOCUMENTED, sessionLine, sessionsChangeLine } from './kinds/sessions.ts';
export { failureView } from './outcome.ts';
export type { AuditTrail } from './record.ts';
export { replyPrivately } from './replies.ts';
export { type ApprovalApp, requestApproval, requestedNotice } from './request.ts';
export { revertButton } from './revert-view.ts';
export {
  type AskedDeletion,
  type AskedMemberChange,
  type AskedRoleChange,
  type AskedSessionsRevoke,
  type AskedUserChange,
  confirmView,
  DELETE_MESSAGES_TITLE,
  deletionQuestion,
  MEMBER_CHANGE_TITLE,
  messageDeletionOf,
  messageDeletionReview,
  ROLE_CHANGE_TITLE,
  reviewMemberChange,
  reviewRoleChange,
  reviewSessionsChange,
  reviewUserChange,
  subjectReviewView,
  USER_CHANGE_TITLE,
  userChangeOf,
} from './review.ts';
export { outputsRefused, stepErrorText } from './step-completion.ts';
export { chunkedSections, messageView } from './views.ts';

/**
 * Registers the road's listeners: the review's Apply (or Request approval), Approve and Reject,
 * the promotion to another app, and an audit record's _Revert_. A failure's sentence is said with the app's time budget and
 * without its secrets (`deps`' own).
 */
export function registerChanges(
  bolt: App,
  deps: Omit<ChangeDeps, 'failureSentence'> & SentenceDeps,
): void {
  const road: ChangeDeps = { ...deps, failureSentence: (error) => failureSentence(error, deps) };
  bolt.view<ViewSubmitAction>(CALLBACKS.permissionsConfirm, createConfirmSubmission(road));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.approveChange, createApproveButton(road));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.rejectChange, createRejectButton(road));
  bolt.view<ViewSubmitAction>(CALLBACKS.rejectReason, createRejectSubmission(road));
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.promoteChange}:`),
    createPromoteButton(road),
  );
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.revertChange}:`),
    createRevertButton(road),
  );
}
