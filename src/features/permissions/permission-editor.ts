import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  StaticSelectAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Access } from '../../slack/access.ts';
import { failureMessage } from '../../slack/blocks.ts';
import { destinationOf } from '../../slack/deliver.ts';
import { alreadyShown, failureSentence, RefusedError } from '../../slack/failure.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import { failInModal, showInModal } from '../../slack/modal-outcome.ts';
import { code } from '../../slack/mrkdwn.ts';
import { msLeft, type RequestScope, scopeOf } from '../../slack/request-context.ts';
import { DEFAULT_APP, type Store } from '../../store/store.ts';
import type { AuditTrail, FeatureDeps } from '../deps.ts';
import { applyChange } from './apply-change.ts';
import { editRefusal } from './editor-access.ts';
import {
  categorySwitchView,
  isCategory,
  lateReviewErrors,
  type ReviewOutcome,
  reviewDecision,
  roleContext,
} from './editor-flow.ts';
import {
  baselineFrom,
  decodeConfirm,
  decodeState,
  type EditorState,
  encodeConfirm,
  newEditorState,
  rebase,
  STALE_NOTICE,
} from './editor-state.ts';
import {
  AUDIT_NOT_STORED,
  confirmView,
  editorView,
  loadingView,
  messageView,
  resultView,
} from './editor-view.ts';

export interface EditorDeps extends FeatureDeps {
  store: Store;
  access: Access;
  audit: AuditTrail;
  now: () => number;
  /**
   * How long "Review changes" may take before it answers Slack anyway (Slack allows three
   * seconds for a view submission, from the click, and the network takes its share).
   */
  reviewDeadlineMs: number;
}

type Args<T> = T & AllMiddlewareArgs;

/** The editor check before `views.open` ends this long after the request arrived at most. */
export const OPEN_CHECK_DEADLINE_MS = 2_000;

/**
 * The editor for a role, ready to show: the role list and the last known values, fetched
 * together. A role CometChat does not have gets a sentence instead.
 */
export async function loadEditorView(
  deps: Pick<EditorDeps, 'cometchat' | 'store'>,
  role: string,
  scope: RequestScope,
): Promise<View> {
  const [roles, known] = await Promise.all([
    deps.cometchat.listAllRoles({ ref: scope.ref, logger: scope.log }),
    deps.store.getKnownPermissions(DEFAULT_APP, role),
  ]);
  if (!roles.some((r) => r.role === role)) {
    scope.log.info({ role }, 'editor: unknown role');
    return messageView(
      'Edit permissions',
      `CometChat has no role ${code(role)}. Check the id with \`/cometchat roles\`.`,
    );
  }
  scope.log.info({ role, known: known !== undefined }, 'editor opened');
  return editorView({
    state: newEditorState(role, known?.seenAt),
    baseline: baselineFrom(known),
    ...roleContext(roles, role),
  });
}

function failureView(error: unknown, scope: RequestScope, deps: FeatureDeps): View {
  const message = failureMessage(failureSentence(error, deps.budgetSeconds), scope.ref);
  return messageView('Edit permissions', message.blocks ?? []);
}

/**
 * Opens the editor for a role: the modal opens at once with the trigger (it expires in three
 * seconds), then is filled once the role list and the last known values are at hand.
 */
export function createEditorOpener(deps: EditorDeps) {
  return async (
    client: WebClient,
    triggerId: string,
    role: string,
    userId: string,
    scope: RequestScope,
  ) => {
    // views.open needs the trigger within Slack's three seconds of the click: the check gets
    // what is left of OPEN_CHECK_DEADLINE_MS after the viewer check took its share.
    const refusal = await editRefusal(deps.access, userId, scope.log, 'open', {
      withinMs: msLeft(scope, OPEN_CHECK_DEADLINE_MS, deps.now),
    });
    if (refusal) throw new RefusedError(refusal);
    const opened = await client.views.open({ trigger_id: triggerId, view: loadingView(role) });
    const viewId = opened.view?.id ?? '';
    try {
      await client.views.update({ view_id: viewId, view: await loadEditorView(deps, role, scope) });
    } catch (error) {
      await failInModal(client, viewId, failureView(error, scope, deps), error, scope.log);
    }
  };
}

/** "Edit permissions" on a role in the role list. */
export function createEditButton(deps: EditorDeps) {
  const open = createEditorOpener(deps);
  return async ({
    ack,
    body,
    action,
    client,
    context,
  }: Args<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>) => {
    await ack();
    await open(client, body.trigger_id, action.value ?? '', body.user.id, scopeOf(context));
  };
}

