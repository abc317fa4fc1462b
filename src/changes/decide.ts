import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { CheckLimit } from '../access/access.ts';
import { appNameIfMultiple, type CometChatApp } from '../apps/apps.ts';
import { permissionKeyText } from '../replies/permission-key-text.ts';
import { withRef } from '../replies/sentences.ts';
import { currentRequest } from '../request-context.ts';
import { slackErrorCode } from '../slack/deliver.ts';
import { escapeMrkdwn } from '../slack/mrkdwn.ts';
import { type ApprovalRequest, failedSteps } from '../store/store.ts';
import { type ApplyOutcome, applyChange, NOT_SENT } from './apply.ts';
import { approvalMessage, askAgain, outcomeNotice } from './approval-view.ts';
import { type Change, changeOf, setsPermissions } from './change.ts';
import { stepOutcomeLines } from './containment-view.ts';
import { appLabel, type ChangeDeps } from './deps.ts';
import { kindOf } from './kinds/index.ts';
import { completeStepOnce } from './step-completion.ts';

// Deciding a request: approve (the change applied as the editor applies one: authorised at the
// moment it goes, once, audited with the requester and the approver), reject, or let it expire.
// One decision per request: each takes the request's one claim, then reads it again, so that
// whoever comes second is told what became of it, and nothing is announced (the message updated,
// the request stored, the requester told) before it is true.

/** How long the claim of one decision is held: long past the change's own time budget. */
const DECISION_CLAIM_SECONDS = 120;

/** The claim one decision on a request takes (approve, reject, or the expiry sweep). */
export const decisionClaim = (id: string) => `decide:${id}`;

/** Said to whoever clicks while another decision on the same request is under way. */
export const BEING_DECIDED =
  'This request is being decided by someone else right now; nothing was sent.';

const UNKNOWN_REQUEST = 'That request is out of date or unknown; nothing was sent.';

/** Who decides, where, and how to tell them (only them). */
export interface Decider {
  app: CometChatApp;
  userId: string;
  client: WebClient;
  tell(text: string): Promise<void>;
}

/** Where a decision is announced from: the Slack client, and the log of the work that made it. */
export interface Announcer {
  client: WebClient;
  log: Logger;
}

/** "This request is already closed (rejected by @x); nothing was sent." */
function closedSentence(request: ApprovalRequest | undefined): string {
  if (!request) return UNKNOWN_REQUEST;
  const by = request.decidedBy ? ` by <@${request.decidedBy}>` : '';
  return `This request is already closed (${request.status}${by}); nothing was sent.`;
}

/**
 * Why a request cannot be acted on at `now`: unknown (or another app's), closed, or expired
 * (`expire`: to be marked so); undefined when it can. `allowFailed` lets a failed request, or one
 * whose outcome is unknown, through for Retry. Pure.
 */
export function whyNotActionable(
  request: ApprovalRequest | undefined,
  app: string,
  now: number,
  allowFailed: boolean,
): { sentence: string; expire?: true } | undefined {
  if (!request || request.app !== app) return { sentence: UNKNOWN_REQUEST };
  const retryable = request.status === 'failed' || request.status === 'unknown';
  if (request.status !== 'open' && !(retryable && allowFailed)) {
    return { sentence: closedSentence(request) };
  }
  if (now > request.expiresAt && retryable) {
    // Past its time a Retry is refused, but the attempt stands as it was: marking it expired
    // would tell the requester (and a workflow step) that nothing was sent, which a change of
    // unknown outcome may have been.
    return {
      sentence: `This request has expired; its last attempt stands (${request.status}), and nothing was sent now. ${askAgain(request)}`,
    };
  }
  if (now > request.expiresAt) {
    return {
      sentence: `This request has expired; nothing was sent. ${askAgain(request)}`,
      expire: true,
    };
  }
  return undefined;
}

/**
 * The request a button names, if it can still be acted on; else the sentence to say instead
 * (an expired one is marked so).
 */
export async function openRequest(
  deps: ChangeDeps,
  decider: Pick<Decider, 'app' | 'client'>,
  id: string,
  allowFailed: boolean,
): Promise<{ request: ApprovalRequest } | { sentence: string }> {
  const request = await deps.store.getApproval(id);
  const problem = whyNotActionable(request, decider.app.name, deps.now(), allowFailed);
  if (!problem && request) return { request };
  if (problem?.expire && request) {
    await expireRequest(deps, { client: decider.client, log: currentRequest().log }, request);
  }
  return { sentence: problem?.sentence ?? UNKNOWN_REQUEST };
}

