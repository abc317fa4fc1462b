import type { WebClient } from '@slack/web-api';
import { attemptOf, editRefusal } from '../access/edit-refusal.ts';
import type { CometChatApp } from '../apps/apps.ts';
import { countHolders } from '../apps/holders.ts';
import { counted } from '../replies/sentences.ts';
import { currentRequest } from '../request-context.ts';
import { slackErrorCode } from '../slack/deliver.ts';
import { code } from '../slack/mrkdwn.ts';
import type { ApprovalRequest, KnownPermissions, Store } from '../store/store.ts';
import { approvalMessage } from './approval-view.ts';
import { type Change, setsPermissions, subjectOf } from './change.ts';
import type { AppLabel } from './deps.ts';
import { kindOf, nameOf } from './kinds/index.ts';
import { baselineFrom, withBeforeFrom } from './kinds/permissions.ts';
import { shippedCatalogueOf } from './kinds/scope-permissions.ts';

// "Request approval": for an app with an approval channel, the change is posted there for
// another person to approve (decide.ts takes it from there) instead of being applied.

/** An app whose changes need approval. */
export type ApprovalApp = CometChatApp & { approval: NonNullable<CometChatApp['approval']> };

export type RequestOutcome =
  | { kind: 'requested'; channel: string }
  | { kind: 'refused'; sentence: string }
  | { kind: 'repeated' }
  /** The target changed since the review: nothing requested. `why`: for a role itself, what. */
  | { kind: 'stale'; why?: string | undefined }
  | { kind: 'not-posted'; sentence: string };

export interface RequestDeps {
  store: Pick<Store, 'claim' | 'release' | 'putApproval' | 'getKnownPermissions'>;
}

/** A change to post for approval: by whom, and why. */
export interface Requesting {
  app: ApprovalApp;
  change: Change;
  userId: string;
  teamId: string;
  reason: string | undefined;
  label: AppLabel;
  /** Asked by a Workflow Builder step: its run, completed when the request is decided. */
  workflowStep?: ApprovalRequest['workflowStep'];
}

/** What the modal says once the request is posted, or why it was not. Pure. */
export function requestedNotice(
  outcome: RequestOutcome,
  change: Change,
  label: AppLabel,
): { title: string; sentence: string } {
  const count = change.changes.length;
  const what = nameOf(change, label.appName);
  switch (outcome.kind) {
    case 'requested':
      return {
        title: 'Approval requested',
        sentence: `Your request for ${counted(count, 'change')} to ${what} is in <#${outcome.channel}>. Nothing is sent until another person approves it; you will get a direct message when it is approved, rejected or expires.`,
      };
    case 'repeated':
      return { title: 'Already requested', sentence: 'This change was already requested once.' };
    case 'stale':
      return {
        title: 'Not requested',
        sentence:
          outcome.why ??
          (setsPermissions(change)
            ? `${what} changed since you reviewed this (someone applied another change), so nothing was requested. Open the editor again to review on its new values.`
            : `${what} changed in CometChat since you reviewed this, so nothing was requested. Open the user's card again to see what CometChat has now.`),
      };
    case 'refused':
      return { title: 'Not allowed', sentence: outcome.sentence };
    case 'not-posted':
      return { title: 'Not requested', sentence: outcome.sentence };
  }
}

/** The claim that one review posts one request. */
const requestClaim = (app: string, id: string) => `request:${app}:${id}`;

/** The request, posted: authorised now, checked as reviewed, once however often it is clicked. */
export async function requestApproval(
  deps: RequestDeps,
  client: WebClient,
  input: Requesting,
): Promise<RequestOutcome> {
  const { app, change } = input;
  // Requested when the person's submission reached the app.
  const { log, receivedAt } = currentRequest();
  const refusal = await editRefusal(app.access, input.userId, log, attemptOf(change, 'confirm'));
  if (refusal) return { kind: 'refused', sentence: refusal };
  // Read before the claim below, so that a store that fails here leaves nothing claimed. A
  // deletion's approver is told who holds the role, as its requester's review was.
  const deletion = change.kind === 'role' && change.action === 'delete';
  const [{ changed, known, why }, holders] = await Promise.all([
    kindOf(change).sinceReview({ store: deps.store, app }),
    deletion ? countHolders(app, change.role, { withDeactivated: true }) : undefined,
  ]);
  if (changed) return { kind: 'stale', why };
  // A double click on "Request approval" posts one request.
  const claim = requestClaim(app.name, change.id);
  if (!(await deps.store.claim(claim, app.approval.ttlMs / 1000))) return { kind: 'repeated' };
  const request = approvalRecord({ ...input, known, holders, now: receivedAt });
  const posted = await postRequest(client, request, input.label);
  if (posted.kind === 'not-posted') {
    await deps.store.release(claim);
    return posted;
  }
  await deps.store.putApproval({ ...request, ts: posted.ts });
  log.info(
    { app: app.name, role: change.role, change: change.id, channel: request.channel },
    'approval requested',
  );
  return { kind: 'requested', channel: request.channel };
}

/** The request as it is stored and posted, open until `ttlMs` from `now`. Pure. */
export function approvalRecord(input: {
  app: Pick<ApprovalApp, 'name' | 'approval'>;
  change: Change;
  known: KnownPermissions | undefined;
  /** For a role's deletion: how many users hold the role (undefined: CometChat could not say). */
  holders?: number | undefined;
  userId: string;
  teamId: string;
  reason: string | undefined;
  now: number;
  workflowStep?: ApprovalRequest['workflowStep'];
}): ApprovalRequest {
  const { app, change, known, now } = input;
  const subject = subjectOf(change);
  // What the approver is shown as "before" is the store's, not what came back from Slack: a
  // forged review cannot make a key that changes look unchanged. A user's or a role's "before"
  // was just read from CometChat (sinceReview): it is the live value.
  const changes = setsPermissions(change)
    ? withBeforeFrom(change.changes, baselineFrom(known, shippedCatalogueOf(change)))
    : change.changes;
  return {
    id: change.id,
    app: app.name,
    role: change.role,
    ...(subject ? { subject } : {}),
    changes: changes.map((c) => ({ ...c, before: c.before ?? null })),
    seenAt: known?.seenAt,
    promotedFrom: change.promotedFrom?.ref,
    ...(input.holders === undefined ? {} : { holders: input.holders }),
    teamId: input.teamId,
    requester: input.userId,
    reason: input.reason,
    requestedAt: now,
    expiresAt: now + app.approval.ttlMs,
    channel: app.approval.channel,
    status: 'open',
    ...(change.reverts ? { reverts: change.reverts } : {}),
    ...(input.workflowStep ? { workflowStep: input.workflowStep } : {}),
  };
}

/** Posts the request in its channel: its message's `ts`, or the sentence saying why not. */
async function postRequest(
  client: WebClient,
  request: ApprovalRequest,
  label: AppLabel,
): Promise<{ kind: 'posted'; ts: string | undefined } | { kind: 'not-posted'; sentence: string }> {
  try {
    const posted = await client.chat.postMessage({
      channel: request.channel,
      ...approvalMessage(request, label),
    });
    return { kind: 'posted', ts: posted.ts };
  } catch (error) {
    const cause = slackErrorCode(error);
    currentRequest().log.warn({ cause, channel: request.channel }, 'approval request not posted');
    return {
      kind: 'not-posted',
      sentence: `The request could not be posted in <#${request.channel}> (Slack said ${code(cause)}; is the app in that channel?). Nothing was requested or sent.`,
    };
  }
}
