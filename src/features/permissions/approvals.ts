import type {
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  appNameIfSeveral,
  type CometChatApp,
  openSealed,
  sealFor,
  valueWriter,
} from '../../apps/apps.ts';
import { messageModal, plain, section } from '../../slack/blocks.ts';
import { destinationOf, type SlackMessage, slackErrorCode } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import { code } from '../../slack/mrkdwn.ts';
import { msLeft, type RequestScope, scopeOf } from '../../slack/request-context.ts';
import type { ApprovalRequest } from '../../store/store.ts';
import { failureSentence } from '../../voice/failure.ts';
import { applyChange, NOT_SENT } from './apply-change.ts';
import { approvalMessage, approvalsList, outcomeNotice } from './approval-view.ts';
import { editRefusal } from './editor-access.ts';
import { type Args, appLabel, type EditorDeps, OPEN_CHECK_DEADLINE_MS } from './editor-context.ts';
import { baselineFrom, type ConfirmMetadata, withBeforeFrom } from './editor-state.ts';
import { MAX_REASON } from './editor-view.ts';

// Two pairs of eyes: when an app has an approval channel, the editor's last step posts a request
// there instead of applying; another person approves (the change is then applied exactly once,
// as by the editor) or rejects it. Every click is checked on the server when it comes.

type ApprovalDeps = EditorDeps;

/** How long the claim that one approver is acting on a request is held. */
const ACTING_CLAIM_SECONDS = 120;

/** The claim that one approver (or the expiry sweep) is acting on a request. */
const actingClaim = (id: string) => `approve:${id}`;

const IdValue = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/) });

type Outcome =
  | { kind: 'requested'; channel: string }
  | { kind: 'refused'; sentence: string }
  | { kind: 'repeated' }
  /** The role changed since the review: nothing requested. */
  | { kind: 'stale' }
  | { kind: 'not-posted'; sentence: string };

/** The editor's last step for an app that needs approval: the request, posted. */
export async function requestApproval(
  deps: ApprovalDeps,
  client: WebClient,
  input: {
    app: CometChatApp & { approval: NonNullable<CometChatApp['approval']> };
    meta: ConfirmMetadata;
    userId: string;
    teamId: string;
    reason: string | undefined;
    scope: RequestScope;
  },
): Promise<Outcome> {
  const { app, meta, scope } = input;
  const refusal = await editRefusal(app.access, input.userId, scope.log, 'confirm');
  if (refusal) return { kind: 'refused', sentence: refusal };
  // Read before the claim below, so that a store that fails here leaves nothing claimed.
  const known = await deps.store.getKnownPermissions(app.name, meta.role);
  // Someone applied another change since this one was reviewed: its "before" is not the role's.
  if (known?.seenAt !== meta.seenAt) return { kind: 'stale' };
  // A double click on "Request approval" posts one request.
  if (!(await deps.store.claim(`request:${app.name}:${meta.id}`, deps.approvalTtlMs / 1000))) {
    return { kind: 'repeated' };
  }
  // What the approver is shown as "before" is the store's, not what came back from Slack: a
  // forged confirmation cannot make a key that changes look unchanged.
  const changes = withBeforeFrom(meta.changes, baselineFrom(known));
  const now = deps.now();
  const request: ApprovalRequest = {
    id: meta.id,
    app: app.name,
    role: meta.role,
    changes: changes.map((c) => ({ ...c, before: c.before ?? null })),
    seenAt: known?.seenAt,
    promotedFrom: meta.promotedFrom?.ref,
    teamId: input.teamId,
    requester: input.userId,
    reason: input.reason,
    requestedAt: now,
    expiresAt: now + deps.approvalTtlMs,
    channel: app.approval.channel,
    status: 'open',
  };
  let ts: string | undefined;
  try {
    const posted = await client.chat.postMessage({
      channel: request.channel,
      ...approvalMessage(request, appLabel(deps, app)),
    });
    ts = posted.ts;
  } catch (error) {
    await deps.store.release(`request:${app.name}:${meta.id}`);
    const cause = slackErrorCode(error);
    scope.log.warn({ cause, channel: request.channel }, 'approval request not posted');
    return {
      kind: 'not-posted',
      sentence: `The request could not be posted in <#${request.channel}> (Slack said ${code(cause)}; is the app in that channel?). Nothing was requested or sent.`,
    };
  }
  await deps.store.putApproval({ ...request, ts });
  scope.log.info(
    { app: app.name, role: meta.role, change: meta.id, channel: request.channel },
    'approval requested',
  );
  return { kind: 'requested', channel: request.channel };
}

/** What announcing and expiring a request need. */
type AnnounceDeps = Pick<ApprovalDeps, 'store' | 'apps' | 'deliver' | 'now'>;

