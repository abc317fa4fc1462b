import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Apps, appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import type { AuditTrail } from '../../changes/index.ts';
import { RoleIdSchema } from '../../cometchat/schemas.ts';
import type { Metrics } from '../../observe/metrics.ts';
import { type Respond, slackErrorCode } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { PageSchema } from '../../slack/values.ts';
import type { AuditRecord, Store } from '../../store/store.ts';
import type { FeatureDeps } from '../deps.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import { createAuditPosts, postOf } from './audit-posts.ts';
import { AUDIT_PER_PAGE, type AuditQuery, auditMessage } from './audit-view.ts';

export function createAuditTrail(deps: {
  store: Store;
  /**
   * Used for the channel post only. Give it a client of its own that neither retries nor waits
   * out a 429 (see AuditPostsDeps): the store retries, and a WebClient that waits out a 429
   * pauses every call it makes meanwhile, and the audit channel (about one post a second) must
   * not stall the app's replies and modals.
   */
  client: WebClient;
  channel: string | undefined;
  now: () => number;
  metrics?: Pick<Metrics, 'permissionUpdate' | 'auditWrite' | 'auditPostFailure'> | undefined;
  /** The apps whose signature a post's _Revert_ carries. */
  apps?: Pick<Apps, 'byName'> | undefined;
}): AuditTrail & { retryPosts(log: Logger): Promise<number> } {
  const posts = createAuditPosts(deps);

  /** A post whose record the store did not keep cannot be kept either: tried once. */
  async function postUnkept(channel: string, record: AuditRecord, log: Logger) {
    try {
      await deps.client.chat.postMessage(postOf(deps.apps, record, channel));
    } catch (error) {
      deps.metrics?.auditPostFailure();
      log.warn(
        { cause: slackErrorCode(error), channel, ref: record.ref },
        'audit post failed; the record is not in the store, so the post is not tried again (the record is in the log)',
      );
    }
  }

  return {
    async record(record, log) {
      const { channel } = deps;
      let stored = true;
      try {
        // The post is kept with the record, in the same step: neither a Slack failure nor a
        // stop before Slack takes it loses it (createAuditPosts tries it again).
        await deps.store.appendAudit(record, channel);
      } catch (error) {
        stored = false;
        log.error({ err: error, audit: record }, 'audit record could not be stored');
      }
      deps.metrics?.auditWrite(stored ? 'stored' : 'failed');
      deps.metrics?.permissionUpdate(record.outcome);
      log.info(
        { event: 'permission_change', audit: record },
        `permission change ${record.outcome}`,
      );
      if (channel === undefined) return { stored };
      if (stored) await posts.first({ record, channel, attempts: 0, dueAt: record.at }, log);
      else await postUnkept(channel, record, log);
      return { stored };
    },
    retryPosts: posts.retry,
  };
}

const QueryValue = z.object({
  role: RoleIdSchema.optional(),
  page: PageSchema,
});

/** One page of an app's audit records, narrowed to a role when asked. */
function createAuditList(deps: { store: Store } & Pick<FeatureDeps, 'apps'>) {
  return async (app: CometChatApp, query: AuditQuery) => {
    const page = await deps.store.listAudit({
      app: app.name,
      role: query.role,
      offset: (query.page - 1) * AUDIT_PER_PAGE,
      limit: AUDIT_PER_PAGE,
    });
    return auditMessage(page, query, {
      value: valueWriter(app),
      appName: appNameIfMultiple(deps.apps, app),
    });
  };
}

/** `/cometchat [app] audit [role] [page]`: the page, as the reply to the command. */
export function createAuditCommand(deps: FeatureDeps & { store: Store }) {
  const list = createAuditList(deps);
  return async (app: CometChatApp, query: AuditQuery, respond: Respond) => {
    await respond(await list(app, query));
  };
}

/** The audit list's page buttons: the list replaced in place. */
function createAuditPage(deps: FeatureDeps & { store: Store }) {
  const list = createAuditList(deps);
  return signedButton(deps, QueryValue, (app, query) => list(app, query), inPlace);
}

export function registerAuditList(bolt: App, deps: FeatureDeps & { store: Store }): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.auditPage}`),
    createAuditPage(deps),
  );
}
