import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import { destinationOf, slackErrorCode } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import { parseValue } from '../../slack/values.ts';
import type { AuditRecord, Store } from '../../store/store.ts';
import type { FeatureDeps } from '../deps.ts';
import { AUDIT_PER_PAGE, type AuditQuery, auditMessage, auditPost } from './audit-view.ts';

export interface AuditTrail {
  /**
   * Keeps the record: the store first (before the user hears anything), then a structured log
   * event, then the audit channel. A failed post loses nothing; a failed store write leaves the
   * whole record in the log at error level and is reported to the caller.
   */
  record(record: AuditRecord, log: Logger): Promise<{ stored: boolean }>;
}

export function createAuditTrail(deps: {
  store: Store;
  client: WebClient;
  channel: string | undefined;
}): AuditTrail {
  return {
    async record(record, log) {
      let stored = true;
      try {
        await deps.store.appendAudit(record);
      } catch (error) {
        stored = false;
        log.error({ err: error, audit: record }, 'audit record could not be stored');
      }
      log.info(
        { event: 'permission_change', audit: record },
        `permission change ${record.outcome}`,
      );
      if (deps.channel) {
        try {
          await deps.client.chat.postMessage({ channel: deps.channel, ...auditPost(record) });
        } catch (error) {
          log.warn(
            { cause: slackErrorCode(error), channel: deps.channel, ref: record.ref },
            'audit post failed; the record is kept in the store and the log',
          );
        }
      }
      return { stored };
    },
  };
}

const QueryValue = z.object({
  role: z
    .string()
    .regex(/^[a-z0-9_-]{1,100}$/)
    .optional(),
  page: z.number().int().min(1).max(10_000),
});

export function createAuditList(deps: { store: Store }) {
  return async (query: AuditQuery) => {
    const page = await deps.store.listAudit({
      role: query.role,
      offset: (query.page - 1) * AUDIT_PER_PAGE,
      limit: AUDIT_PER_PAGE,
    });
    return auditMessage(page, query);
  };
}

/** `/cometchat audit [role] [page]` and its page buttons. */
export function createAuditCommand(deps: FeatureDeps & { store: Store }) {
  const list = createAuditList(deps);
  return async (query: AuditQuery, body: unknown, scope: RequestScope) => {
    await deps.deliver(destinationOf(body), await list(query), scope.log);
  };
}

export function registerAuditList(app: App, deps: FeatureDeps & { store: Store }): void {
  const list = createAuditList(deps);
  app.action(new RegExp(`^${ACTIONS.auditPage}`), async ({ ack, body, action, context }) => {
    await ack();
    const scope = scopeOf(context);
    const query = parseValue(QueryValue, 'value' in action ? action.value : undefined);
    await deps.deliver(
      destinationOf(body),
      { ...(await list(query)), replace_original: true },
      scope.log,
    );
  });
}
