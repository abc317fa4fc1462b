import type { Logger } from 'pino';
import type { CometChatApp } from '../../apps/apps.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { failureSentence, type SentenceDeps } from '../../replies/failure.ts';
import { currentRequest } from '../../request-context.ts';
import type { Respond } from '../../slack/deliver.ts';
import type { FeatureDeps } from '../deps.ts';
import { asJob } from '../job.ts';
import { type AppStatus, appsMessage, type KeyCheck } from './apps-view.ts';

/** Asks for one role: the cheapest request that needs a working key. Never throws. */
export async function checkKey(app: CometChatApp, deps: SentenceDeps): Promise<KeyCheck> {
  try {
    await app.cometchat.listRoles({ page: 1, perPage: 1 });
    return { state: 'working' };
  } catch (error) {
    const { log, ref } = currentRequest();
    log.warn({ app: app.name, err: error }, 'apps: key check failed');
    if (isCometChatError(error) && error.kind === 'unauthorized') {
      return { state: 'refused', ref };
    }
    return { state: 'unreachable', ref, reason: failureSentence(error, deps) };
  }
}

/** `/cometchat apps`: every app checked at once, so one slow app does not hold the others. */
export function createAppsCommand(deps: FeatureDeps) {
  return async (respond: Respond) => {
    const first = deps.apps.all[0]?.name;
    const statuses: AppStatus[] = await Promise.all(
      deps.apps.all.map(async (app) => ({
        name: app.name,
        appId: app.appId,
        region: app.region,
        isDefault: app.name === first,
        channels: deps.apps.channelsOf(app.name),
        check: await checkKey(app, deps),
      })),
    );
    await respond(appsMessage(statuses));
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
    // Each app's check under a reference of its own, which its requests and its line carry.
    deps.apps.all.map((app) =>
      asJob(log, { app: app.name }, (appLog) => checkApp(app, deps, appLog)),
    ),
  );
}

async function checkApp(
  app: CometChatApp,
  deps: Pick<FeatureDeps, 'budgetSeconds' | 'secrets'>,
  log: Logger,
): Promise<void> {
  const tried = await Promise.allSettled([
    app.cometchat.listRoles({ page: 1, perPage: 1 }),
    app.cometchat.listCalls({ page: 1, perPage: 1 }),
  ]);
  const [roles, calls] = tried.map((t) =>
    t.status === 'fulfilled' ? 'ok' : failureSentence(t.reason, deps),
  );
  if (roles === 'ok' && calls === 'ok') {
    log.info('CometChat app checked: key and addresses work');
  } else {
    log.warn({ roles, calls }, 'CometChat app checked: a setting or the service is not right');
  }
}
