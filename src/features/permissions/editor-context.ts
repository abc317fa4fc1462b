import type { View } from '@slack/types';
import { type AppLabel, failureView, scopeName } from '../../changes/index.ts';
import { failureSentence } from '../../replies/failure.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { failInModal, type ModalTarget } from '../../slack/modal-outcome.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { Store } from '../../store/store.ts';
import type { FeatureDeps } from '../deps.ts';
import type { EditorState } from './editor-state.ts';

// What the editor's listeners share: their dependencies, the role a view is about, and how a
// failure is shown in the modal.

export interface EditorDeps extends FeatureDeps {
  store: Store;
  now: () => number;
  /**
   * How long "Review changes" may take before it answers Slack anyway (Slack allows three
   * seconds for a view submission, from the click, and the network takes its share).
   */
  reviewDeadlineMs: number;
  /**
   * How long an opening waits for the editor's data before it shows "Loading…" and fills the
   * modal in later (LOADING_VIEW_AFTER_MS).
   */
  loadingViewAfterMs: number;
}

/**
 * An opening whose data is not at hand this long after the check shows "Loading…" first: long
 * enough for the cached role list and the store, short enough that the click feels answered.
 */
export const LOADING_VIEW_AFTER_MS = 400;

/** "`role`" with one app, "`role` in *staging*" with several. */
export function roleIn(role: string, label: AppLabel): string {
  return `${code(role)}${inApp(label.appName)}`;
}

/**
 * What an editor is on, in mrkdwn: "`vip`", or "the scope `moderator` of group `hiking`"; with
 * its app when several are configured.
 */
export function editedIn(state: Pick<EditorState, 'role' | 'scope'>, label: AppLabel): string {
  return state.scope
    ? `the ${scopeName(state.scope)}${inApp(label.appName)}`
    : roleIn(state.role, label);
}

/** A failure as the editor's modal shows it, with the request's reference. */
export function editorFailure(error: unknown, deps: FeatureDeps): View {
  return failureView(failureSentence(error, deps), currentRequest().ref);
}

/** The failure in the editor's modal, then rethrown (see failInModal). */
export function failInEditor(
  target: ModalTarget,
  error: unknown,
  deps: FeatureDeps,
): Promise<never> {
  const view = editorFailure(error, deps);
  return failInModal(deps.views, target, view, error, currentRequest().log);
}
