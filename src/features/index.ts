import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { registerChanges } from '../changes/index.ts';
import type { HttpRoute } from '../observe/readiness.ts';
import { alerts, homeAlerts, webhookRoute } from './alerts/index.ts';
import { approvals, homeApprovals } from './approvals/index.ts';
import { apps } from './apps/index.ts';
import { audit, recentChanges } from './audit/index.ts';
import { callCardBlocks, calls } from './calls/index.ts';
import { registerCommand } from './command.ts';
import { compare } from './compare/index.ts';
import type { AppDeps, SharedDeps } from './deps.ts';
import type { Feature } from './feature.ts';
import { groups } from './groups/index.ts';
import { helpMessage } from './help/help-view.ts';
import { help } from './help/index.ts';
import { createHome, registerHome } from './home/home.ts';
import { install, unlessStopped } from './install/index.ts';
import { messages } from './messages/index.ts';
import { homeModeration, moderation } from './moderation/index.ts';
import { editorOpener, permissions } from './permissions/index.ts';
import { roles } from './roles/index.ts';
import { rules } from './rules/index.ts';
import { registerUnfurls } from './unfurl.ts';
import { users } from './users/index.ts';

// The features, and the one place that knows them all. A new feature is a folder exporting a
// Feature, and a line in FEATURES.

/** In the order help lists their subcommands. */
export const FEATURES: readonly Feature[] = [
  roles,
  compare,
  permissions,
  approvals,
  users,
  groups,
  messages,
  moderation,
  calls,
  alerts,
  rules,
  audit,
  apps,
  help,
  install,
];

/** Every subcommand of `/cometchat`. */
export const SUBCOMMANDS = FEATURES.flatMap((feature) => feature.subcommands);

/** Every kind of dashboard link a feature shows as a card. */
export const UNFURLERS = FEATURES.flatMap((feature) => feature.unfurlers ?? []);

/** The words that name one: no app may be called by one of them (loadConfig checks it). */
export const SUBCOMMAND_NAMES = SUBCOMMANDS.flatMap((s) => s.names);

export interface Features {
  /** Registers every feature's listeners, the Home tab, `/cometchat` and link cards with Bolt. */
  register(bolt: App): void;
  /**
   * Where CometChat's webhooks arrive (`/cometchat/webhooks/:app`), ready to answer: made before
   * the listener, which is given it when it is made.
   */
  webhookRoute: HttpRoute;
  /** Runs every feature's periodic work once (the composition root runs it every minute). */
  periodic(log: Logger): Promise<unknown>;
  /** What features do once the app has started (the start does not wait for it). */
  atStart(log: Logger): Promise<unknown>;
}

/**
 * The features over what the composition root gives them. The Home tab is drawn from three
 * features' parts (approvals, recent changes, the alerts in the person's channels) and opens
 * the permissions feature's editor, and the road of changes publishes it again after an
 * approval: so it is made here, first, from their parts.
 */
export function createFeatures(shared: SharedDeps): Features {
  const home = createHome({
    ...shared,
    parts: {
      approvals: homeApprovals(shared),
      recentChanges: recentChanges(shared),
      alertsInChannels: homeAlerts(shared),
      moderation: homeModeration(shared),
    },
  });
  const names = shared.apps.all.map((a) => a.name);
  const deps: AppDeps = {
    ...shared,
    help: () => helpMessage(SUBCOMMANDS, names),
    refreshHome: home.publish,
    callCard: callCardBlocks(shared.apps),
  };
  return {
    register(bolt) {
      for (const feature of FEATURES) feature.register(bolt, deps);
      registerChanges(bolt, deps);
      registerHome(bolt, deps, home, editorOpener(deps));
      registerCommand(bolt, SUBCOMMANDS, deps);
      registerUnfurls(bolt, UNFURLERS, deps);
    },
    webhookRoute: webhookRoute(deps),
    // None once the app is uninstalled or its token revoked: every call to Slack would fail.
    periodic: unlessStopped(deps, (log) =>
      Promise.all(FEATURES.map((feature) => feature.periodic?.(deps, log))),
    ),
    atStart: (log) => Promise.all(FEATURES.map((feature) => feature.atStart?.(deps, log))),
  };
}
