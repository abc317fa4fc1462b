import { editRefusal } from '../../access/edit-refusal.ts';
import type { CometChatApp } from '../../apps/apps.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import { tracedBy } from '../../slack/request-context.ts';
import type { AuditRecord, Store } from '../../store/store.ts';
import { ChangeNotTaken, LOOK_UP_USER } from '../../voice/failure.ts';
import type { AuditTrail } from '../deps.ts';
import {
  type ChangeClient,
  changedSinceReview,
  type Sent,
  sendChange,
  userSubject,
} from './change-subject.ts';
import { type ConfirmMetadata, changePayload } from './editor-state.ts';

/** How long a confirmation's claim is held: long past any retry of the same submission. */
export const CLAIM_TTL_SECONDS = 24 * 60 * 60;

/** What an update's record says when the app stopped before its answer (see the intent sweep). */
export const UNKNOWN_OUTCOME =
  'unknown: the app stopped while the update was in flight; check the role';
/** The same, for a change to a user. */
export const UNKNOWN_USER_OUTCOME =
  'unknown: the app stopped while the change was in flight; check the user';

/** Said when the apply-once claim could not be taken: the store is down, nothing was sent. */
export const STORE_DOWN =
  "Nothing was sent: the app's store is not answering, and the store is what makes a change apply exactly once. Try again in a moment; tell whoever runs the app if it keeps happening.";

/** Said when a user is no longer as the review showed them: nothing was sent. */
export const USER_CHANGED = `The user changed in CometChat since the review, so nothing was sent. ${LOOK_UP_USER} to see what they have now.`;

/** Said when the intent could not be stored: the update was never sent. */
export const NOT_SENT =
  "Nothing was sent: the app could not store this change's audit record before sending it (its store did not answer). Try again in a moment; tell whoever runs the app if it keeps happening.";

export interface ApplyDeps {
  store: Pick<
    Store,
    'claim' | 'release' | 'setKnownPermissions' | 'putIntent' | 'getKnownPermissions'
  >;
  audit: AuditTrail;
  now: () => number;
}

export interface ApplyRequest {
  /** The app the confirmation was sealed for: its editors decide, its client sends. */
  app: Pick<CometChatApp, 'name' | 'access'> & { cometchat: ChangeClient };
  meta: ConfirmMetadata;
  /** Who sends it: the editor, or for an approved request the approver. */
  userId: string;
  teamId: string;
  scope: RequestScope;
  /** For an approved request: who asked, when and why (the record names them both). */
  approval?:
    | { requester: string; requestedAt: number; approvedAt: number; reason?: string | undefined }
    | undefined;
}

export type ApplyOutcome =
  /** The person may not edit (checked now, on the server): nothing was sent. */
  | { kind: 'refused'; sentence: string }
  /** The same confirmation was already submitted (a double click, a replay): not sent again. */
  | { kind: 'repeated' }
  /**
   * The store did not answer (the claim could not be taken, or the intent stored), so nothing
   * was sent; `sentence` says which, and a retry is let through.
   */
  | { kind: 'not-sent'; error: unknown; sentence: string }
  /** CometChat said it did not apply it: recorded, and a new attempt is let through. */
  | { kind: 'failed'; error: unknown; audited: boolean }
  /**
   * CometChat may or may not have applied it (no answer came after the request may have reached
   * it, or its answer could not be read): recorded as unknown, and a new attempt is let through.
   */
  | { kind: 'unknown'; error: unknown; audited: boolean }
  /**
   * A change to a user, or to a role itself, no longer as the review showed them: nothing was
   * sent; `sentence` says what changed.
   */
  | { kind: 'stale'; sentence: string }
  | { kind: 'applied'; update: Sent; audited: boolean };

/**
 * The apply step of the editor, whole: authorise, claim, send, remember, audit. The claim makes
 * the same confirmation apply at most once across replicas; every attempt that reached CometChat
 * is recorded, applied, failed or unknown. A store that fails before the update is sent means nothing is
 * sent (`not-sent`, with the sentence to say); once it is applied, no store failure hides it.
 */
