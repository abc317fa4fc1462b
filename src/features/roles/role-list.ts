import type { App } from '@slack/bolt';
import { z } from 'zod';
import { destinationOf } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import { parseValue } from '../../slack/values.ts';
import type { FeatureDeps } from '../deps.ts';
import { ROLES_PER_PAGE, roleListMessage } from './role-list-view.ts';

const PageValue = z.object({ page: z.number().int().min(1).max(10_000) });

/** Fetches one page of roles and renders it. */
export function createRoleList({ cometchat }: Pick<FeatureDeps, 'cometchat'>) {
  return async (page: number, scope: RequestScope) =>
    roleListMessage(
      await cometchat.listRoles(
        { page, perPage: ROLES_PER_PAGE },
        { ref: scope.ref, logger: scope.log },
      ),
    );
}

/** `/cometchat roles [page]`: answered through the command's response_url. */
export function createRolesCommand(deps: FeatureDeps) {
  const render = createRoleList(deps);
  return async (page: number, body: unknown, scope: RequestScope) => {
    await deps.deliver(destinationOf(body), await render(page, scope), scope.log);
  };
}

/** The page buttons replace the list in place; "Share in channel" posts it for everyone. */
export function registerRoleList(app: App, deps: FeatureDeps): void {
  const render = createRoleList(deps);
  app.action(new RegExp(`^${ACTIONS.rolesPage}`), async ({ ack, body, action, context }) => {
    await ack();
    const scope = scopeOf(context);
    const { page } = parseValue(PageValue, 'value' in action ? action.value : undefined);
    const message = await render(page, scope);
    await deps.deliver(destinationOf(body), { ...message, replace_original: true }, scope.log);
  });
  app.action(ACTIONS.shareRoles, async ({ ack, body, action, context }) => {
    await ack();
    const scope = scopeOf(context);
    const { page } = parseValue(PageValue, 'value' in action ? action.value : undefined);
    const message = await render(page, scope);
    await deps.deliver(
      destinationOf(body),
      { ...withoutActions(message), response_type: 'in_channel', replace_original: false },
      scope.log,
    );
  });
}

/** A shared copy has no buttons: they would act for whoever clicks them, not the sharer. */
export function withoutActions<M extends { blocks?: { type: string }[] }>(message: M): M {
  return message.blocks
    ? { ...message, blocks: message.blocks.filter((b) => b.type !== 'actions') }
    : message;
}
