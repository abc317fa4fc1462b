import type {
  App,
  BlockAction,
  ButtonAction,
  StaticSelectAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { View } from '@slack/types';
import { editRefusal } from '../../access/edit-refusal.ts';
import {
  type CometChatApp,
  openRoleButton,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
} from '../../apps/apps.ts';
import { countHolders } from '../../apps/holders.ts';
import {
  type AppLabel,
  appLabel,
  baselineFrom,
  changeRecord,
  confirmView,
  messageView,
  OPEN_CHECK_DEADLINE_MS,
  replyPrivately,
} from '../../changes/index.ts';
import type { Catalogue } from '../../cometchat/catalogue.ts';
import { AlreadyShownError, RefusedError } from '../../replies/failure.ts';
import { currentRequest, msLeft } from '../../request-context.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SelectArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { type ModalTarget, showModal } from '../../slack/modal-outcome.ts';
import { code } from '../../slack/mrkdwn.ts';
import { settledWithin } from '../../slack/request-context.ts';
import { platformErrorCode } from '../../slack/slack-errors.ts';
import type { KnownPermissions } from '../../store/store.ts';
import type { EditorOpener } from '../deps.ts';
import {
  type EditorDeps,
  editedIn,
  editorFailure,
  failInEditor,
  roleIn,
} from './editor-context.ts';
import {
  categorySwitchView,
  isCategory,
  lateReviewErrors,
  type ReviewOutcome,
  reviewDecision,
  roleContext,
} from './editor-flow.ts';
import { catalogueFor, editorReads } from './editor-reads.ts';
import {
  type EditorState,
  EditorStateSchema,
  newEditorState,
  rebase,
  staleNotice,
} from './editor-state.ts';
import { editorView, loadingView } from './editor-view.ts';

// The editor's listeners: open, switch category, review. Each decides with the plain functions
// of editor-flow.ts; the review's "Apply" is the road of every change's (src/changes).

/**
 * The editor for a role, ready to show: the role list, the app's catalogue and the last known
 * values, fetched together. A role CometChat does not have gets a sentence instead.
 */
export async function loadEditorView(
  deps: Pick<EditorDeps, 'apps' | 'store'>,
  app: CometChatApp,
  role: string,
): Promise<View> {
  const { log } = currentRequest();
  const label = appLabel(deps.apps, app);
  const [roles, catalogue, { known, unavailable }] = await Promise.all([
    app.cometchat.listAllRoles(),
    // Never fails: without the app's definitions the editor opens on the shipped catalogue.
    app.catalogue(),
    knownForPrefill(deps, app, role),
  ]);
  if (!roles.some((r) => r.role === role)) {
    log.info({ app: app.name, role }, 'editor: unknown role');
    return messageView(
      'Edit permissions',
      `CometChat has no role ${roleIn(role, label)}. Check the id with \`/cometchat ${label.appName ? `${label.appName} ` : ''}roles\`.`,
    );
  }
  log.info(
    { app: app.name, role, known: known !== undefined, catalogue: catalogue.source },
    'editor opened',
  );
  return editorView({
    state: newEditorState(role, known?.seenAt),
    baseline: baselineFrom(known, catalogue),
    ...roleContext(roles, role),
    ...label,
    notice: unavailable ? PREFILL_UNAVAILABLE : undefined,
    catalogue,
  });
}

/**
 * The last known values of `role` (a role, or a group's scope's knownScopeKey). Without the store
 * the editor still opens, on the documented defaults, and says why (PREFILL_UNAVAILABLE).
 */
export function knownForPrefill(
  deps: Pick<EditorDeps, 'store'>,
  app: CometChatApp,
  role: string,
): Promise<{ known: KnownPermissions | undefined; unavailable: boolean }> {
  return deps.store.getKnownPermissions(app.name, role).then(
    (found) => ({ known: found, unavailable: false }),
    (error: unknown) => {
      currentRequest().log.warn(
        { err: error, app: app.name, role },
        'editor: store unavailable for pre-fill',
      );
      return { known: undefined, unavailable: true };
    },
  );
}

/** Shown in an editor opened while the store does not answer. */
export const PREFILL_UNAVAILABLE =
  ":warning: Pre-fill is unavailable: the app's store is not answering, so the values this app last applied cannot be read and the boxes show the documented defaults. Applying a change needs the store too; try again in a moment.";

/** What loading the editor came to: the view to show, or why it failed. */
type Loaded = { view: View } | { error: unknown };

/**
 * Opens the editor for a role. Most openings have the role list (cached) and the last known
 * values within a moment: those open once, filled in, which spares Slack and the app a second
 * call. One whose data takes longer than `loadingViewAfterMs` opens "Loading…" first, so the
 * trigger (good for three seconds from the click) is never spent waiting, and is filled in
 * when the data arrives.
 */
export function createEditorOpener(deps: EditorDeps): EditorOpener {
  return (triggerId, app, role, userId) =>
    openEditor(
      deps,
      { triggerId, app, userId },
      {
        name: code(role),
        // Warms the count the review will show (cached briefly per app); nobody waits for it here.
        warm: () => void countHolders(app, role, {}),
        load: () => loadEditorView(deps, app, role),
      },
    );
}

/** What an opening shows: what the editor is on (mrkdwn), and how its view is loaded. */
export interface EditorLoad {
  name: string;
  /** Asked once the person may edit, before the load (nobody waits for it). */
  warm?: () => void;
  load: () => Promise<View>;
}

/** Opens an editor for the person who asked, in `app` (see createEditorOpener). */
export async function openEditor(
  deps: EditorDeps,
  asked: { triggerId: string; app: CometChatApp; userId: string },
  editor: EditorLoad,
): Promise<void> {
  const { triggerId, app, userId } = asked;
  // views.open needs the trigger within Slack's three seconds of the click: the check gets
  // what is left of OPEN_CHECK_DEADLINE_MS after the viewer check took its share.
  const refusal = await editRefusal(app.access, userId, currentRequest().log, 'open', {
    withinMs: msLeft(OPEN_CHECK_DEADLINE_MS, deps.now),
  });
  if (refusal) throw new RefusedError(refusal);
  editor.warm?.();
  const loading: Promise<Loaded> = editor.load().then(
    (view) => ({ view }),
    (error: unknown) => ({ error }),
  );
  const waitMs = Math.min(deps.loadingViewAfterMs, msLeft(OPEN_CHECK_DEADLINE_MS, deps.now));
  const early = await settledWithin(loading, waitMs);
  if (early) return show({ triggerId }, early, deps);
  const placeholder = loadingView(editor.name, appLabel(deps.apps, app).appName);
  const viewId = await deps.views.open({ trigger_id: triggerId, view: placeholder });
  return show({ viewId }, await loading, deps);
}

/** Shows the loaded editor, or the failure, in the modal (see failInEditor for a failure). */
async function show(target: ModalTarget, loaded: Loaded, deps: EditorDeps): Promise<void> {
  if ('view' in loaded) return showModal(deps.views, target, loaded.view);
  await failInEditor(target, loaded.error, deps);
}

/** "Edit permissions" on a role in the role list. */
export function createEditButton(deps: EditorDeps) {
  const open = createEditorOpener(deps);
  return async ({ ack, body, action }: ButtonArgs) => {
    await ack();
    // The button names its app, signed: a value made by hand or edited to name another is refused.
    const { app, role } = openRoleButton(deps.apps, action.value);
    await open(body.trigger_id, app, role, body.user.id);
  };
}

/** Switching category: keep what was edited on screen, or refuse to switch and say why. */
export function createCategorySwitch(deps: EditorDeps) {
  return async (args: SelectArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { log } = currentRequest();
    const view = body.view;
    if (!view) return;
    const opened = tryOpenSigned(deps.apps, EditorStateSchema, view.private_metadata);
    if (!opened) {
      // Told in a message, the modal left as it is: the view id of a request whose metadata is
      // not signed here may be someone else's modal.
      await replyPrivately(deps, args, UNSIGNED_REFUSAL);
      return;
    }
    const target = action.selected_option?.value;
    if (!isCategory(target)) return;
    const { app, value: state } = opened;
    // Refused silently (and logged): the view id in a refused request may be someone else's
    // modal, which must not be touched.
    if (await editRefusal(app.access, body.user.id, log, 'switch category')) return;
    const { roles, catalogue, known } = await editorReads(deps, app, state);
    const next = categorySwitchView({
      state,
      target,
      known,
      values: view.state.values,
      roles,
      label: appLabel(deps.apps, app),
      catalogue,
    });
    try {
      await deps.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (error) {
      // A newer render won the race (the user clicked twice); theirs stands.
      if (platformErrorCode(error) === 'hash_conflict') {
        log.info('editor: stale category switch ignored');
        return;
      }
      throw error;
    }
  };
}

export type ReviewAnswer =
  /**
   * Decided for the app the editor was signed for; with how many users hold the role, when
   * CometChat said so in time.
   */
  | (ReviewOutcome & {
      app: CometChatApp;
      label: AppLabel;
      holders?: number | undefined;
      /** The app's catalogue the review read the fields with. */
      catalogue?: Catalogue | undefined;
    })
  | { kind: 'refused'; sentence: string }
  | { kind: 'outdated' }
  /** The checks did not finish before the deadline: nothing decided, nothing sent. */
  | { kind: 'late'; state: EditorState }
  /** The store failed: nothing decided, nothing sent; the person is told, with the reference. */
  | { kind: 'failed'; error: unknown };

/**
 * How long the review waits for the count of the role's users once it is otherwise decided. The
 * editor asked for the count when it opened, so it is usually known (cached) by then; a count
 * that is not is shown as unknown rather than hold the review.
 */
const HOLDERS_WAIT_MS = 300;

/**
 * "Review changes", decided within a deadline: whatever the access check and the store do,
 * Slack gets its answer in time (a late answer would leave the person an error from Slack).
 */
export async function reviewSubmission(
  deps: Pick<EditorDeps, 'apps' | 'store' | 'reviewDeadlineMs' | 'now'>,
  submission: {
    userId: string;
    viewId: string;
    privateMetadata: string;
    values: ViewSubmitAction['view']['state']['values'];
  },
): Promise<ReviewAnswer> {
  const opened = tryOpenSigned(deps.apps, EditorStateSchema, submission.privateMetadata);
  if (!opened) return { kind: 'outdated' };
  const { app, value: state } = opened;
  const label = appLabel(deps.apps, app);
  // The deadline counts from the request's arrival: the viewer check already took its share.
  const left = Math.max(0, msLeft(deps.reviewDeadlineMs, deps.now));
  // Asked at once, beside the checks; the review waits for it only a little (holdersWithin).
  // A group's scope has no count of holders (the review says whom it reaches instead).
  const holders = state.scope ? Promise.resolve(undefined) : countHolders(app, state.role, {});
  const decide = async (): Promise<ReviewAnswer> => {
    const { log } = currentRequest();
    const refusal = await editRefusal(app.access, submission.userId, log, 'review', {
      withinMs: left,
    });
    if (refusal) return { kind: 'refused', sentence: refusal };
    try {
      const [known, catalogue] = await Promise.all([
        deps.store.getKnownPermissions(app.name, state.role),
        // Kept from the opening (a few minutes); never fails (the shipped one stands in).
        catalogueFor(app, state),
      ]);
      const outcome = reviewDecision({
        state,
        known,
        values: submission.values,
        viewId: submission.viewId,
        app: app.name,
        ...(label.write ? { write: label.write } : {}),
        catalogue,
      });
      if (outcome.kind !== 'confirm') return { ...outcome, app, label, catalogue };
      const within = Math.min(HOLDERS_WAIT_MS, msLeft(deps.reviewDeadlineMs, deps.now));
      return { ...outcome, app, label, catalogue, holders: await settledWithin(holders, within) };
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
        view: messageView('Edit permissions', UNSIGNED_REFUSAL),
      };
    case 'late':
      return { response_action: 'errors' as const, errors: lateReviewErrors(answer.state) };
    case 'stale':
      return {
        response_action: 'update' as const,
        view: loadingView(editedIn(answer.state, {}), answer.label.appName),
      };
    case 'errors':
      return { response_action: 'errors' as const, errors: answer.errors };
    case 'nothing':
      return {
        response_action: 'update' as const,
        view: messageView(
          'Nothing to change',
          `Every field still has the value it showed, so nothing was sent for ${editedIn(answer, answer.label)}.`,
        ),
      };
    case 'confirm': {
      const { meta, label } = answer;
      const metadata = (label.write ?? JSON.stringify)(changeRecord(meta));
      return {
        response_action: 'push' as const,
        view: confirmView(meta, meta.role, metadata, label.appName, answer.app.approval?.channel, {
          holders: answer.holders,
          catalogue: answer.catalogue,
        }),
      };
    }
  }
}

export function createReviewSubmission(deps: EditorDeps) {
  return async ({ ack, view, body }: SubmitArgs) => {
    const { log } = currentRequest();
    const answer = await reviewSubmission(deps, {
      userId: body.user.id,
      viewId: view.id,
      privateMetadata: view.private_metadata,
      values: view.state.values,
    });
    await ack(reviewResponse(answer, (error) => editorFailure(error, deps)));
    // The person has the failure sentence and its reference; the handler logs the cause.
    if (answer.kind === 'failed') throw new AlreadyShownError(answer.error);
    if (answer.kind === 'late') log.warn('editor: review not checked in time; asked again');
    if (answer.kind === 'nothing')
      log.info({ app: answer.app.name, role: answer.role }, 'editor: nothing to change');
    if (answer.kind === 'confirm') {
      const { meta } = answer;
      const keys = meta.changes.map((c) => c.key);
      log.info(
        { app: answer.app.name, role: meta.role, keys, change: meta.id },
        'editor: change ready to confirm',
      );
    }
    if (answer.kind === 'stale') await redrawOnNewValues(deps, view.id, answer);
  };
}

/** The editor drawn again on the values someone applied meanwhile, what was edited kept. */
async function redrawOnNewValues(
  deps: EditorDeps,
  viewId: string,
  answer: Extract<ReviewAnswer, { kind: 'stale' }>,
): Promise<void> {
  const { app, label, catalogue } = answer;
  currentRequest().log.info(
    { app: app.name, role: answer.state.role },
    'editor: values changed meanwhile; redrawn',
  );
  const { roles } = await editorReads(deps, app, answer.state);
  const baseline = baselineFrom(answer.known, catalogue);
  await deps.views.update({
    view_id: viewId,
    view: editorView({
      state: rebase(answer.state, baseline),
      baseline,
      ...roles,
      ...label,
      notice: staleNotice(answer.state),
      catalogue,
    }),
  });
}

export function registerPermissionEditor(bolt: App, deps: EditorDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.editPermissions, createEditButton(deps));
  bolt.action<BlockAction<StaticSelectAction>>(
    ACTIONS.permissionsCategory,
    createCategorySwitch(deps),
  );
  bolt.view<ViewSubmitAction>(CALLBACKS.permissionsEditor, createReviewSubmission(deps));
}
