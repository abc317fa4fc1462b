import { escapeMrkdwn } from '../../slack/mrkdwn.ts';
import type { ApprovalRequest } from '../../store/store.ts';
import { failureSentence, type SentenceDeps } from '../../voice/failure.ts';
import { withRef } from '../../voice/sentences.ts';
import { permissionKeyText } from '../permission-key-text.ts';
import { type ApplyOutcome, applyChange, NOT_SENT } from './apply-change.ts';
import {
  ACTING_CLAIM_SECONDS,
  type ApprovalDeps,
  actingClaim,
  announce,
  approverRefusal,
  type Click,
  tell,
} from './approval-steps.ts';
import { alreadyHasChange, changedSinceReview, subjectChangeDone } from './change-subject.ts';
import type { ConfirmMetadata } from './editor-state.ts';

// Approving a request, or retrying one whose sending failed: the change is sent as the editor
// sends one (apply-change.ts), with the app's editors checked again at the moment it goes, at
// most once across replicas, and audited with both the requester and the approver.

/** "Approve" on an open request: the change applied once, by whoever wins. */
export function approveFlow(deps: ApprovalDeps, click: Click, request: ApprovalRequest) {
  return checkedSend(deps, click, request, false);
}

/** "Retry" on a request whose sending failed, or whose outcome is unknown: sent again, once. */
export function retryFlow(deps: ApprovalDeps, click: Click, request: ApprovalRequest) {
  return checkedSend(deps, click, request, true);
}

/** The approver checked, then the change sent once; a retry is logged with who sent it again. */
async function checkedSend(
  deps: ApprovalDeps,
  click: Click,
  request: ApprovalRequest,
  retried: boolean,
): Promise<void> {
  const refusal = await approvalRefusal(deps, click, request);
  if (refusal) return tell(deps, click, refusal);
  // An unknown outcome may have been applied already: the log says who sent it again.
  if (retried) {
    click.scope.log.info(
      { request: request.id, previously: request.status, user: click.userId },
      'approval retried',
    );
  }
  await sendOnce(deps, click, request);
}

/**
 * Why this person may not send the request now: not an approver of its app, or the role changed
 * since it was made (the request is then marked stale). Undefined when they may.
 */
async function approvalRefusal(
  deps: ApprovalDeps,
  click: Click,
  request: ApprovalRequest,
): Promise<string | undefined> {
  const { app, scope } = click;
  const refusal = await approverRefusal(app, request, click.userId, scope);
  if (refusal) {
    scope.log.warn({ user: click.userId, request: request.id }, 'approval refused');
    return refusal;
  }
  const found = await changedSinceReview(deps, app, request, scope);
  if (!found.changed) return undefined;
  // A user or role that now has the change after an attempt whose outcome was not known: it
  // did take.
  if (request.status === 'unknown' && alreadyHasChange(found, request)) {
    scope.log.info({ request: request.id }, 'an unknown outcome found applied; nothing sent again');
    await announce(deps, click.client, app, { ...request, status: 'applied' }, scope);
    return 'CometChat already has this change: the earlier attempt did take, so nothing was sent again.';
  }
  await announce(deps, click.client, app, { ...request, status: 'stale' }, scope);
  // For a role itself, what changed is said in full ("There is no role `vip` any more…").
  if (found.why) return found.why;
  return request.subject
    ? 'The user changed in CometChat since this request was made; it is now stale and nothing was sent.'
    : 'The role changed since this request was made; it is now stale and nothing was sent.';
}

/** Sends the approved change, if this click wins the claim, and shows how it went. */
async function sendOnce(deps: ApprovalDeps, click: Click, request: ApprovalRequest) {
  // Two approvers at the same moment, on any replica, or the expiry sweep: one acts.
  const acting = actingClaim(request.id);
  if (!(await deps.store.claim(acting, ACTING_CLAIM_SECONDS))) {
    return tell(deps, click, 'Someone else is acting on this request right now; nothing was sent.');
  }
  // Whoever held the claim before may have closed it meanwhile.
  const current = await deps.store.getApproval(request.id);
  if (current?.status !== request.status) {
    await deps.store.release(acting);
    const status = current?.status ?? 'unknown';
    return tell(deps, click, `This request is already closed (${status}); nothing was sent.`);
  }
  const outcome = await sendApproved(deps, click, request);
  const decided = { decidedBy: click.userId, decidedAt: deps.now() };
  const report = approvalReport(outcome, request, decided, click.scope.ref, deps);
  if (report.release) await deps.store.release(acting);
  if ('tell' in report) return tell(deps, click, report.tell);
  await announce(deps, click.client, click.app, report.announce, click.scope, report.detail);
}

/** Sent with the app's editors checked again, at the moment it goes; audited with both people. */
function sendApproved(
  deps: ApprovalDeps,
  click: Click,
  request: ApprovalRequest,
): Promise<ApplyOutcome> {
  return applyChange(deps, {
    app: click.app,
    meta: approvedMeta(request, click.app.name),
    userId: click.userId,
    teamId: request.teamId,
    scope: click.scope,
    approval: {
      requester: request.requester,
      requestedAt: request.requestedAt,
      approvedAt: deps.now(),
      reason: request.reason,
    },
  }).catch((error: unknown) => ({ kind: 'not-sent' as const, error, sentence: NOT_SENT }));
}

/** The request as the confirmation the editor would have applied: the same id, so one claim. */
export function approvedMeta(request: ApprovalRequest, app: string): ConfirmMetadata {
  return {
    role: request.role,
    ...(request.subject ? { subject: request.subject } : {}),
    id: request.id,
    changes: request.changes.map((c) => ({ ...c, before: c.before ?? undefined })),
    seenAt: request.seenAt,
    ...(request.promotedFrom ? { promotedFrom: { app, ref: request.promotedFrom } } : {}),
  };
}

/** How an attempt is shown, and whether the acting claim is let go for another attempt. */
export type ApprovalReport =
  /** The request's new state, shown in the channel and told to the requester. */
  | { announce: ApprovalRequest; detail: string | undefined; release: boolean }
  /** The request is unchanged: only the person who clicked is told why. */
  | { tell: string; release: boolean };

/**
 * What an approved attempt comes to. The acting claim is kept once the change was applied (or
 * had been before): nothing is left to send; otherwise it is let go, so an approver can retry.
 * Pure.
 */
export function approvalReport(
  outcome: ApplyOutcome,
  request: ApprovalRequest,
  decided: { decidedBy: string; decidedAt: number },
  ref: string,
  deps: SentenceDeps,
): ApprovalReport {
  switch (outcome.kind) {
    case 'applied': {
      // CometChat's own words for a role's keys are external text; a user's change is said from
      // the change itself, which CometChat's answer matched.
      const messages = request.subject
        ? `:white_check_mark: ${subjectChangeDone(request)}`
        : Object.entries(outcome.update.results)
            .map(
              ([key, r]) =>
                `${r.success ? ':white_check_mark:' : ':x:'} ${permissionKeyText(key)}: ${escapeMrkdwn(r.message)}`,
            )
            .join('\n');
      return {
        announce: { ...request, ...decided, status: 'applied', ref },
        detail: messages || undefined,
        release: false,
      };
    }
    case 'failed':
    case 'unknown':
      return {
        announce: { ...request, ...decided, status: outcome.kind, ref },
        detail: withRef(failureSentence(outcome.error, deps), ref, 'mrkdwn'),
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
      // An approved request is checked when the approver clicks; this is for completeness.
      return { announce: { ...request, status: 'stale' }, detail: outcome.sentence, release: true };
  }
}
