import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { approvalFor, type CometChatApp } from '../apps/apps.ts';
import { LOOK_UP_USER } from '../replies/failure.ts';
import { currentRequest } from '../request-context.ts';
import { failInModal, showInModal } from '../slack/modal-outcome.ts';
import { type ApplyOutcome, applyChange } from './apply.ts';
import {
  type Change,
  type PermissionsChange,
  type RoleChange,
  type ScopePermissionsChange,
  setsPermissions,
} from './change.ts';
import { stepOutcomeLines } from './containment-view.ts';
import type { AppLabel, ChangeDeps } from './deps.ts';
import { kindOf } from './kinds/index.ts';
import { shippedCatalogueOf } from './kinds/scope-permissions.ts';
import { userNowText } from './kinds/user.ts';
import {
  appliedText,
  applyNotice,
  failureView,
  resultView,
  roleResultView,
  subjectAppliedText,
} from './outcome.ts';
import { appsWithGroup, appsWithRole, promotionMetadata, promotionOffers } from './promote.ts';
import { type ApprovalApp, requestApproval, requestedNotice } from './request.ts';
import { ROLE_CHANGE_TITLE, USER_CHANGE_TITLE } from './review.ts';
import { messageView } from './views.ts';

// A review submitted ("Apply", or "Request approval" where the app asks for approvals): the
// change applied (apply.ts) or posted for approval (request.ts), and the review's modal, which
// Slack was answered with a pending view, then shows the outcome.

/** A review submitted, opened for the app it was signed for. */
export interface Submitted {
  app: CometChatApp;
  change: Change;
  label: AppLabel;
  userId: string;
  teamId: string;
  /** The reason a request for approval gives. */
  reason: string | undefined;
  /** The review's modal, which shows the outcome. */
  viewId: string;
}

/** What the modal shows: an outcome, with its words as a message; or a failure, once shown. */
type Shown = { view: View; text: string } | { view: View; failure: unknown };

/** Applies the submitted change, or asks for its approval, and shows the outcome in the modal. */
export async function submitChange(
  deps: ChangeDeps,
  client: WebClient,
  submitted: Submitted,
): Promise<void> {
  const approval = approvalFor(submitted.app, submitted.change.kind);
  const shown = await (approval
    ? requested(deps, client, { ...submitted, app: { ...submitted.app, approval } })
    : applied(deps, submitted)
  ).catch((failure: unknown) => ({ view: failed(deps, failure), failure }));
  const { log } = currentRequest();
  const target = { viewId: submitted.viewId };
  if ('failure' in shown) return failInModal(deps.views, target, shown.view, shown.failure, log);
  // A view submission has no response_url: when the modal is gone, a direct message says it.
  const destination = { userId: submitted.userId };
  await showInModal(deps, { ...target, destination }, shown.view, { text: shown.text }, log);
}

/** "Request approval": the request posted, and where, or why not. */
async function requested(
  deps: ChangeDeps,
  client: WebClient,
  submitted: Submitted & { app: ApprovalApp },
): Promise<Shown> {
  const outcome = await requestApproval(deps, client, submitted);
  const { title, sentence } = requestedNotice(outcome, submitted.change, submitted.label);
  return { view: messageView(title, sentence), text: sentence };
}

/** "Apply": the change applied once, and the result, or why it was not sent. */
async function applied(deps: ChangeDeps, submitted: Submitted): Promise<Shown> {
  const { change, label } = submitted;
  const outcome = await applyChange(deps, submitted);
  if (outcome.kind === 'failed' || outcome.kind === 'unknown') {
    const view = await failedToApply(deps, submitted, outcome);
    return { view, failure: outcome.error };
  }
  if (outcome.kind === 'applied') return result(deps, submitted, outcome);
  const { title, sentence } = applyNotice(outcome, change, label, currentRequest().ref);
  return { view: messageView(title, sentence), text: sentence };
}

