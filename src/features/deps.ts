import type { Button, KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Access } from '../access/access.ts';
import type { Apps, CometChatApp } from '../apps/apps.ts';
import type { AuditTrail } from '../changes/index.ts';
import type { Call } from '../cometchat/model.ts';
import type { WebhookOutcome } from '../observe/metrics.ts';
import type { Deliverer, SlackMessage } from '../slack/deliver.ts';
import type { TimeZones } from '../slack/time-zones.ts';
import type { Views } from '../slack/views.ts';
import type { Store } from '../store/store.ts';

/** What most of a feature's work needs. */
export interface FeatureDeps {
  /** The CometChat apps; each feature acts on the one a command or a signed value names. */
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
  /** Waits `ms` (injected in tests of what waits, so that they need not). */
  sleep: (ms: number) => Promise<void>;
  /** The CometChat time budget of one request. */
  budgetMs: number;
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
  /** Names this installation in the store: a hash of the bot token (installation.ts). */
  installation: string;
  /** Audit records older than this many days are removed daily; undefined: kept for ever. */
  auditRetentionDays?: number | undefined;
}

/**
 * The subscriptions of the channels a person is in, a line each, as the Home tab shows them;
 * `partial`: not every channel was read. The alerts feature reads them, the Home draws them.
 */
export interface ChannelAlerts {
  lines: readonly string[];
  partial: boolean;
}

/**
 * One of the last changes, as the Home tab shows it: its line, its app, and for an applied change
 * its _Revert_ button (signed for the app; shown to the app's editors). The audit feature reads
 * them, the Home draws them.
 */
export interface RecentChange {
  line: string;
  app: string;
  revert?: Button | undefined;
}

/** What every feature is registered with. */
export interface AppDeps extends SharedDeps {
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
 * Opens the permission editor for a role with a trigger, after its own checks. Defined here
 * because the Home tab opens it too (the permissions feature implements it).
 */
export type EditorOpener = (
  triggerId: string,
  app: CometChatApp,
  role: string,
  userId: string,
) => Promise<void>;
