import type { AllMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import { appNameIfSeveral, type CometChatApp, openSealed } from '../../apps/apps.ts';
import { section } from '../../slack/blocks.ts';
import { destinationOf, type SlackMessage, slackErrorCode } from '../../slack/deliver.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import type { ApprovalRequest } from '../../store/store.ts';
import { approvalMessage, askAgain, outcomeNotice } from './approval-view.ts';
import { appLabel, type EditorDeps } from './editor-context.ts';

// What the approve, retry and reject flows share: the click they answer, the request it names
// (checked on the server when it comes), who may act on it, and how its new state is shown.

export type ApprovalDeps = EditorDeps;

/** How long the claim that one approver is acting on a request is held. */
export const ACTING_CLAIM_SECONDS = 120;

/** The claim that one approver (or the expiry sweep) is acting on a request. */
export const actingClaim = (id: string) => `approve:${id}`;

export const IdValue = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/) });

/** A click on a request's button, or a submission about it: who, on which app, where to answer. */
export interface Click {
  app: CometChatApp;
  userId: string;
  /** What Slack sent, to answer the person where they clicked. */
  body: unknown;
  client: WebClient;
  scope: RequestScope;
}

/**
 * The click, and the id of the request its sealed value names: a value edited to name another
 * app is refused like a damaged one.
 */
export function clickOn(
  deps: Pick<ApprovalDeps, 'apps'>,
  args: Pick<AllMiddlewareArgs, 'client' | 'context'> & { body: { user: { id: string } } },
  sealed: string | undefined,
): { click: Click; id: string } {
  const { app, value } = openSealed(deps.apps, IdValue, sealed);
  const { body, client, context } = args;
  return {
    id: value.id,
    click: { app, userId: body.user.id, body, client, scope: scopeOf(context) },
  };
}

/** What announcing and expiring a request need. */
export type AnnounceDeps = Pick<ApprovalDeps, 'store' | 'apps' | 'deliver' | 'now'>;

/** Shows the request's new state in the channel and tells the requester; neither may fail it. */
export async function announce(
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
export async function approverRefusal(
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
      access?.editRefusal(userId, scope.log, { ...limit, action: 'approve' }),
    ),
  );
  return refusals.find((refusal) => refusal !== undefined);
}

/**
 * The request a button names, if it can still be acted on; else the sentence to say instead
 * (an expired one is marked so). `allowFailed` lets a failed request through, for Retry.
 */
export async function openRequest(
  deps: ApprovalDeps,
  click: Click,
  id: string,
  allowFailed: boolean,
): Promise<{ request: ApprovalRequest } | { sentence: string }> {
  const request = await deps.store.getApproval(id);
  const problem = whyNotActionable(request, click.app.name, deps.now(), allowFailed);
  if (!problem && request) return { request };
  if (problem?.expire && request) {
    await announce(deps, click.client, click.app, { ...request, status: 'expired' }, click.scope);
  }
  return { sentence: problem?.sentence ?? UNKNOWN_REQUEST };
}

const UNKNOWN_REQUEST = 'That request is out of date or unknown; nothing was sent.';

/**
 * Why a request cannot be acted on at `now`: unknown (or another app's), closed, or expired
 * (`expire`: to be marked so); undefined when it can. Pure.
 */
export function whyNotActionable(
  request: ApprovalRequest | undefined,
  app: string,
  now: number,
  allowFailed: boolean,
): { sentence: string; expire?: true } | undefined {
  if (!request || request.app !== app) return { sentence: UNKNOWN_REQUEST };
  // A failed request, or one whose outcome is unknown, stays retryable (by an approver) until it
  // expires.
  const retryable = request.status === 'failed' || request.status === 'unknown';
  if (request.status !== 'open' && !(retryable && allowFailed)) {
    return { sentence: `This request is already closed (${request.status}); nothing was sent.` };
  }
  if (now > request.expiresAt) {
    return {
      sentence: `This request has expired; nothing was sent. ${askAgain(request)}`,
      expire: true,
    };
  }
  return undefined;
}

/** Publishes the person's Home tab again, when there is one; a failure only logs. */
export async function refreshHome(deps: ApprovalDeps, userId: string, log: Logger) {
  await deps.refreshHome?.(userId, log).catch((error: unknown) => {
    log.warn({ err: error }, 'home: not refreshed');
  });
}

/** Says something to the person who clicked, only to them. */
export async function tell(deps: ApprovalDeps, click: Click, text: string): Promise<void> {
  const message: SlackMessage = {
    text,
    blocks: [section(text)],
    response_type: 'ephemeral',
    replace_original: false,
  };
  await deps.deliver(destinationOf(click.body), message, click.scope.log);
}
