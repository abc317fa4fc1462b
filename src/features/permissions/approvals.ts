import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import {
  appNameIfSeveral,
  sealFor,
  tryOpenSealed,
  UNSEALED_REFUSAL,
  valueWriter,
} from '../../apps/apps.ts';
import { messageModal } from '../../slack/blocks.ts';
import { destinationOf } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SubmitArgs } from '../../slack/listener-args.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import type { ApprovalRequest } from '../../store/store.ts';
import {
  ACTING_CLAIM_SECONDS,
  type AnnounceDeps,
  type ApprovalDeps,
  actingClaim,
  announce,
  approverRefusal,
  clickOn,
  IdValue,
  openRequest,
  refreshHome,
  tell,
} from './approval-steps.ts';
import { approvalsList, REJECT_BLOCK, rejectReasonView } from './approval-view.ts';
import { approveFlow, retryFlow } from './approve-flow.ts';
import { OPEN_CHECK_DEADLINE_MS } from './editor-context.ts';
import { rejectable, rejectFlow, rejectReasonOf } from './reject-flow.ts';

// Two pairs of eyes: when an app has an approval channel, the editor's last step posts a request
// there instead of applying (request-approval.ts); another person approves (the change is then
// applied exactly once, as by the editor: approve-flow.ts) or rejects it (reject-flow.ts). Every
// click is checked on the server when it comes. These are the listeners, each picking its flow.

/** "Approve" on an open request, "Retry" on one whose sending failed: the same button. */
export function createApproveButton(deps: ApprovalDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const { click, id } = clickOn(deps, args, args.action.value);
    const found = await openRequest(deps, click, id, true);
    if ('sentence' in found) await tell(deps, click, found.sentence);
    else if (found.request.status === 'open') await approveFlow(deps, click, found.request);
    else await retryFlow(deps, click, found.request);
    // Clicked on the Home tab: the tab shows the request's new state at once.
    if (args.body.view?.type === 'home') await refreshHome(deps, click.userId, click.scope.log);
  };
}

/** "Reject": asks for the reason in a modal (after the same checks as Approve). */
export function createRejectButton(deps: ApprovalDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const { click, id } = clickOn(deps, args, args.action.value);
    // The modal needs the trigger within three seconds of the click.
    const found = await rejectable(deps, click, id, OPEN_CHECK_DEADLINE_MS);
    if ('sentence' in found) return tell(deps, click, found.sentence);
    const metadata = sealFor(click.app, { id: found.request.id });
    await deps.views.open({
      trigger_id: args.body.trigger_id,
      view: rejectReasonView(found.request, metadata),
    });
  };
}

/** The reason submitted: checked again, then the request is closed as rejected. */
export function createRejectSubmission(deps: ApprovalDeps) {
  return async (args: SubmitArgs) => {
    const { ack, view } = args;
    // Answered in the modal, like the other refusals of a reason: the metadata names the request.
    if (!tryOpenSealed(deps.apps, IdValue, view.private_metadata)) {
      await ack({
        response_action: 'update',
        view: messageModal('Reject the change', UNSEALED_REFUSAL),
      });
      return;
    }
    const { click, id } = clickOn(deps, args, view.private_metadata);
    const reason = rejectReasonOf(view.state.values);
    if (reason === undefined) {
      await ack({
        response_action: 'errors',
        errors: { [REJECT_BLOCK]: 'Say why, for the requester.' },
      });
      return;
    }
    const found = await rejectable(deps, click, id);
    if ('sentence' in found) {
      await ack({
        response_action: 'update',
        view: messageModal('Reject the change', found.sentence),
      });
      return;
    }
    await ack();
    await rejectFlow(deps, click, found.request, reason);
  };
}

/** An open request as a list shows it: with its app's name (when several) and button value. */
export interface ListedRequest {
  request: ApprovalRequest;
  appName?: string | undefined;
  value: string;
}

/**
 * The open requests `userId` may act on (an approver of the app who did not ask), oldest first,
 * and their own open requests. Each app's approver check is asked once.
 */
export async function requestsFor(
  deps: Pick<ApprovalDeps, 'store' | 'apps' | 'now'>,
  userId: string,
  scope: Pick<RequestScope, 'log'>,
  limit: { withinMs?: number } = {},
): Promise<{ waiting: ListedRequest[]; own: ListedRequest[] }> {
  const open = await deps.store.listOpenApprovals();
  const now = deps.now();
  const mayApprove = new Map<string, Promise<boolean>>();
  const waiting: ListedRequest[] = [];
  const own: ListedRequest[] = [];
  for (const request of open) {
    const app = deps.apps.byName(request.app);
    if (!app?.approval || now > request.expiresAt) continue;
    const listed = {
      request,
      appName: appNameIfSeveral(deps.apps, app),
      value: valueWriter(app)({ id: request.id }),
    };
    if (request.requester === userId) {
      own.push(listed);
      continue;
    }
    const allowed =
      mayApprove.get(app.name) ??
      approverRefusal(app, undefined, userId, scope, limit).then(
        (refusal) => refusal === undefined,
      );
    mayApprove.set(app.name, allowed);
    if (await allowed) waiting.push(listed);
  }
  return { waiting, own };
}

/** `/cometchat approvals`: the open requests the caller may act on, oldest first. */
export function createApprovalsCommand(deps: ApprovalDeps) {
  return async (body: unknown, userId: string, scope: RequestScope) => {
    const { waiting } = await requestsFor(deps, userId, scope);
    await deps.deliver(destinationOf(body), approvalsList(waiting), scope.log);
  };
}

/**
 * Closes the open requests past their expiry, so the channel shows it on time and the requester
 * is told: once across replicas, and never under an approver acting on it. Returns how many.
 */
export async function expireApprovals(
  deps: AnnounceDeps,
  client: WebClient,
  log: Logger,
): Promise<number> {
  let expired = 0;
  for (const request of await deps.store.listOpenApprovals()) {
    if (deps.now() <= request.expiresAt) continue;
    const app = deps.apps.byName(request.app);
    if (!app || !(await deps.store.claim(actingClaim(request.id), ACTING_CLAIM_SECONDS))) continue;
    const current = await deps.store.getApproval(request.id);
    if (current?.status !== 'open') continue;
    await announce(deps, client, app, { ...current, status: 'expired' }, { log });
    log.info({ request: request.id, app: app.name }, 'approval request expired');
    expired += 1;
  }
  return expired;
}

export function registerApprovals(bolt: App, deps: ApprovalDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.approveChange, createApproveButton(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.rejectChange, createRejectButton(deps));
  bolt.view<ViewSubmitAction>(CALLBACKS.rejectReason, createRejectSubmission(deps));
}
