import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple, type CometChatApp, valueWriter } from '../apps/apps.ts';
import type { Deliverer } from '../slack/deliver.ts';
import type { Views } from '../slack/views.ts';
import type { Store } from '../store/store.ts';
import type { AuditTrail } from './record.ts';

// What the road of every change is given, and the few facts of an app its views need.

export interface ChangeDeps {
  /** The CometChat apps; a change acts on the one its signed value names. */
  apps: Apps;
  /** Modals and the Home tab. */
  views: Views;
  /** Replies where Bolt's `respond` cannot reach the person (a modal, the Home tab, a DM). */
  deliver: Deliverer;
  /**
   * The one sentence a person is told of a failure (replies/failure.ts), said with the app's time
   * budget and without its secrets.
   */
  failureSentence(error: unknown): string;
  store: Store;
  audit: AuditTrail;
  now: () => number;
  /** Publishes a person's Home tab again (after an approval or rejection made there). */
  refreshHome?: ((userId: string, log: Logger) => Promise<void>) | undefined;
}

/** A check before `views.open` or `views.push` ends this long after the request arrived at most. */
export const OPEN_CHECK_DEADLINE_MS = 2_000;

/** Which CometChat app a view is about, and how its metadata is written for Slack. */
export interface AppLabel {
  /** Shown when several apps are configured; undefined with one. */
  appName?: string | undefined;
  /** Writes the metadata Slack carries back (signed for the app); plain JSON by default. */
  write?: ((payload: Record<string, unknown>) => string) | undefined;
}

/** The app a view is about, as its views name it and signs what Slack carries back. */
export function appLabel(apps: Pick<Apps, 'multiple'>, app: CometChatApp): AppLabel {
  return { appName: appNameIfMultiple(apps, app), write: valueWriter(app) };
}
