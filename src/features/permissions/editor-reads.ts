import type { CometChatApp } from '../../apps/apps.ts';
import type { Catalogue } from '../../cometchat/catalogue.ts';
import { readScopeCatalogue } from '../../cometchat/scope-catalogue.ts';
import { currentRequest } from '../../request-context.ts';
import type { KnownPermissions, Store } from '../../store/store.ts';
import { type RoleContext, roleContext } from './editor-flow.ts';
import type { EditorState, ScopeRef } from './editor-state.ts';

// What an open editor reads again at each step (a category switch, a review, a redraw): what it
// is on, its keys and the last known values. A role's come from the role list and the app's
// catalogue; a group's scope's from the group and the keys CometChat lists for that scope.

export interface EditorReads {
  /** The role's name and the app's role ids; for a group's scope, the group's name and none. */
  roles: RoleContext;
  catalogue: Catalogue;
  known: KnownPermissions | undefined;
}

/** A scope's keys in one app, the shipped ones standing in (and said) when they cannot be read. */
export function scopeCatalogue(app: CometChatApp, ref: ScopeRef): Promise<Catalogue> {
  return readScopeCatalogue(app.cometchat, ref.guid, ref.scope, (error) =>
    currentRequest().log.warn(
      { err: error, app: app.name, guid: ref.guid, scope: ref.scope },
      'scope permission definitions not read: the shipped keys stand in',
    ),
  );
}

/** The keys an editor shows: the app's catalogue for a role, the scope's for a group's scope. */
export function catalogueFor(app: CometChatApp, state: Pick<EditorState, 'scope'>) {
  return state.scope ? scopeCatalogue(app, state.scope) : app.catalogue();
}

/** The group's name where a role's would be; a group has no role ids to offer. */
async function scopeContext(app: CometChatApp, ref: ScopeRef): Promise<RoleContext> {
  const group = await app.cometchat.getGroup(ref.guid);
  return { roleName: group.name || ref.guid, roleIds: [] };
}

/** What the editor on `state` is drawn with, read together. */
export async function editorReads(
  deps: { store: Pick<Store, 'getKnownPermissions'> },
  app: CometChatApp,
  state: Pick<EditorState, 'role' | 'scope'>,
): Promise<EditorReads> {
  const [roles, catalogue, known] = await Promise.all([
    state.scope
      ? scopeContext(app, state.scope)
      : app.cometchat.listAllRoles().then((all) => roleContext(all, state.role)),
    catalogueFor(app, state),
    deps.store.getKnownPermissions(app.name, state.role),
  ]);
  return { roles, catalogue, known };
}
