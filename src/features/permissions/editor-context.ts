import type { View } from '@slack/types';
import type { Logger } from 'pino';
import { appNameIfSeveral, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { section } from '../../slack/blocks.ts';
import type { Destination } from '../../slack/deliver.ts';
import { failInModal, type ModalTarget } from '../../slack/modal-outcome.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import type { Store } from '../../store/store.ts';
import { failureSentence } from '../../voice/failure.ts';
import { failureMessage, inApp } from '../../voice/sentences.ts';
import type { AuditTrail, FeatureDeps } from '../deps.ts';
import type { ConfirmMetadata } from './editor-state.ts';
import { type AppLabel, messageView } from './editor-view.ts';

// What the editor's listeners share: their dependencies, the app a view is about, and how a
// failure is shown in the modal.

export interface EditorDeps extends FeatureDeps {
  store: Store;
  audit: AuditTrail;
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
  /** How long an approval request stays open (APPROVAL_TTL_HOURS). */
  approvalTtlMs: number;
  /** Publishes a person's Home tab again (after an approval or rejection made there). */
  refreshHome?: ((userId: string, log: Logger) => Promise<void>) | undefined;
}

/** A confirmation submitted ("Apply" or "Request approval"), opened for the app it was sealed for. */
export interface Confirmed {
  app: CometChatApp;
  meta: ConfirmMetadata;
  userId: string;
  teamId: string;
  /** The confirmation's modal, and where its outcome goes when the modal is gone. */
  target: { viewId: string; destination: Destination };
  scope: RequestScope;
}

/** The editor check before `views.open` ends this long after the request arrived at most. */
export const OPEN_CHECK_DEADLINE_MS = 2_000;

/**
 * An opening whose data is not at hand this long after the check shows "Loading…" first: long
 * enough for the cached role list and the store, short enough that the click feels answered.
 */
export const LOADING_VIEW_AFTER_MS = 400;

/** The app a view is about, as its views name it and seal what Slack carries back. */
export function appLabel(deps: Pick<FeatureDeps, 'apps'>, app: CometChatApp): AppLabel {
  return { appName: appNameIfSeveral(deps.apps, app), write: valueWriter(app) };
}

/** "`role`" with one app, "`role` in *staging*" with several. */
export function roleIn(role: string, label: AppLabel): string {
  return `${code(role)}${inApp(label.appName)}`;
}

/** A failure as the modal shows it, under `title`; `more` follows the reference. */
export function failureView(
  error: unknown,
  scope: RequestScope,
  deps: FeatureDeps,
  options: { title?: string; more?: string } = {},
): View {
  const message = failureMessage(failureSentence(error, deps), scope.ref);
  const more = options.more ? [section(options.more)] : [];
  return messageView(options.title ?? 'Edit permissions', [...(message.blocks ?? []), ...more]);
}

/** The failure in the editor's modal, then rethrown (see failInModal). */
export function failInEditor(
  target: ModalTarget,
  error: unknown,
  scope: RequestScope,
  deps: FeatureDeps,
  options: { title?: string; more?: string } = {},
): Promise<never> {
  return failInModal(
    deps.views,
    target,
    failureView(error, scope, deps, options),
    error,
    scope.log,
  );
}
