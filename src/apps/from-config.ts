import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Access, createAccess } from '../access/access.ts';
import { withAppFailures } from '../cometchat/app-failures.ts';
import { type CometChatClient, createCometChatClient } from '../cometchat/client.ts';
import { withRoleCache } from '../cometchat/role-cache.ts';
import { appEnvPrefix, type CometChatAppConfig, type Config } from '../config.ts';
import type { Metrics } from '../observe/metrics.ts';
import { type ApprovalReminder, type Apps, createApps } from './apps.ts';

export interface AppsDeps {
  logger: Logger;
  metrics: Metrics;
  /** For the access checks (users.info, usergroups): a client that does not wait out a 429. */
  accessClient: WebClient;
  /** Injected in tests: one client for every app. */
  cometchat?: CometChatClient | undefined;
}

/**
 * The configured CometChat apps, each with its client and its access rules, and the workspace's
 * access (who may use the app at all: VIEWERS, and anyone who may edit one of the apps).
 */
export function appsFromConfig(config: Config, deps: AppsDeps): { apps: Apps; access: Access } {
  const viewers = config.access.viewers && [
    ...config.access.viewers,
    ...config.cometchat.apps.flatMap((settings) => [
      ...(settings.editors ?? []),
      ...(settings.moderators ?? []),
    ]),
  ];
  const accessOf = (
    editors: readonly string[] | undefined,
    editorsSetting?: string,
    moderation?: Pick<CometChatAppConfig, 'moderators' | 'moderatorsSetting'>,
  ) =>
    createAccess({
      client: deps.accessClient,
      editors,
      viewers,
      ...(editorsSetting !== undefined && { editorsSetting }),
      moderators: moderation?.moderators,
      moderatorsSetting: moderation?.moderatorsSetting,
    });
  const apps = createApps(
    config.cometchat.apps.map((settings) => ({
      name: settings.name,
      appId: settings.appId,
      region: settings.region,
      apiKey: settings.apiKey,
      cometchat: clientFor(config, settings, deps),
      // Each app's own editors (COMETCHAT_<NAME>_EDITORS, else EDITORS) decide who edits it.
      // Its moderators (COMETCHAT_<NAME>_MODERATORS, else MODERATORS, else its editors) decide
      // on its flagged and blocked messages.
      access: accessOf(settings.editors, settings.editorsSetting, settings),
      moderationApproval: settings.moderationApproval === true,
      approval: settings.approvalChannel
        ? {
            channel: settings.approvalChannel,
            ttlMs: config.approvalTtlHours * 60 * 60 * 1000,
            reminder: reminderOf(config, settings),
            // APPROVERS narrows who of the app's editors may approve.
            approvers: settings.approvers
              ? accessOf(settings.approvers, settings.approversSetting)
              : undefined,
          }
        : undefined,
      webhook: settings.webhook,
    })),
    config.cometchat.channelApps,
  );
  return { apps, access: accessOf(config.access.editors) };
}

/** When an app's requests remind their approvers, and whom they mention; none when 0. */
function reminderOf(config: Config, settings: CometChatAppConfig): ApprovalReminder | undefined {
  if (config.approvalReminderMinutes === 0) return undefined;
  return {
    afterMs: config.approvalReminderMinutes * 60_000,
    approvers: settings.approvers ?? settings.editors ?? [],
    moderators: settings.moderators ?? settings.editors ?? [],
  };
}

/** One client per CometChat app, each with its own role-list cache. */
function clientFor(config: Config, settings: CometChatAppConfig, deps: AppsDeps): CometChatClient {
  const client =
    deps.cometchat ??
    createCometChatClient({
      apiUrl: settings.apiUrl,
      callApiUrl: settings.callApiUrl,
      apiKey: settings.apiKey,
      secrets: config.secrets,
      timeoutMs: config.cometchat.timeoutMs,
      budgetMs: config.cometchat.budgetMs,
      logger: deps.logger.child({ component: 'cometchat', app: settings.name }),
      observe: deps.metrics,
    });
  const cached =
    config.cometchat.roleCacheSeconds > 0
      ? withRoleCache(client, { ttlMs: config.cometchat.roleCacheSeconds * 1000 })
      : client;
  // With several apps, a failure says which app it is about (and which key setting).
  return config.cometchat.apps.length > 1
    ? withAppFailures(cached, {
        name: settings.name,
        settingPrefix: appEnvPrefix(settings.name),
      })
    : cached;
}
