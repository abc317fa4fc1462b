import { type Catalogue, SHIPPED_CATALOGUE } from '../../cometchat/catalogue.ts';
import { SHIPPED_SCOPE_CATALOGUE } from '../../cometchat/scope-catalogue.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { Change, ScopePermissionsChange } from '../change.ts';
import { type Kind, NO_FACTS } from './kind.ts';
import { keysAtDefaultDone, sendPermissionMap } from './permissions.ts';

// A group's scope's permissions (`admin`, `moderator`, `participant` in one group): the twin of a
// role's (permissions.ts), sent to `/groups/{guid}/scopes/{scope}/permissions`. CometChat has no
// read of a scope's values either, so "is it still as reviewed?" is asked of the map the app last
// saw for that group's scope (the store, under knownScopeKey): another change of it since the
// review makes it out of date.

/** "scope `moderator` of group `hiking`": what a change of a group's scope acts on. Pure. */
export function scopeName(change: { guid: string; scope: string }): string {
  return `scope ${code(change.scope)} of group ${code(change.guid)}`;
}

/**
 * The keys a change's map has when no app's own are at hand: a scope's shipped keys, or the
 * shipped catalogue for everything else (a role's). Their defaults are a key's "before" when no
 * map was seen. Pure.
 */
export function shippedCatalogueOf(change: Pick<Change, 'kind'>): Catalogue {
  return change.kind === 'scope-permissions' ? SHIPPED_SCOPE_CATALOGUE : SHIPPED_CATALOGUE;
}

export function scopePermissionsKind(change: ScopePermissionsChange): Kind {
  const name = scopeName(change);
  return {
    target: `scope:${change.guid}:${change.scope}`,
    name,
    done: keysAtDefaultDone(change.changes),
    outOfDate: `The ${name} changed since you reviewed this (someone applied another change), so nothing was sent. Open the editor again to review on its new values.`,
    logged: 'scope permissions updated',
    send: (client) =>
      sendPermissionMap(
        {
          name,
          set: (map) => client.setScopePermissions(change.guid, change.scope, map),
          unset: (key) => client.unsetScopePermission(change.guid, change.scope, key),
        },
        change.changes,
      ),
    async sinceReview({ store, app }) {
      const known = await store.getKnownPermissions(app.name, change.role);
      return { changed: known?.seenAt !== change.seenAt, has: false, known };
    },
    recordFacts: NO_FACTS,
  };
}