/**
 * The result: for a role, its resulting permissions or what it now is, and the same change
 * offered to each other app where it can be made the same; for a user (users differ between
 * apps), and for keys that were at their defaults already (no map answered), what it did.
 */
async function result(
  deps: Pick<ChangeDeps, 'apps'>,
  submitted: Submitted,
  outcome: Extract<ApplyOutcome, { kind: 'applied' }>,
): Promise<Shown> {
  const { change, label } = submitted;
  const { update, audited } = outcome;
  if (change.kind === 'role') {
    const { offers, metadata } = await promotion(deps, submitted, change);
    const sentence = subjectAppliedText(change, label, audited);
    return { view: roleResultView(sentence, metadata, offers), text: sentence };
  }
  if (!setsPermissions(change) || !update.permissions) {
    const sentence = subjectAppliedText(change, label, audited, update.steps);
    return { view: messageView('Applied', sentence), text: sentence };
  }
  const { offers, metadata } = await promotion(deps, submitted, change);
  const map = { permissions: update.permissions, results: update.results };
  const options = {
    appName: label.appName,
    metadata,
    promoteTo: offers,
    name: kindOf(change).name,
    catalogue: shippedCatalogueOf(change),
  };
  const view = resultView(change.role, map, change.changes, audited, options);
  return { view, text: appliedText(change, label, audited) };
}

/**
 * The same change offered to the other apps: where the role is (a new role: where it is not; a
 * group's scope: where the group is), with the result's metadata that carries it.
 */
async function promotion(
  deps: Pick<ChangeDeps, 'apps'>,
  { app, label }: Submitted,
  change: PermissionsChange | RoleChange | ScopePermissionsChange,
) {
  const without = change.kind === 'role' && change.action === 'create';
  const cameFrom = change.promotedFrom?.app;
  const names =
    change.kind === 'scope-permissions'
      ? await appsWithGroup(deps.apps, app, change.guid, { cameFrom })
      : await appsWithRole(deps.apps, app, change.role, { cameFrom, without });
  const metadata = promotionMetadata(change, currentRequest().ref, label);
  return { offers: promotionOffers(app, names), metadata };
}

/**
 * A change that failed, or whose outcome is not known, under its own title: for a user, what
 * CometChat has now (read again, so nobody guesses from the review); for a role itself, where to
 * see the roles now.
 */
async function failedToApply(
  deps: Pick<ChangeDeps, 'failureSentence'>,
  submitted: Submitted,
  { error, steps }: Extract<ApplyOutcome, { kind: 'failed' | 'unknown' }>,
): Promise<View> {
  const { app, change } = submitted;
  if (change.kind === 'containment' && steps) {
    // What each step did before the account step failed: the bans it made have a Revert.
    const more = `What each step did (the audit record has them; its Revert lifts the bans made):\n${stepOutcomeLines(steps).join('\n')}`;
    return failed(deps, error, { title: USER_CHANGE_TITLE, more });
  }
  if (change.kind === 'user-role' || change.kind === 'account') {
    const now = await app.cometchat.getUser(change.uid).catch((readError: unknown) => {
      currentRequest().log.warn(
        { err: readError },
        'the user could not be read after a failed change',
      );
      return undefined;
    });
    return failed(deps, error, { title: USER_CHANGE_TITLE, more: userNowText(now) });
  }
  if (change.kind === 'sessions') {
    const more = `${LOOK_UP_USER} to see their sessions now.`;
    return failed(deps, error, { title: USER_CHANGE_TITLE, more });
  }
  if (change.kind === 'role') {
    const more = '`/cometchat roles` shows the roles as CometChat has them now.';
    return failed(deps, error, { title: ROLE_CHANGE_TITLE, more });
  }
  return failed(deps, error);
}

/** A failure in the modal: its sentence and the request's reference. */
function failed(
  deps: Pick<ChangeDeps, 'failureSentence'>,
  error: unknown,
  options: { title?: string; more?: string } = {},
): View {
  const sentence = deps.failureSentence(error);
  return failureView(sentence, currentRequest().ref, options);
}
