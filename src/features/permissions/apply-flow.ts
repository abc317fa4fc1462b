import { showInModal } from '../../slack/modal-outcome.ts';
import { tracedBy } from '../../slack/request-context.ts';
import { counted, withRef } from '../../voice/sentences.ts';
import { ROLE_CHANGE_TITLE, USER_CHANGE_TITLE } from '../deps.ts';
import { permissionKeyText } from '../permission-key-text.ts';
import { type ApplyOutcome, applyChange } from './apply-change.ts';
import {
  roleSubject,
  subjectChangeDone,
  subjectIn,
  userNowText,
  userSubject,
} from './change-subject.ts';
import {
  appLabel,
  type Confirmed,
  type EditorDeps,
  failInEditor,
  roleIn,
} from './editor-context.ts';
import { type AppliedChange, type ConfirmMetadata, METADATA_LIMIT } from './editor-state.ts';
import { type AppLabel, AUDIT_NOT_STORED, messageView, resultView } from './editor-view.ts';
import { appsWithRole, promotionOffers } from './promotion.ts';
import { roleResultView } from './role-change.ts';

// The editor's last step for an app without an approval channel: the change applied once (see
// apply-change.ts), and the modal, acknowledged as pending, then shows the outcome.

type Applied = Extract<ApplyOutcome, { kind: 'applied' }>;

/** "Apply" submitted: the change applied, and the modal shows the result, or why not. */
export async function applyFlow(deps: EditorDeps, confirmed: Confirmed): Promise<void> {
  const { app, meta, target, scope } = confirmed;
  let outcome: ApplyOutcome;
  try {
    outcome = await applyChange(deps, confirmed);
  } catch (error) {
    return failInEditor({ viewId: target.viewId }, error, scope, deps);
  }
  if (outcome.kind === 'failed' || outcome.kind === 'unknown') {
    if (userSubject(meta)) return failUserChange(deps, confirmed, outcome.error);
    // A role's own change is said under its own title, with where to see the role now.
    const role = roleSubject(meta)
      ? {
          title: ROLE_CHANGE_TITLE,
          more: '`/cometchat roles` shows the roles as CometChat has them now.',
        }
      : {};
    return failInEditor({ viewId: target.viewId }, outcome.error, scope, deps, role);
  }
  if (outcome.kind === 'applied') return showApplied(deps, confirmed, outcome);
  const { title, sentence } = applyNotice(outcome, meta, appLabel(deps, app), scope.ref);
  await showInModal(deps, target, messageView(title, sentence), { text: sentence }, scope.log);
}

/**
 * A change to a user that failed, or whose outcome is not known: the failure, then what
 * CometChat has now (read again, so nobody guesses from the review), under the user's title.
 */
async function failUserChange(deps: EditorDeps, confirmed: Confirmed, error: unknown) {
  const { app, meta, target, scope } = confirmed;
  const uid = userSubject(meta)?.uid ?? '';
  const now = await app.cometchat.getUser(uid, tracedBy(scope)).catch((readError: unknown) => {
    scope.log.warn({ err: readError }, 'the user could not be read after a failed change');
    return undefined;
  });
  return failInEditor({ viewId: target.viewId }, error, scope, deps, {
    title: USER_CHANGE_TITLE,
    more: userNowText(now),
  });
}

/** What the modal says for a change that was not sent. Pure. */
export function applyNotice(
  outcome: Extract<ApplyOutcome, { kind: 'refused' | 'not-sent' | 'repeated' | 'stale' }>,
  change: Pick<ConfirmMetadata, 'role' | 'subject'>,
  label: AppLabel,
  ref: string,
): { title: string; sentence: string } {
  switch (outcome.kind) {
    case 'refused':
      return { title: 'Not allowed', sentence: outcome.sentence };
    case 'not-sent':
      return { title: 'Not sent', sentence: withRef(outcome.sentence, ref) };
    case 'stale':
      return { title: 'Not sent', sentence: outcome.sentence };
    case 'repeated':
      return {
        title: 'Already applied',
        sentence: `This change to ${subjectIn(change, label)} was already submitted once; it was not sent again.`,
      };
  }
}

/**
 * The result in the modal: for a role, its resulting permissions and the same change offered to
 * each other app that has the role; for a user (who differ between apps), what CometChat now has.
 */
async function showApplied(deps: EditorDeps, confirmed: Confirmed, outcome: Applied) {
  const { app, meta, target, scope } = confirmed;
  const label = appLabel(deps, app);
  const { permissions, results } = outcome.update;
  const role = roleSubject(meta);
  if (role) {
    // Offered where it can be made the same: a new role where there is none, else where it is.
    const promoteTo = await appsWithRole(deps, app, meta.role, scope, meta.promotedFrom?.app, {
      without: role.action === 'create',
    });
    const sentence = subjectAppliedText(meta, label, outcome.audited);
    const result = roleResultView(
      sentence,
      promotionMetadata(meta, scope.ref, label),
      promotionOffers(app, promoteTo),
    );
    return showInModal(deps, target, result, { text: sentence }, scope.log);
  }
  if (meta.subject || !permissions) {
    const sentence = subjectAppliedText(meta, label, outcome.audited);
    return showInModal(
      deps,
      target,
      messageView('Applied', sentence),
      { text: sentence },
      scope.log,
    );
  }
  const update = { permissions, results };
  const result = resultView(meta.role, update, meta.changes, outcome.audited, {
    appName: label.appName,
    metadata: promotionMetadata(meta, scope.ref, label),
    promoteTo: promotionOffers(
      app,
      await appsWithRole(deps, app, meta.role, scope, meta.promotedFrom?.app),
    ),
  });
  const text = appliedText(meta, label, outcome.audited);
  await showInModal(deps, target, result, { text }, scope.log);
}

/**
 * The applied change as the result carries it, for promotion to another app. Too large to carry
 * back means no promotion: it is never offered half. Pure.
 */
export function promotionMetadata(
  meta: Pick<ConfirmMetadata, 'role' | 'changes' | 'subject'>,
  ref: string,
  label: AppLabel,
): string | undefined {
  const role = roleSubject(meta);
  const applied: AppliedChange = {
    role: meta.role,
    ref,
    changes: meta.changes.map(({ key, after, unset }) => ({
      key,
      after,
      ...(unset ? { unset } : {}),
    })),
    ...(role ? { subject: role } : {}),
  };
  const metadata = (label.write ?? JSON.stringify)(applied);
  return metadata.length <= METADATA_LIMIT ? metadata : undefined;
}

/** A change to a user or to a role itself, applied: what it now has, in words. Pure. */
export function subjectAppliedText(
  meta: Pick<ConfirmMetadata, 'role' | 'subject' | 'changes'>,
  label: AppLabel,
  audited: boolean,
): string {
  return `Applied to ${subjectIn(meta, label)}: ${subjectChangeDone(meta)}.${audited ? '' : ` ${AUDIT_NOT_STORED}`}`;
}

/**
 * The applied change as a message, for when the modal cannot show it: the same facts as the
 * modal, the missing audit record included. Pure.
 */
export function appliedText(
  meta: Pick<ConfirmMetadata, 'role' | 'changes'>,
  label: AppLabel,
  audited: boolean,
): string {
  const count = meta.changes.length;
  const keys = meta.changes.map((c) => permissionKeyText(c.key)).join(', ');
  return `Applied ${counted(count, 'change')} to ${roleIn(meta.role, label)}: ${keys}.${audited ? '' : ` ${AUDIT_NOT_STORED}`}`;
}
