import type { KnownBlock, View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Access } from '../access/access.ts';
import type { Apps, CometChatApp } from '../apps/apps.ts';
import type { Call } from '../cometchat/model.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import type { WebhookOutcome } from '../observe/metrics.ts';
import type { Deliverer, SlackMessage } from '../slack/deliver.ts';
import type { RequestScope } from '../slack/request-context.ts';
import type { TimeZones } from '../slack/time-zones.ts';
import type { Views } from '../slack/views.ts';
import type { AuditRecord, Store } from '../store/store.ts';

/** What most of a feature's work needs. */
export interface FeatureDeps {
  /** The CometChat apps; each feature acts on the one a command or a sealed value names. */
  apps: Apps;
  deliver: Deliverer;
  /** Modals and the Home tab. */
  views: Views;
  /** The CometChat time budget in seconds, for sentences that mention it. */
  budgetSeconds: number;
  /** Every secret the app holds (Config.secrets, the logger's list), which no sentence shows. */
  secrets: readonly string[];
}

/** What the composition root (app.ts) gives the features; features/index.ts adds the rest. */
export interface SharedDeps extends FeatureDeps {
  /** The app's own Web API client, for what no listener's client covers (periodic jobs). */
  client: WebClient;
  store: Store;
  /**
   * The trail, and `retryPosts`: tries again the audit channel's posts that are due and Slack
   * has not taken (kept in the store with their records), answering how many it made (the
   * audit feature's periodic work).
   */
  audit: AuditTrail & { retryPosts(log: Logger): Promise<number> };
  /** Who may use the app at all (VIEWERS, and every app's editors). */
  access: Access;
  /** Each person's time zone, for the calendar days they type. */
  timeZones: TimeZones;
  now: () => number;
  /** The CometChat time budget of one request. */
  budgetMs: number;
  /** How long an approval request stays open (APPROVAL_TTL_HOURS). */
  approvalTtlMs: number;
  /**
   * A Web API client that gives up at once on a rate limit instead of waiting it out, for reads a
   * person waits on (their channels for the Home tab): a 429 there must not hold the shared
   * client's posts (alerts, audit) behind it.
   */
  lookupClient: WebClient;
  /** The app's logger, for work no Slack request started (a webhook delivery). */
  logger: Logger;
  /** Counts a CometChat webhook delivery by app and outcome (metrics). */
  countWebhook: (app: string, outcome: WebhookOutcome) => void;
}

/** The title of every modal of a change to a user, whichever feature draws it. */
export const USER_CHANGE_TITLE = 'Change a user';

/**
 * A change to one CometChat user, as a person asked for it: its role, or its account (`active`,
 * `deactivated`). Defined here because the users feature asks for it and the permissions
 * feature, which owns every change's confirmation, approval, sending and audit, carries it out.
 */
export interface UserChange {
  uid: string;
  /** The user's name, to name them in the confirmation (escaped where shown). */
  name: string;
  /** The user's role when the change was asked for. */
  role: string;
  key: 'role' | 'status';
  before: string;
  after: string;
  /** What the confirmation says beyond from and to: mrkdwn lines (the permissions it affects). */
  details?: readonly string[] | undefined;
}

/**
 * The confirmation of a user change ("Apply", or "Request approval" where the app asks for
 * approvals), for a modal. `origin` names where it was asked from (a view or trigger id): with the
 * app, the user and the change, it makes the claim that applies it once.
 */
export type UserChangeReview = (app: CometChatApp, change: UserChange, origin: string) => View;

/** The title of every modal of a change to a role itself, whichever feature draws it. */
export const ROLE_CHANGE_TITLE = 'Change a role';

/**
 * A change to a role itself, as a person asked for it: its creation (a name, perhaps a
 * description, and the permissions to set right after), a new name or description, or its
 * deletion. The roles feature asks for it; the permissions feature, which owns every change's
 * confirmation, approval, sending and audit, carries it out.
 */
export interface RoleChange {
  action: 'create' | 'update' | 'delete';
  role: string;
  /** `name`, `description`; a new role's permissions beside them; `role` (to null) to delete. */
  changes: readonly { key: string; before: PermissionValue; after: PermissionValue }[];
  /** What the confirmation asks, in mrkdwn. */
  question: string;
  /** mrkdwn lines under the question: a new role's permissions, who holds a role to delete. */
  details?: readonly string[] | undefined;
}

/** The confirmation of a role change, for a modal (see UserChangeReview for `origin`). */
export type RoleChangeReview = (app: CometChatApp, change: RoleChange, origin: string) => View;

/**
 * The subscriptions of the channels a person is in, a line each, as the Home tab shows them;
 * `partial`: not every channel was read. The alerts feature reads them, the Home draws them.
 */
export interface ChannelAlerts {
  lines: readonly string[];
  partial: boolean;
}

/** What every feature is registered with. */
export interface AppDeps extends SharedDeps {
  /** The confirmation modal of a change to a user (see UserChange). */
  reviewUserChange: UserChangeReview;
  /** The confirmation modal of a change to a role itself (see RoleChange). */
  reviewRoleChange: RoleChangeReview;
  /**
   * A call as the calls feature shows it in a card (its line and Details button), for an alert
   * about it: the alerts feature posts, the calls feature draws.
   */
  callCard: (app: CometChatApp, call: Call) => KnownBlock[];
  /** The help message: every subcommand's usage. */
  help(): SlackMessage;
  /** Publishes a person's Home tab again (after an approval or rejection made there). */
  refreshHome(userId: string, log: Logger): Promise<void>;
}

/**
 * Where attempted changes are kept. Defined here, not in the audit feature that implements it,
 * because features do not import each other: the editor records, the audit feature lists.
 */
export interface AuditTrail {
  /**
   * Keeps the record: the store first (before the user hears anything), with its post to the
   * audit channel, then a structured log event, then the post. A failed post loses nothing (it
   * is tried again from the store); a failed store write leaves the whole record in the log at
   * error level and is reported to the caller.
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
