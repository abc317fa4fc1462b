import type { ViewSubmitAction } from '@slack/bolt';
import { msLeft } from '../../slack/request-context.ts';
import type { ApprovalRequest } from '../../store/store.ts';
import {
  type ApprovalDeps,
  announce,
  approverRefusal,
  type Click,
  openRequest,
  refreshHome,
} from './approval-steps.ts';
import { REJECT_BLOCK, REJECT_INPUT } from './approval-view.ts';

// Rejecting a request: "Reject" asks why (approval-view.ts's modal) after the same checks as
// Approve, and the reason submitted is checked again before the request is closed as rejected.

/**
 * The request this person may reject now, or the sentence saying why not. With `deadlineMs`,
 * the approver check ends that long after the request arrived (a modal's trigger expires).
 */
export async function rejectable(
  deps: ApprovalDeps,
  click: Click,
  id: string,
  deadlineMs?: number,
): Promise<{ request: ApprovalRequest } | { sentence: string }> {
  const found = await openRequest(deps, click, id, false);
  if ('sentence' in found) return found;
  const limit =
    deadlineMs === undefined ? {} : { withinMs: msLeft(click.scope, deadlineMs, deps.now) };
  const refusal = await approverRefusal(click.app, found.request, click.userId, click.scope, limit);
  return refusal ? { sentence: refusal } : found;
}

/** The reason a rejection gives; undefined when it gives none (blank is none). */
export function rejectReasonOf(
  values: ViewSubmitAction['view']['state']['values'],
): string | undefined {
  return values[REJECT_BLOCK]?.[REJECT_INPUT]?.value?.trim() || undefined;
}

/** Closes the request as rejected by this person, for `reason`: the channel and requester see it. */
export async function rejectFlow(
  deps: ApprovalDeps,
  click: Click,
  request: ApprovalRequest,
  reason: string,
): Promise<void> {
  const { app, scope } = click;
  await announce(
    deps,
    click.client,
    app,
    {
      ...request,
      status: 'rejected',
      decidedBy: click.userId,
      decidedAt: deps.now(),
      rejectReason: reason,
    },
    scope,
  );
  scope.log.info({ request: request.id, app: app.name }, 'approval request rejected');
  await refreshHome(deps, click.userId, scope.log);
}