/** Switching category: keep what was edited on screen, or refuse to switch and say why. */
export function createCategorySwitch(deps: EditorDeps) {
  return async ({
    ack,
    body,
    action,
    client,
    context,
  }: Args<SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>>>) => {
    await ack();
    const scope = scopeOf(context);
    const view = body.view;
    const state = decodeState(view?.private_metadata);
    const target = action.selected_option?.value;
    if (!view || !state || !isCategory(target)) return;
    // Refused silently (and logged): the view id in a refused request may be someone else's
    // modal, which must not be touched.
    if (await editRefusal(deps.access, body.user.id, scope.log, 'switch category')) return;
    const [roles, known] = await Promise.all([
      deps.cometchat.listAllRoles({ ref: scope.ref, logger: scope.log }),
      deps.store.getKnownPermissions(DEFAULT_APP, state.role),
    ]);
    const next = categorySwitchView({
      state,
      target,
      known,
      values: view.state.values,
      roles: roleContext(roles, state.role),
    });
    try {
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (error) {
      // A newer render won the race (the user clicked twice); theirs stands.
      if ((error as { data?: { error?: string } }).data?.error === 'hash_conflict') {
        scope.log.info('editor: stale category switch ignored');
        return;
      }
      throw error;
    }
  };
}

export type ReviewAnswer =
  | ReviewOutcome
  | { kind: 'refused'; sentence: string }
  | { kind: 'outdated' }
  /** The checks did not finish before the deadline: nothing decided, nothing sent. */
  | { kind: 'late'; state: EditorState }
  /** The store failed: nothing decided, nothing sent; the person is told, with the reference. */
  | { kind: 'failed'; error: unknown };

/**
 * "Review changes", decided within a deadline: whatever the access check and the store do,
 * Slack gets its answer in time (a late answer would leave the person an error from Slack).
 */
export async function reviewSubmission(
  deps: Pick<EditorDeps, 'access' | 'store' | 'reviewDeadlineMs' | 'now'>,
  submission: {
    userId: string;
    viewId: string;
    privateMetadata: string;
    values: ViewSubmitAction['view']['state']['values'];
    scope: RequestScope;
  },
): Promise<ReviewAnswer> {
  const state = decodeState(submission.privateMetadata);
  if (!state) return { kind: 'outdated' };
  // The deadline counts from the request's arrival: the viewer check already took its share.
  const left = Math.max(0, msLeft(submission.scope, deps.reviewDeadlineMs, deps.now));
  const decide = async (): Promise<ReviewAnswer> => {
    const refusal = await editRefusal(
      deps.access,
      submission.userId,
      submission.scope.log,
      'review',
      { withinMs: left },
    );
    if (refusal) return { kind: 'refused', sentence: refusal };
    try {
      const known = await deps.store.getKnownPermissions(DEFAULT_APP, state.role);
      return reviewDecision({
        state,
        known,
        values: submission.values,
        viewId: submission.viewId,
      });
    } catch (error) {
      return { kind: 'failed', error };
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ReviewAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'late', state }), left);
  });
  try {
    return await Promise.race([decide(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The acknowledgement of "Review changes" for each answer. */
export function reviewResponse(answer: ReviewAnswer, failure: (error: unknown) => View) {
  switch (answer.kind) {
    case 'failed':
      return { response_action: 'update' as const, view: failure(answer.error) };
    case 'refused':
      return {
        response_action: 'update' as const,
        view: messageView('Not allowed', answer.sentence),
      };
    case 'outdated':
      return {
        response_action: 'update' as const,
        view: messageView(
          'Edit permissions',
          'This editor is out of date. Open it again with `/cometchat perms <role>`.',
        ),
      };
    case 'late':
      return { response_action: 'errors' as const, errors: lateReviewErrors(answer.state) };
    case 'stale':
      return { response_action: 'update' as const, view: loadingView(answer.state.role) };
    case 'errors':
      return { response_action: 'errors' as const, errors: answer.errors };
    case 'nothing':
      return {
        response_action: 'update' as const,
        view: messageView(
          'Nothing to change',
          `Every field still has the value it showed, so nothing was sent for ${code(answer.role)}.`,
        ),
      };
    case 'confirm':
      return {
        response_action: 'push' as const,
        view: confirmView(answer.meta, answer.meta.role, encodeConfirm(answer.meta)),
      };
  }
}

export function createReviewSubmission(deps: EditorDeps) {
  return async ({
    ack,
    view,
    body,
    client,
    context,
  }: Args<SlackViewMiddlewareArgs<ViewSubmitAction>>) => {
    const scope = scopeOf(context);
    const answer = await reviewSubmission(deps, {
      userId: body.user.id,
      viewId: view.id,
      privateMetadata: view.private_metadata,
      values: view.state.values,
      scope,
    });
    await ack(reviewResponse(answer, (error) => failureView(error, scope, deps)));
    // The person has the failure sentence and its reference; the handler logs the cause.
    if (answer.kind === 'failed') throw alreadyShown(answer.error);
    if (answer.kind === 'late') scope.log.warn('editor: review not checked in time; asked again');
    if (answer.kind === 'nothing')
      scope.log.info({ role: answer.role }, 'editor: nothing to change');
    if (answer.kind === 'confirm') {
      scope.log.info(
        {
          role: answer.meta.role,
          keys: answer.meta.changes.map((c) => c.key),
          change: answer.meta.id,
        },
        'editor: change ready to confirm',
      );
    }
    if (answer.kind !== 'stale') return;
    scope.log.info({ role: answer.state.role }, 'editor: values changed meanwhile; redrawn');
    const roles = await deps.cometchat.listAllRoles({ ref: scope.ref, logger: scope.log });
    await client.views.update({
      view_id: view.id,
      view: editorView({
        state: rebase(answer.state, baselineFrom(answer.known)),
        baseline: baselineFrom(answer.known),
        ...roleContext(roles, answer.state.role),
        notice: STALE_NOTICE,
      }),
    });
  };
}

/**
 * "Apply": acknowledged at once with a pending view; the update runs after, within the client's
 * time budget, and the view then shows the outcome.
 */
export function createApplySubmission(deps: EditorDeps) {
  return async ({
    ack,
    view,
    body,
    client,
    context,
  }: Args<SlackViewMiddlewareArgs<ViewSubmitAction>>) => {
    const scope = scopeOf(context);
    const meta = decodeConfirm(view.private_metadata);
    if (!meta) {
      await ack({
        response_action: 'update',
        view: messageView(
          'Edit permissions',
          'This confirmation is out of date. Open the editor again.',
        ),
      });
      return;
    }
    const count = meta.changes.length;
    await ack({
      response_action: 'update',
      view: messageView(
        'Applying',
        `:hourglass_flowing_sand: Applying ${count} change${count === 1 ? '' : 's'} to ${code(meta.role)}…`,
        false,
      ),
    });
    const target = { viewId: view.id, destination: destinationOf(body) };
    const show = (title: string, sentence: string) =>
      showInModal(
        { client, deliver: deps.deliver },
        target,
        messageView(title, sentence),
        { text: sentence },
        scope.log,
      );
    let outcome: Awaited<ReturnType<typeof applyChange>>;
    try {
      outcome = await applyChange(deps, {
        meta,
        userId: body.user.id,
        teamId: body.team?.id ?? body.user.team_id ?? '',
        scope,
      });
    } catch (error) {
      return failInModal(client, view.id, failureView(error, scope, deps), error, scope.log);
    }
    switch (outcome.kind) {
      case 'refused':
        return show('Not allowed', outcome.sentence);
      case 'repeated':
        return show(
          'Already applied',
          `This change to ${code(meta.role)} was already submitted once; it was not sent again.`,
        );
      case 'failed':
        return failInModal(
          client,
          view.id,
          failureView(outcome.error, scope, deps),
          outcome.error,
          scope.log,
        );
      case 'applied': {
        const result = resultView(meta.role, outcome.update, meta.changes, outcome.audited);
        return showInModal(
          { client, deliver: deps.deliver },
          target,
          result,
          {
            // The same facts as the modal, the missing audit record included.
            text: `Applied ${count} change${count === 1 ? '' : 's'} to ${code(meta.role)}: ${meta.changes.map((c) => code(c.key)).join(', ')}.${outcome.audited ? '' : ` ${AUDIT_NOT_STORED}`}`,
          },
          scope.log,
        );
      }
    }
  };
}

export function registerPermissionEditor(app: App, deps: EditorDeps): void {
  app.action<BlockAction<ButtonAction>>(ACTIONS.editPermissions, createEditButton(deps));
  app.action<BlockAction<StaticSelectAction>>(
    ACTIONS.permissionsCategory,
    createCategorySwitch(deps),
  );
  app.view<ViewSubmitAction>(CALLBACKS.permissionsEditor, createReviewSubmission(deps));
  app.view<ViewSubmitAction>(CALLBACKS.permissionsConfirm, createApplySubmission(deps));
}
