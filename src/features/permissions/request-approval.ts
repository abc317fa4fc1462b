import type { WebClient } from '@slack/web-api';
import { editRefusal } from '../../access/edit-refusal.ts';
import type { CometChatApp } from '../../apps/apps.ts';
import { countHolders } from '../../apps/holders.ts';
import { slackErrorCode } from '../../slack/deliver.ts';
import { showInModal } from '../../slack/modal-outcome.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type RequestScope, tracedBy } from '../../slack/request-context.ts';
import type { ApprovalRequest, KnownPermissions } from '../../store/store.ts';
import { counted } from '../../voice/sentences.ts';
import { approvalMessage } from './approval-view.ts';
import { changedSinceReview, roleSubject, subjectIn } from './change-subject.ts';
import { appLabel, type Confirmed, type EditorDeps, failInEditor } from './editor-context.ts';
import { baselineFrom, type ConfirmMetadata, withBeforeFrom } from './editor-state.ts';
import { type AppLabel, messageView } from './editor-view.ts';

// The editor's last step for an app with an approval channel: instead of applying, the change
// is posted there as a request for another person to approve (approvals.ts takes it from there).

/** An app whose changes need approval. */
export type ApprovalApp = CometChatApp & { approval: NonNullable<CometChatApp['approval']> };

export type RequestOutcome =
  | { kind: 'requested'; channel: string }
  | { kind: 'refused'; sentence: string }
  | { kind: 'repeated' }
  /** The role changed since the review: nothing requested. */
  /** `why`: for a change to a role itself, what changed. */
  | { kind: 'stale'; why?: string | undefined }
  | { kind: 'not-posted'; sentence: string };

/** "Request approval" submitted: the request posted, and the modal says where, or why not. */
export async function requestApprovalFlow(
  deps: EditorDeps,
  client: WebClient,
  confirmed: Confirmed & { app: ApprovalApp },
  reason: string | undefined,
): Promise<void> {
  const { target, scope } = confirmed;
  let requested: RequestOutcome;
  try {
    requested = await requestApproval(deps, client, { ...confirmed, reason });
  } catch (error) {
    return failInEditor({ viewId: target.viewId }, error, scope, deps);
  }
  const label = appLabel(deps, confirmed.app);
  const { title, sentence } = requestedNotice(requested, confirmed.meta, label);
  await showInModal(deps, target, messageView(title, sentence), { text: sentence }, scope.log);
}

/** What the modal says once the request is posted, or why it was not. Pure. */
export function requestedNotice(
  outcome: RequestOutcome,
  meta: Pick<ConfirmMetadata, 'role' | 'changes' | 'subject'>,
  label: AppLabel,
): { title: string; sentence: string } {
  const count = meta.changes.length;
  const what = subjectIn(meta, label);
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
          (meta.subject
            ? `${what} changed in CometChat since you reviewed this, so nothing was requested. Open the user's card again to see what CometChat has now.`
            : `${what} changed since you reviewed this (someone applied another change), so nothing was requested. Open the editor again to review on its new values.`),
      };
    case 'refused':
      return { title: 'Not allowed', sentence: outcome.sentence };
    case 'not-posted':
      return { title: 'Not requested', sentence: outcome.sentence };
  }
}

/** The claim that one confirmation posts one request. */
const requestClaim = (app: string, id: string) => `request:${app}:${id}`;

/** The request, posted: authorised now, on the store's values, once however often it is clicked. */
export async function requestApproval(
  deps: Pick<EditorDeps, 'store' | 'apps' | 'now' | 'approvalTtlMs'>,
  client: WebClient,
  input: Omit<Confirmed, 'target' | 'app'> & { app: ApprovalApp; reason: string | undefined },
): Promise<RequestOutcome> {
  const { app, meta, scope } = input;
  const refusal = await editRefusal(app.access, input.userId, scope.log, 'confirm');
  if (refusal) return { kind: 'refused', sentence: refusal };
  // Read before the claim below, so that a store that fails here leaves nothing claimed. Someone
  // changed the role (or CometChat the user) since the review: its "before" is not so any more.
  // A deletion's approver is told who holds the role, as its requester's review was.
  const [{ changed, known, why }, holders] = await Promise.all([
    changedSinceReview(deps, app, meta, scope),
    roleSubject(meta)?.action === 'delete'
      ? countHolders(app, meta.role, { ...tracedBy(scope), withDeactivated: true })
      : undefined,
  ]);
  if (changed) return { kind: 'stale', why };
  // A double click on "Request approval" posts one request.
  const claim = requestClaim(app.name, meta.id);
  if (!(await deps.store.claim(claim, deps.approvalTtlMs / 1000))) return { kind: 'repeated' };
  const request = approvalRecord({
    ...input,
    known,
    holders,
    now: deps.now(),
    ttlMs: deps.approvalTtlMs,
  });
  const posted = await postRequest(client, request, appLabel(deps, app), scope);
  if (posted.kind === 'not-posted') {
    await deps.store.release(claim);
    return posted;
  }
  await deps.store.putApproval({ ...request, ts: posted.ts });
  scope.log.info(
    { app: app.name, role: meta.role, change: meta.id, channel: request.channel },
    'approval requested',
  );
  return { kind: 'requested', channel: request.channel };
}

/** The request as it is stored and posted, open until `ttlMs` from `now`. Pure. */
export function approvalRecord(input: {
  app: Pick<ApprovalApp, 'name' | 'approval'>;
  meta: ConfirmMetadata;
  known: KnownPermissions | undefined;
  /** For a role's deletion: how many users hold the role (undefined: CometChat could not say). */
  holders?: number | undefined;
  userId: string;
  teamId: string;
  reason: string | undefined;
  now: number;
  ttlMs: number;
}): ApprovalRequest {
  const { app, meta, known, now } = input;
  // What the approver is shown as "before" is the store's, not what came back from Slack: a
  // forged confirmation cannot make a key that changes look unchanged.
  // A user's "before" was just read from CometChat (changedSinceReview): it is the live value.
  const changes = meta.subject ? meta.changes : withBeforeFrom(meta.changes, baselineFrom(known));
  return {
    id: meta.id,
    app: app.name,
    role: meta.role,
    ...(meta.subject ? { subject: meta.subject } : {}),
    changes: changes.map((c) => ({ ...c, before: c.before ?? null })),
    seenAt: known?.seenAt,
    promotedFrom: meta.promotedFrom?.ref,
    ...(input.holders === undefined ? {} : { holders: input.holders }),
    teamId: input.teamId,
    requester: input.userId,
    reason: input.reason,
    requestedAt: now,
    expiresAt: now + input.ttlMs,
    channel: app.approval.channel,
    status: 'open',
  };
}

/** Posts the request in its channel: its message's `ts`, or the sentence saying why not. */
async function postRequest(
  client: WebClient,
  request: ApprovalRequest,
  label: AppLabel,
  scope: RequestScope,
): Promise<{ kind: 'posted'; ts: string | undefined } | { kind: 'not-posted'; sentence: string }> {
  try {
    const posted = await client.chat.postMessage({
      channel: request.channel,
      ...approvalMessage(request, label),
    });
    return { kind: 'posted', ts: posted.ts };
  } catch (error) {
    const cause = slackErrorCode(error);
    scope.log.warn({ cause, channel: request.channel }, 'approval request not posted');
    return {
      kind: 'not-posted',
      sentence: `The request could not be posted in <#${request.channel}> (Slack said ${code(cause)}; is the app in that channel?). Nothing was requested or sent.`,
    };
  }
}
