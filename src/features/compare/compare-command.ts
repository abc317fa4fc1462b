import type { CometChatApp } from '../../apps/apps.ts';
import { appNameIfMultiple } from '../../apps/apps.ts';
import { SHIPPED_SCOPE_CATALOGUE } from '../../cometchat/scope-catalogue.ts';
import { inputRefused } from '../../replies/refusals.ts';
import { currentRequest } from '../../request-context.ts';
import type { Respond, SlackMessage } from '../../slack/deliver.ts';
import { knownScopeKey, type Store } from '../../store/store.ts';
import { unknownApp } from '../command.ts';
import type { FeatureDeps } from '../deps.ts';
import { compareKnownMaps } from '../known-maps.ts';
import { compareMessage } from './compare-view.ts';
import type { CompareWords } from './compare-words.ts';

export type CompareDeps = Pick<FeatureDeps, 'apps'> & {
  store: Pick<Store, 'getKnownPermissions'>;
};

/**
 * `/cometchat compare ...`: two known maps read from the store, compared, and told. Nothing is
 * asked of CometChat (it offers no read of a role's permissions, nor of a group's scope's). An app name that names no
 * configured app is refused like any word that cannot be read, before the store is read.
 */
export function createCompareCommand(deps: CompareDeps) {
  return async (words: CompareWords, app: CometChatApp, respond: Respond): Promise<void> => {
    await respond(await answer(deps, words, app));
  };
}

async function answer(
  deps: CompareDeps,
  words: CompareWords,
  app: CometChatApp,
): Promise<SlackMessage> {
  const known = (appName: string, role: string) => deps.store.getKnownPermissions(appName, role);
  if (words.kind === 'roles') {
    const [left, right] = await Promise.all([
      known(app.name, words.role),
      known(app.name, words.other),
    ]);
    return compareMessage(
      {
        kind: 'roles',
        left: words.role,
        right: words.other,
        appName: appNameIfMultiple(deps.apps, app),
      },
      compareKnownMaps(left, right),
    );
  }
  const unknown = [words.app, words.other].find((name) => deps.apps.byName(name) === undefined);
  if (unknown !== undefined) {
    const problem = unknownApp(
      unknown,
      deps.apps.all.map((a) => a.name),
    );
    // Like every refusal, under the request's reference, so a report can be found.
    const { log, ref } = currentRequest();
    log.info({ problem }, 'command refused: malformed input');
    return inputRefused(problem, ref);
  }
  if (words.kind === 'scope') {
    // A scope's last map is known under knownScopeKey, and its keys are the scope's own.
    const key = knownScopeKey(words.guid, words.scope);
    const [left, right] = await Promise.all([known(words.app, key), known(words.other, key)]);
    const { guid, scope } = words;
    return compareMessage(
      { kind: 'scope', guid, scope, left: words.app, right: words.other },
      compareKnownMaps(left, right, SHIPPED_SCOPE_CATALOGUE),
    );
  }
  const [left, right] = await Promise.all([
    known(words.app, words.role),
    known(words.other, words.role),
  ]);
  return compareMessage(
    { kind: 'apps', role: words.role, left: words.app, right: words.other },
    compareKnownMaps(left, right),
  );
}