export async function applyChange(deps: ApplyDeps, request: ApplyRequest): Promise<ApplyOutcome> {
  const { app, meta, scope } = request;
  const refusal = await editRefusal(app.access, request.userId, scope.log, 'confirm');
  if (refusal) return { kind: 'refused', sentence: refusal };
  const notClaimed = await claimOnce(deps, request);
  if (notClaimed) return notClaimed;
  const stale = await subjectChangedSinceReview(deps, request);
  if (stale) return { kind: 'stale', sentence: stale };
  const notStored = await storeIntent(deps, request);
  if (notStored) return notStored;
  let update: Sent;
  try {
    update = await sendChange(app.cometchat, meta, tracedBy(scope));
  } catch (error) {
    return recordFailure(deps, request, error);
  }
  const audited = await recordApplied(deps, request, update);
  scope.log.info(
    {
      app: app.name,
      role: meta.role,
      // `uid`: a CometChat user. `user` is the Slack user the request logger carries already.
      uid: userSubject(meta)?.uid,
      keys: Object.keys(changePayload(meta.changes)),
      change: meta.id,
      promotedFrom: meta.promotedFrom?.ref,
    },
    APPLIED_LOG[meta.subject?.kind ?? 'permissions'],
  );
  return { kind: 'applied', update, audited };
}

/** The log line of an applied change, by what it acted on. */
const APPLIED_LOG = {
  permissions: 'permissions updated',
  user: 'user changed',
  role: 'role changed',
} as const;

/**
 * A change to a user, or to a role itself, is checked against CometChat once its claim is taken,
 * just before it is sent: another editor, or CometChat's dashboard, may have changed it since
 * the review, and a change made on a stale "before" would undo theirs and audit a false one.
 * The claim is let go when it is stale (the sentence says why), or when CometChat cannot be read
 * (the error then says why nothing was sent). An approved request was checked when the approver
 * clicked (approve-flow.ts).
 */
async function subjectChangedSinceReview(
  deps: ApplyDeps,
  request: ApplyRequest,
): Promise<string | undefined> {
  const { app, meta, scope } = request;
  if (!meta.subject || request.approval) return undefined;
  try {
    const { changed, why } = await changedSinceReview(deps, app, meta, scope);
    if (!changed) return undefined;
    scope.log.warn({ change: meta.id, subject: meta.subject }, 'changed since the review');
    await releaseClaim(deps, request);
    return why ?? USER_CHANGED;
  } catch (error) {
    await releaseClaim(deps, request);
    throw error;
  }
}

/** Takes the confirmation's claim: undefined once taken, else why nothing is sent. */
async function claimOnce(
  deps: ApplyDeps,
  { app, meta, scope }: ApplyRequest,
): Promise<ApplyOutcome | undefined> {
  let claimed: boolean;
  try {
    claimed = await deps.store.claim(meta.id, CLAIM_TTL_SECONDS);
  } catch (error) {
    scope.log.error({ err: error, change: meta.id }, 'apply-once claim not taken; nothing sent');
    return { kind: 'not-sent', error, sentence: STORE_DOWN };
  }
  if (claimed) return undefined;
  scope.log.warn(
    { app: app.name, role: meta.role, change: meta.id },
    'editor: repeated confirmation ignored',
  );
  return { kind: 'repeated' };
}

/**
 * No update leaves without its record-to-be: if the app stops before the answer, the sweep
 * turns this intent into a record with an unknown outcome. Undefined once stored; else the claim
 * is let go and nothing is sent.
 */
async function storeIntent(
  deps: ApplyDeps,
  request: ApplyRequest,
): Promise<ApplyOutcome | undefined> {
  const { meta, scope } = request;
  try {
    await deps.store.putIntent(
      auditRecord(request, deps.now(), 'unknown', {
        serviceMessage: userSubject(meta) ? UNKNOWN_USER_OUTCOME : UNKNOWN_OUTCOME,
      }),
    );
    return undefined;
  } catch (error) {
    scope.log.error({ err: error, change: meta.id }, 'audit intent not stored; nothing sent');
    await releaseClaim(deps, request);
    return { kind: 'not-sent', error, sentence: NOT_SENT };
  }
}

/** An update CometChat refused, or whose answer never came: recorded, and a retry let through. */
async function recordFailure(
  deps: ApplyDeps,
  request: ApplyRequest,
  error: unknown,
): Promise<ApplyOutcome> {
  const outcome = mayHaveApplied(error) ? 'unknown' : 'failed';
  const { stored } = await deps.audit.record(
    auditRecord(request, deps.now(), outcome, failureFacts(error)),
    request.scope.log,
  );
  await releaseClaim(deps, request);
  return { kind: outcome, error, audited: stored };
}

