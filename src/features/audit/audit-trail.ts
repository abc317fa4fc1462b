import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import { appNameIfSeveral, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { RoleIdSchema } from '../../cometchat/schemas.ts';
import type { Metrics } from '../../observe/metrics.ts';
import { destinationOf, slackErrorCode } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import { PageSchema } from '../../slack/values.ts';
import type { AuditRecord, Store } from '../../store/store.ts';
import type { AuditTrail, FeatureDeps } from '../deps.ts';
import { inPlace, sealedButton } from '../sealed-button.ts';
import { AUDIT_PER_PAGE, type AuditQuery, auditMessage, auditPost } from './audit-view.ts';

export function createAuditTrail(deps: {
  store: Store;
  /**
   * Used for the channel post only. Give it a client of its own that rejects rate-limited
   * calls: a WebClient that waits out a 429 pauses every call it makes meanwhile, and the
   * audit channel (about one post a second) must not stall the app's replies and modals.
   */
  client: WebClient;
  channel: string | undefined;
  metrics?: Pick<Metrics, 'permissionUpdate' | 'auditWrite' | 'auditPostFailure'> | undefined;
}): AuditTrail {
  /**
   * Posts the record to the channel. A rate-limited first attempt is tried once more after
   * Retry-After, in the background: the person who made the change is not kept waiting for a
   * notification, and the record is already in the store and the log.
   */
  async function post(channel: string, record: AuditRecord, log: Logger, first: boolean) {
    try {
      await deps.client.chat.postMessage({ channel, ...auditPost(record) });
    } catch (error) {
      const retryAfter = (error as { code?: unknown; retryAfter?: unknown }).retryAfter;
      if (
        first &&
        (error as { code?: unknown }).code === ErrorCode.RateLimitedError &&
        typeof retryAfter === 'number'
      ) {
        log.warn(
          { retryAfter, channel, ref: record.ref },
          'audit post rate limited; trying again after Retry-After',
        );
        setTimeout(() => void post(channel, record, log, false), retryAfter * 1000).unref();
        return;
      }
      deps.metrics?.auditPostFailure();
      log.warn(
        { cause: slackErrorCode(error), channel, ref: record.ref },
        'audit post failed; the record is kept in the store and the log',
      );
    }
  }

  return {
    async record(record, log) {
      let stored = true;
      try {
        await deps.store.appendAudit(record);
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
      if (deps.channel) await post(deps.channel, record, log, true);
      return { stored };
    },
  };
}

const QueryValue = z.object({
  role: RoleIdSchema.optional(),
  page: PageSchema,
});

/** One page of an app's audit records, narrowed to a role when asked. */
export function createAuditList(deps: { store: Store } & Pick<FeatureDeps, 'apps'>) {
  return async (app: CometChatApp, query: AuditQuery) => {
    const page = await deps.store.listAudit({
      app: app.name,
      role: query.role,
      offset: (query.page - 1) * AUDIT_PER_PAGE,
      limit: AUDIT_PER_PAGE,
    });
    return auditMessage(page, query, {
      value: valueWriter(app),
      appName: appNameIfSeveral(deps.apps, app),
    });
  };
}

/** `/cometchat [app] audit [role] [page]` and its page buttons. */
export function createAuditCommand(deps: FeatureDeps & { store: Store }) {
  const list = createAuditList(deps);
  return async (app: CometChatApp, query: AuditQuery, body: unknown, scope: RequestScope) => {
    await deps.deliver(destinationOf(body), await list(app, query), scope.log);
  };
}

/** The audit list's page buttons: the list replaced in place. */
export function createAuditPage(deps: FeatureDeps & { store: Store }) {
  const list = createAuditList(deps);
  return sealedButton(deps, QueryValue, (app, query) => list(app, query), inPlace);
}

export function registerAuditList(bolt: App, deps: FeatureDeps & { store: Store }): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.auditPage}`),
    createAuditPage(deps),
  );
}