/**
 * Who approves a request: moderators a message's decision (APPROVERS is about permissions),
 * editors (and APPROVERS, when set) any other change. Pure.
 */
export function approversOf(
  request: Pick<ApprovalRequest, 'subject'> | undefined,
): 'moderators' | 'editors' {
  return request?.subject?.kind === 'message' ? 'moderators' : 'editors';
}

/**
 * Who may decide a request now: an editor of the app who did not ask for it and, when APPROVERS
 * is set, is one of them too; why not, otherwise. Both checks are asked at once.
 */
export async function approverRefusal(
  app: CometChatApp,
  request: ApprovalRequest | undefined,
  userId: string,
  limit: CheckLimit = {},
): Promise<string | undefined> {
  if (!app.approval)
    return 'This app no longer asks for approvals; apply the change from the editor.';
  if (userId === request?.requester) {
    return 'You asked for this change: another person must approve or reject it.';
  }
  const { log } = currentRequest();
  if (approversOf(request) === 'moderators') {
    return app.access.moderatorRefusal(userId, log, { ...limit, action: 'approve-moderation' });
  }
  const refusals = await Promise.all(
    [app.access, app.approval.approvers].map((access) =>
      access?.editRefusal(userId, log, { ...limit, action: 'approve' }),
    ),
  );
  return refusals.find((refusal) => refusal !== undefined);
}

/**
 * Takes the request's one decision: its claim, then the request read again, still as it was
 * when clicked. Else the sentence for whoever came second: someone is deciding it now, or what
 * became of it.
 */
export async function takeDecision(
  deps: Pick<ChangeDeps, 'store'>,
  request: ApprovalRequest,
): Promise<{ request: ApprovalRequest } | { sentence: string }> {
  const claim = decisionClaim(request.id);
  if (!(await deps.store.claim(claim, DECISION_CLAIM_SECONDS))) return { sentence: BEING_DECIDED };
  const current = await deps.store.getApproval(request.id);
  if (current?.status === request.status) return { request: current };
  await deps.store.release(claim);
  return { sentence: closedSentence(current) };
}

/**
 * Stores the request's new state, shows it in the channel and tells the requester; neither
 * Slack call may fail it. The requester did not click: a direct message reaches them (deliver).
 */
export async function announce(
  deps: Pick<ChangeDeps, 'store' | 'apps' | 'deliver' | 'now'>,
  { client, log }: Announcer,
  request: ApprovalRequest,
  detail?: string,
): Promise<void> {
  const app = deps.apps.byName(request.app);
  await deps.store.putApproval(request);
  if (request.ts && app) {
    const message = approvalMessage(request, { ...appLabel(deps.apps, app), detail });
    await client.chat
      .update({ channel: request.channel, ts: request.ts, ...message })
      .catch((error: unknown) => {
        log.warn({ cause: slackErrorCode(error) }, 'approval message not updated');
      });
  }
  if (request.status === 'open') return;
  const appName = app ? appNameIfMultiple(deps.apps, app) : undefined;
  // A request a workflow step made: the step ends with the outcome (this never throws).
  if (request.workflowStep) await completeStepOnce(deps, { client, log }, request.id);
  await deps.deliver({ userId: request.requester }, outcomeNotice(request, appName), log);
}

/** Closes a request past its expiry, as one decision; whether this call did. */
export async function expireRequest(
  deps: Pick<ChangeDeps, 'store' | 'apps' | 'deliver' | 'now'>,
  announcer: Announcer,
  request: ApprovalRequest,
): Promise<boolean> {
  const decision = await takeDecision(deps, request);
  if ('sentence' in decision) return false;
  await announce(deps, announcer, { ...decision.request, status: 'expired' });
  return true;
}

/**
 * "Approve" on an open request, or "Retry" on one whose sending failed or whose outcome is not
 * known: the change applied once, as one decision, then the outcome announced.
 */
