import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import {
  appNameIfMultiple,
  type CometChatApp,
  roleButtonValue,
  valueWriter,
} from '../../apps/apps.ts';
import { countHolders } from '../../apps/holders.ts';
import { sharedCopy } from '../../slack/blocks.ts';
import type { Respond } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { eachSettledWithin } from '../../slack/request-context.ts';
import { PageSchema } from '../../slack/values.ts';
import type { FeatureDeps } from '../deps.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import { ROLES_PER_PAGE, roleListMessage } from './role-list-view.ts';

const PageValue = z.object({ page: PageSchema });

/**
 * How long the list waits for the counts of its roles' users once it has the roles. Counts are
 * cached briefly per app and a late one still lands in the cache, so the next page or the list
 * asked again shows it; until then it shows as unknown rather than hold the list.
 */
const HOLDERS_WAIT_MS = 500;

/** How many users hold each role, as far as CometChat says within the wait. */
async function holdersOf(app: CometChatApp, roles: readonly { role: string }[]) {
  const counts = await eachSettledWithin(
    roles.map((r) => countHolders(app, r.role)),
    HOLDERS_WAIT_MS,
  );
  return new Map(roles.map((r, i) => [r.role, counts[i]]));
}

/** Fetches one page of an app's roles, and how many users hold each, and renders it. */
export function createRoleList({ apps }: Pick<FeatureDeps, 'apps'>) {
  return async (app: CometChatApp, page: number) => {
    const result = await app.cometchat.listRoles({ page, perPage: ROLES_PER_PAGE });
    return roleListMessage(result, {
      value: valueWriter(app),
      roleValue: (role) => roleButtonValue(app, role),
      appName: appNameIfMultiple(apps, app),
      holders: await holdersOf(app, result.roles),
    });
  };
}

/** `/cometchat [app] roles [page]`: answered through the command's response_url. */
export function createRolesCommand(deps: FeatureDeps) {
  const render = createRoleList(deps);
  return async (app: CometChatApp, page: number, respond: Respond) => {
    await respond(await render(app, page));
  };
}

const renderPage = (deps: Pick<FeatureDeps, 'apps'>) => {
  const render = createRoleList(deps);
  return (app: CometChatApp, value: { page: number }) => render(app, value.page);
};

/** A page button: the list replaced in place by the page it names. */
export function createRolesPage(deps: FeatureDeps) {
  return signedButton(deps, PageValue, renderPage(deps), inPlace);
}

/** "Share in channel": the same page, without buttons, for everyone. */
export function createShareRoles(deps: FeatureDeps) {
  return signedButton(deps, PageValue, renderPage(deps), sharedCopy);
}

export function registerRoleList(bolt: App, deps: FeatureDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.rolesPage}`),
    createRolesPage(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.shareRoles, createShareRoles(deps));
}
