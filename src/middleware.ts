import type { App } from '@slack/bolt';
import { type Access, requireViewer } from './access/access.ts';
import type { Apps } from './apps/apps.ts';
import { SUBCOMMAND_NAMES } from './features/index.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './observe/metrics.ts';
import { observeRequests } from './observe/observe-requests.ts';
import { createErrorHandler } from './replies/error-handler.ts';
import { noticeMessage } from './slack/blocks.ts';
import type { SlackClients } from './slack/clients.ts';
import { type Deliverer, destinationOf } from './slack/deliver.ts';
import type { Inflight } from './slack/inflight.ts';
import { refuseOtherWorkspaces } from './slack/one-workspace.ts';
import { requestContext } from './slack/request-context.ts';
import { acknowledgeUnanswered } from './slack/unanswered.ts';
import { heldInFlight } from './stop.ts';

// What every Slack request goes through before its listener, and the handler of its failure
// after: one list, in order, for the composition root (app.ts) to give Bolt's app.

export interface RequestParts {
  logger: Logger;
  metrics: Metrics;
  /** The configured CometChat apps (a command's first word may name one). */
  apps: Pick<Apps, 'all'>;
  /** The team the bot token belongs to, and the views the error handler may show a failure in. */
  slack: Pick<SlackClients, 'installedTeam' | 'views'>;
  access: Access;
  inflight: Inflight;
  deliver: Deliverer;
  budgetSeconds: number;
  secrets: readonly string[];
}

export function handleRequests(app: App, parts: RequestParts): void {
  const { logger, metrics, access, inflight, deliver, slack } = parts;
  const appNames = parts.apps.all.map((a) => a.name);
  // Every request, in this order: its reference and logger, the workspace check, the count and
  // the span, the in-flight tally a stop waits for, VIEWERS; last, what no listener acknowledged.
  for (const middleware of [
    requestContext(logger),
    refuseOtherWorkspaces(slack.installedTeam),
    observeRequests(metrics, appNames, SUBCOMMAND_NAMES),
    inflight.middleware,
    requireViewer(access, (body, sentence, log) =>
      deliver(destinationOf(body), noticeMessage(sentence), log).then(() => undefined),
    ),
    acknowledgeUnanswered(),
  ]) {
    app.use(middleware);
  }
  app.error(heldInFlight(inflight, createErrorHandler({ ...parts, views: slack.views })));
}