/**
 * An applied update, remembered (the editor's next "before") and audited, together; once it is
 * applied, no store failure hides it. Whether the audit record was stored.
 */
async function recordApplied(
  deps: ApplyDeps,
  request: ApplyRequest,
  update: Sent,
): Promise<boolean> {
  const { scope } = request;
  const messages = Object.entries(update.results)
    .map(([key, r]) => `${key}: ${r.message}`)
    .join('; ');
  const [, audited] = await Promise.all([
    rememberPermissions(deps, request, update),
    deps.audit.record(
      auditRecord(request, deps.now(), 'applied', { serviceMessage: messages || undefined }),
      scope.log,
    ),
  ]);
  return audited.stored;
}

/**
 * A role's map as the update answered it: the editor's next "before" (no map, nothing kept),
 * with the change's reference (its audit record's), so that what the map says can be traced.
 */
async function rememberPermissions(deps: ApplyDeps, request: ApplyRequest, update: Sent) {
  const { app, meta, scope } = request;
  if (userSubject(meta)) return;
  // A created role's answer holds its map when permissions were set after it. A role deleted, or
  // created with none, starts from the defaults: an empty map says so, so that what was known of
  // an earlier role of the same id is never shown as this one's.
  const fresh = meta.subject?.kind === 'role' && meta.subject.action !== 'update';
  const permissions = update.permissions ?? (fresh ? {} : undefined);
  if (!permissions) return;
  await deps.store
    .setKnownPermissions({
      app: app.name,
      role: meta.role,
      permissions,
      seenAt: deps.now(),
      ref: scope.ref,
    })
    .catch((storeError: unknown) => {
      scope.log.error({ err: storeError, role: meta.role }, 'last known permissions not stored');
    });
}

/** Lets a new attempt of the same confirmation through; a store that fails here only logs. */
async function releaseClaim(deps: ApplyDeps, { meta, scope }: ApplyRequest): Promise<void> {
  await deps.store.release(meta.id).catch((releaseError: unknown) => {
    scope.log.error({ err: releaseError, change: meta.id }, 'claim could not be released');
  });
}

/** What a failure's record says of it: its kind, and the service's own words. */
function failureFacts(error: unknown): Pick<AuditRecord, 'serviceMessage' | 'errorKind'> {
  if (error instanceof ChangeNotTaken)
    return { errorKind: 'not_taken', serviceMessage: error.message };
  if (!isCometChatError(error)) return { errorKind: 'internal' };
  return { errorKind: error.kind, serviceMessage: error.serviceMessage ?? error.serviceCode };
}

/** Whether a failed update may still have been applied: then its outcome is not known. */
export function mayHaveApplied(error: unknown): boolean {
  if (error instanceof ChangeNotTaken) return error.partial;
  return isCometChatError(error) && error.mayHaveReached;
}

/** Where a change's "before" values came from. */
function beforeSourceOf(meta: ConfirmMetadata): AuditRecord['beforeSource'] {
  // A user's role or account, or a role itself, is read from CometChat at the review, and
  // checked again when sent.
  if (meta.subject) return 'service';
  return meta.seenAt !== undefined ? 'last-update' : 'defaults';
}

/** The audit record of one attempt: who, which role, each key before and after, the outcome. */
export function auditRecord(
  { app, meta, userId, teamId, scope, approval }: ApplyRequest,
  at: number,
  outcome: AuditRecord['outcome'],
  extra: Pick<AuditRecord, 'serviceMessage' | 'errorKind'>,
): AuditRecord {
  return {
    ref: scope.ref,
    at,
    app: app.name,
    teamId,
    // The person who asked for the change; an approver is named beside them.
    userId: approval?.requester ?? userId,
    role: meta.role,
    ...(meta.subject ? { subject: meta.subject } : {}),
    changes: meta.changes.map((c) => ({
      key: c.key,
      before: c.before ?? null,
      after: c.after,
      explicit: c.explicit,
      ...(c.unset ? { unset: true as const } : {}),
    })),
    beforeSource: beforeSourceOf(meta),
    outcome,
    ...(meta.promotedFrom ? { promotedFrom: meta.promotedFrom.ref } : {}),
    ...(approval
      ? {
          approval: {
            approvedBy: userId,
            approvedAt: approval.approvedAt,
            requestedAt: approval.requestedAt,
            ...(approval.reason ? { reason: approval.reason } : {}),
          },
        }
      : {}),
    ...extra,
  };
}
