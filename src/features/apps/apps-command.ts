import type { Logger } from 'pino';
import type { CometChatApp } from '../../apps/apps.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { newReference } from '../../reference.ts';
import { destinationOf } from '../../slack/deliver.ts';
import type { RequestScope } from '../../slack/request-context.ts';
import { tracedBy } from '../../slack/request-context.ts';
import { failureSentence, type SentenceDeps } from '../../voice/failure.ts';
import type { FeatureDeps } from '../deps.ts';
import { type AppStatus, appsMessage, type KeyCheck } from './apps-view.ts';

/** Asks for one role: the cheapest request that needs a working key. Never throws. */
export async function checkKey(
  app: CometChatApp,
  scope: RequestScope,
  deps: SentenceDeps,
): Promise<KeyCheck> {
  try {
    await app.cometchat.listRoles({ page: 1, perPage: 1 }, tracedBy(scope));
    return { state: 'working' };
  } catch (error) {
    scope.log.warn({ app: app.name, err: error }, 'apps: key check failed');
    if (isCometChatError(error) && error.kind === 'unauthorized') {
      return { state: 'refused', ref: scope.ref };
    }
    return { state: 'unreachable', ref: scope.ref, reason: failureSentence(error, deps) };
  }
}

/** `/cometchat apps`: every app checked at once, so one slow app does not hold the others. */
export function createAppsCommand(deps: FeatureDeps) {
  return async (body: unknown, scope: RequestScope) => {
    const first = deps.apps.all[0]?.name;
    const statuses: AppStatus[] = await Promise.all(
      deps.apps.all.map(async (app) => ({
        name: app.name,
        appId: app.appId,
        region: app.region,
        isDefault: app.name === first,
        channels: deps.apps.channelsOf(app.name),
        check: await checkKey(app, scope, deps),
      })),
    );
    await deps.deliver(destinationOf(body), appsMessage(statuses), scope.log);
  };
}

/**
 * At start, each app's key and both its addresses are tried once (a role, a page of one call),
 * and what was found is logged: a wrong setting shows in the log before anyone runs a command.
 * Never awaited by the start, and never throws.
 */
export async function checkAppsAtStart(
  deps: Pick<FeatureDeps, 'apps' | 'budgetSeconds' | 'secrets'>,
  log: Logger,
): Promise<void> {
  await Promise.all(
    deps.apps.all.map(async (app) => {
      const ref = newReference();
      const request = { ref, logger: log };
      const tried = await Promise.allSettled([
        app.cometchat.listRoles({ page: 1, perPage: 1 }, request),
        app.cometchat.listCalls({ page: 1, perPage: 1 }, request),
      ]);
      const [roles, calls] = tried.map((t) =>
        t.status === 'fulfilled' ? 'ok' : failureSentence(t.reason, deps),
      );
      if (roles === 'ok' && calls === 'ok')
        log.info({ app: app.name, ref }, 'CometChat app checked: key and addresses work');
      else
        log.warn(
          { app: app.name, ref, roles, calls },
          'CometChat app checked: a setting or the service is not right',
        );
    }),
  );
}