/** Shows the request's new state in the channel and tells the requester; neither may fail it. */
async function announce(
  deps: AnnounceDeps,
  client: WebClient,
  app: CometChatApp,
  request: ApprovalRequest,
  scope: Pick<RequestScope, 'log'>,
  detail?: string,
): Promise<void> {
  await deps.store.putApproval(request);
  if (request.ts) {
    await client.chat
      .update({
        channel: request.channel,
        ts: request.ts,
        ...approvalMessage(request, { ...appLabel(deps, app), detail }),
      })
      .catch((error: unknown) => {
        scope.log.warn({ cause: slackErrorCode(error) }, 'approval message not updated');
      });
  }
  if (request.status !== 'open') {
    await deps.deliver(
      { userId: request.requester },
      outcomeNotice(request, appNameIfSeveral(deps.apps, app)),
      scope.log,
    );
  }
}

/**
 * Who may act on a request now: an editor of the app who did not ask for it and, when APPROVERS
 * is set, is one of them too; why not, otherwise. Both checks are asked at once.
 */
async function approverRefusal(
  app: CometChatApp,
  request: ApprovalRequest | undefined,
  userId: string,
  scope: Pick<RequestScope, 'log'>,
  limit: { withinMs?: number } = {},
): Promise<string | undefined> {
  if (!app.approval)
    return 'This app no longer asks for approvals; apply the change from the editor.';
  if (userId === request?.requester) {
    return 'You asked for this change: another person must approve or reject it.';
  }
  const refusals = await Promise.all(
    [app.access, app.approval.approvers].map((access) =>
      access?.editRefusal(userId, scope.log, limit),
    ),
  );
  return refusals
    .find((refusal) => refusal !== undefined)
    ?.replace('may change permissions', 'may approve permission changes');
}

/**
 * The request a button names, if it can still be acted on: not found, closed, expired (then
 * marked so) each get the sentence to say instead.
 */
async function openRequest(
  deps: ApprovalDeps,
  client: WebClient,
  app: CometChatApp,
  id: string,
  scope: RequestScope,
  allowFailed: boolean,
): Promise<{ request: ApprovalRequest } | { sentence: string }> {
  const request = await deps.store.getApproval(id);
  if (!request || request.app !== app.name) {
    return { sentence: 'That request is out of date or unknown; nothing was sent.' };
  }
  // A failed request, or one whose outcome is unknown, stays retryable (by an approver) until it
  // expires.
  const retryable = request.status === 'failed' || request.status === 'unknown';
  if (request.status !== 'open' && !(retryable && allowFailed)) {
    return { sentence: `This request is already closed (${request.status}); nothing was sent.` };
  }
  if (deps.now() > request.expiresAt) {
    await announce(deps, client, app, { ...request, status: 'expired' }, scope);
    return { sentence: 'This request has expired; nothing was sent. Ask again from the editor.' };
  }
  return { request };
}

type ButtonArgs = Args<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>;

/** Publishes the person's Home tab again, when there is one; a failure only logs. */
async function refreshHome(deps: ApprovalDeps, userId: string, log: Logger) {
  await deps.refreshHome?.(userId, log).catch((error: unknown) => {
    log.warn({ err: error }, 'home: not refreshed');
  });
}

/** Says something to the person who clicked, only to them. */
function tell(deps: ApprovalDeps, body: unknown, text: string, scope: RequestScope) {
  const message: SlackMessage = {
    text,
    blocks: [section(text)],
    response_type: 'ephemeral',
    replace_original: false,
  };
  return deps.deliver(destinationOf(body), message, scope.log);
}

