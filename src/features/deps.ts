import type { Logger } from 'pino';
import type { Apps, CometChatApp } from '../apps/apps.ts';
import type { Deliverer } from '../slack/deliver.ts';
import type { RequestScope } from '../slack/request-context.ts';
import type { Views } from '../slack/views.ts';
import type { AuditRecord } from '../store/store.ts';

/** What every feature is built from; the composition root (app.ts) supplies it. */
export interface FeatureDeps {
  /** The CometChat apps; each feature acts on the one a command or a sealed value names. */
  apps: Apps;
  deliver: Deliverer;
  /** Modals and the Home tab. */
  views: Views;
  /** The CometChat time budget in seconds, for messages that mention it. */
  budgetSeconds: number;
}

/**
 * Where attempted changes are kept. Defined here, not in the audit feature that implements it,
 * because features do not import each other: the editor records, the audit feature lists.
 */
export interface AuditTrail {
  /**
   * Keeps the record: the store first (before the user hears anything), then a structured log
   * event, then the audit channel. A failed post loses nothing; a failed store write leaves the
   * whole record in the log at error level and is reported to the caller.
   */
  record(record: AuditRecord, log: Logger): Promise<{ stored: boolean }>;
}

/**
 * Opens the permission editor for a role with a trigger, after its own checks. Defined here
 * because the Home tab opens it too (the permissions feature implements it).
 */
export type EditorOpener = (
  triggerId: string,
  app: CometChatApp,
  role: string,
  userId: string,
  scope: RequestScope,
) => Promise<void>;