export async function approveRequest(deps: ChangeDeps, decider: Decider, id: string) {
  const { log, ref } = currentRequest();
  const found = await openRequest(deps, decider, id, true);
  if ('sentence' in found) return decider.tell(found.sentence);
  const refusal = await approverRefusal(decider.app, found.request, decider.userId);
  if (refusal) {
    log.warn({ user: decider.userId, request: id }, 'approval refused');
    return decider.tell(refusal);
  }
  const decision = await takeDecision(deps, found.request);
  if ('sentence' in decision) return decider.tell(decision.sentence);
  const { request } = decision;
  // An unknown outcome may have been applied already: the log says who sent it again.
  if (request.status !== 'open') {
    log.info({ request: id, previously: request.status, user: decider.userId }, 'approval retried');
  }
  const outcome = await sendApproved(deps, decider, request);
  const decided = { decidedBy: decider.userId, decidedAt: deps.now() };
  const report = approvalReport(outcome, request, decided, ref, deps);
  if (report.release) await deps.store.release(decisionClaim(id));
  if (report.announce) {
    await announce(deps, { client: decider.client, log }, report.announce, report.detail);
  }
  if (report.tell) await decider.tell(report.tell);
}

/** Sent as the editor sends a change, audited with both people; a throw is nothing sent. */
function sendApproved(
  deps: ChangeDeps,
  decider: Decider,
  request: ApprovalRequest,
): Promise<ApplyOutcome> {
  return applyChange(deps, {
    app: decider.app,
    change: requestChange(request, decider.app.name),
    userId: decider.userId,
    teamId: request.teamId,
    approval: {
      requester: request.requester,
      requestedAt: request.requestedAt,
      approvedAt: deps.now(),
      reason: request.reason,
    },
    afterUnknown: request.status === 'unknown',
  }).catch((error: unknown) => ({ kind: 'not-sent' as const, error, sentence: NOT_SENT }));
}

/** The change a request asks for, as its review was: the same id, so one claim. Pure. */
export function requestChange(request: ApprovalRequest, app: string): Change {
  return {
    ...changeOf(request),
    ...(request.promotedFrom ? { promotedFrom: { app, ref: request.promotedFrom } } : {}),
  };
}

/**
 * How an approved attempt is shown: the request's new state announced (in the channel, to the
 * requester) and its detail, and what only the approver is told; and whether the decision's
 * claim is let go for another attempt.
 */
export interface ApprovalReport {
  announce?: ApprovalRequest;
  detail?: string | undefined;
  tell?: string;
  release: boolean;
}

/**
 * What an approved attempt comes to. The claim is kept once the change was applied (or had been
 * before), or the request is closed; otherwise it is let go, so an approver can retry. Pure.
 */
export function approvalReport(
  outcome: ApplyOutcome,
  request: ApprovalRequest,
  decided: { decidedBy: string; decidedAt: number },
  ref: string,
  deps: Pick<ChangeDeps, 'failureSentence'>,
): ApprovalReport {
  switch (outcome.kind) {
    case 'applied':
      return {
        announce: { ...request, ...decided, status: 'applied', ref },
        detail: appliedDetail(outcome, request),
        release: false,
      };
    case 'taken':
      return {
        announce: { ...request, ...decided, status: 'applied' },
        tell: 'CometChat already has this change: the earlier attempt did take, so nothing was sent again.',
        release: false,
      };
    case 'failed':
    case 'unknown':
      return {
        announce: { ...request, ...decided, status: outcome.kind, ref },
        detail: withRef(deps.failureSentence(outcome.error), ref, 'mrkdwn'),
        release: true,
      };
    case 'repeated':
      return {
        tell: 'This change was already applied once; it was not sent again.',
        release: false,
      };
    case 'refused':
      return { tell: outcome.sentence, release: true };
    case 'not-sent':
      return { tell: withRef(outcome.sentence, ref), release: true };
    case 'stale':
      return {
        announce: { ...request, status: 'stale' },
        detail: outcome.why,
        tell: outcome.why ?? outcome.sentence,
        release: false,
      };
  }
}

/**
 * CometChat's per-key words for a role's permissions (external text, escaped); for a user or a
 * role itself, what it did, said from the change, which CometChat's answer matched.
 */
function appliedDetail(
  outcome: Extract<ApplyOutcome, { kind: 'applied' }>,
  request: ApprovalRequest,
): string | undefined {
  const change = changeOf(request);
  const { steps } = outcome.update;
  if (steps && failedSteps({ steps }).length > 0) return stepOutcomeLines(steps).join('\n');
  if (!setsPermissions(change)) return `:white_check_mark: ${kindOf(change).done}`;
  const lines = Object.entries(outcome.update.results).map(
    ([key, r]) =>
      `${r.success ? ':white_check_mark:' : ':x:'} ${permissionKeyText(key)}: ${escapeMrkdwn(r.message)}`,
  );
  return lines.join('\n') || undefined;
}