/** "Approve" (and "Retry" after a failure): the change applied once, by whoever wins. */
export function createApproveButton(deps: ApprovalDeps) {
  const approve = async ({ ack, body, action, client, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, IdValue, action.value);
    const found = await openRequest(deps, client, app, value.id, scope, true);
    if ('sentence' in found) return void (await tell(deps, body, found.sentence, scope));
    const { request } = found;
    const refusal = await approverRefusal(app, request, body.user.id, scope);
    if (refusal) {
      scope.log.warn({ user: body.user.id, request: request.id }, 'approval refused');
      return void (await tell(deps, body, refusal, scope));
    }
    const known = await deps.store.getKnownPermissions(app.name, request.role);
    if (known?.seenAt !== request.seenAt) {
      await announce(deps, client, app, { ...request, status: 'stale' }, scope);
      return void (await tell(
        deps,
        body,
        'The role changed since this request was made; it is now stale and nothing was sent.',
        scope,
      ));
    }
    // Two approvers at the same moment, on any replica, or the expiry sweep: one acts.
    const acting = actingClaim(request.id);
    if (!(await deps.store.claim(acting, ACTING_CLAIM_SECONDS))) {
      return void (await tell(
        deps,
        body,
        'Someone else is acting on this request right now; nothing was sent.',
        scope,
      ));
    }
    // Whoever held the claim before may have closed it meanwhile.
    const current = await deps.store.getApproval(request.id);
    if (current?.status !== request.status) {
      await deps.store.release(acting);
      return void (await tell(
        deps,
        body,
        `This request is already closed (${current?.status ?? 'unknown'}); nothing was sent.`,
        scope,
      ));
    }
    // Sent with the app's editors checked again, at the moment it goes.
    const outcome = await applyChange(deps, {
      app,
      meta: {
        role: request.role,
        id: request.id,
        changes: request.changes.map((c) => ({ ...c, before: c.before ?? undefined })),
        seenAt: request.seenAt,
        ...(request.promotedFrom
          ? { promotedFrom: { app: app.name, ref: request.promotedFrom } }
          : {}),
      },
      userId: body.user.id,
      teamId: request.teamId,
      scope,
      approval: {
        requester: request.requester,
        requestedAt: request.requestedAt,
        approvedAt: deps.now(),
        reason: request.reason,
      },
    }).catch((error: unknown) => ({ kind: 'not-sent' as const, error, sentence: NOT_SENT }));
    const decided = { decidedBy: body.user.id, decidedAt: deps.now() };
    switch (outcome.kind) {
      case 'applied': {
        const messages = Object.entries(outcome.update.results)
          .map(
            ([key, r]) => `${r.success ? ':white_check_mark:' : ':x:'} ${code(key)}: ${r.message}`,
          )
          .join('\n');
        await announce(
          deps,
          client,
          app,
          { ...request, ...decided, status: 'applied', ref: scope.ref },
          scope,
          messages || undefined,
        );
        return;
      }
      case 'failed':
      case 'unknown':
        await deps.store.release(acting);
        await announce(
          deps,
          client,
          app,
          { ...request, ...decided, status: outcome.kind, ref: scope.ref },
          scope,
          `${failureSentence(outcome.error, deps.budgetSeconds)} (ref ${code(scope.ref)})`,
        );
        return;
      case 'repeated':
        return void (await tell(
          deps,
          body,
          'This change was already applied once; it was not sent again.',
          scope,
        ));
      case 'refused':
        await deps.store.release(acting);
        return void (await tell(deps, body, outcome.sentence, scope));
      case 'not-sent':
        await deps.store.release(acting);
        return void (await tell(deps, body, `${outcome.sentence} (ref ${scope.ref})`, scope));
    }
  };
  // Clicked on the Home tab: the tab shows the request's new state at once.
  return async (args: ButtonArgs) => {
    await approve(args);
    if (args.body.view?.type === 'home') {
      await refreshHome(deps, args.body.user.id, scopeOf(args.context).log);
    }
  };
}

const REJECT_BLOCK = 'reject_reason';
const REJECT_INPUT = 'reason';

/** "Reject": asks for the reason in a modal (after the same checks as Approve). */
export function createRejectButton(deps: ApprovalDeps) {
  return async ({ ack, body, action, client, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, IdValue, action.value);
    const found = await openRequest(deps, client, app, value.id, scope, false);
    if ('sentence' in found) return void (await tell(deps, body, found.sentence, scope));
    // The modal needs the trigger within three seconds of the click.
    const refusal = await approverRefusal(app, found.request, body.user.id, scope, {
      withinMs: msLeft(scope, OPEN_CHECK_DEADLINE_MS, deps.now),
    });
    if (refusal) return void (await tell(deps, body, refusal, scope));
    await deps.views.open({
      trigger_id: body.trigger_id,
      view: {
        type: 'modal',
        callback_id: CALLBACKS.rejectReason,
        title: plain('Reject the change', 24),
        submit: plain('Reject', 24),
        close: plain('Cancel', 24),
        private_metadata: sealFor(app, { id: found.request.id }),
        blocks: [
          section(
            `Reject the change to ${code(found.request.role)} asked by <@${found.request.requester}>?`,
          ),
          {
            type: 'input',
            block_id: REJECT_BLOCK,
            label: plain('Why (the requester is told)'),
            element: {
              type: 'plain_text_input',
              action_id: REJECT_INPUT,
              multiline: true,
              max_length: MAX_REASON,
            },
          },
        ],
      },
    });
  };
}

/** The reason submitted: checked again, then the request is closed as rejected. */
export function createRejectSubmission(deps: ApprovalDeps) {
  return async ({
    ack,
    view,
    body,
    client,
    context,
  }: Args<SlackViewMiddlewareArgs<ViewSubmitAction>>) => {
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, IdValue, view.private_metadata);
    const reason = view.state.values[REJECT_BLOCK]?.[REJECT_INPUT]?.value?.trim() ?? '';
    if (reason === '') {
      await ack({
        response_action: 'errors',
        errors: { [REJECT_BLOCK]: 'Say why, for the requester.' },
      });
      return;
    }
    const found = await openRequest(deps, client, app, value.id, scope, false);
    const refusal =
      'sentence' in found
        ? found.sentence
        : await approverRefusal(app, found.request, body.user.id, scope);
    if (refusal || 'sentence' in found) {
      await ack({
        response_action: 'update',
        view: messageModal('Reject the change', refusal ?? 'Nothing to reject.'),
      });
      return;
    }
    await ack();
    await announce(
      deps,
      client,
      app,
      {
        ...found.request,
        status: 'rejected',
        decidedBy: body.user.id,
        decidedAt: deps.now(),
        rejectReason: reason,
      },
      scope,
    );
    scope.log.info({ request: found.request.id, app: app.name }, 'approval request rejected');
    await refreshHome(deps, body.user.id, scope.log);
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
      value: valueWriter(deps.apps, app)({ id: request.id }),
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
