import { createTtlCache, type TtlCache } from '../ttl-cache.ts';
import { type Catalogue, CatalogueSchema, catalogueOf, type PermissionSpec } from './catalogue.ts';
import { mergeCatalogue } from './catalogue-merge.ts';
import type { GroupOperations, GroupScope } from './group-model.ts';
import scopeCatalogueData from './scope-permissions.json' with { type: 'json' };

// The permission keys of a group's scope (`admin`, `moderator`, `participant`): CometChat lists
// their definitions per group and scope (`GET /v3/groups/{guid}/scopes/{scope}/permissions`,
// live-api-notes.md "Groups") in the form of a role's, and, as for a role, has no read of their
// values. The keys in scope-permissions.json are the ones this app ships with (CometChat's example
// lists eleven; the CometChat stand-in serves the same file), in the shipped catalogue's categories so that the editor shows them the same way; an app's own
// definitions are merged over them as a role's are (catalogue-merge.ts), and stand in for them
// when they cannot be read, as the role catalogue's shipped keys do.

/** The scope keys this app ships: the eleven of CometChat's documented answers (data file). */
export const SCOPE_PERMISSIONS: readonly PermissionSpec[] = Object.freeze(
  CatalogueSchema.parse(scopeCatalogueData).permissions,
);

/** The scope keys this app ships, for what needs no app's own. */
export const SHIPPED_SCOPE_CATALOGUE: Catalogue = catalogueOf(SCOPE_PERMISSIONS, 'shipped');

/** The shipped scope keys, standing in for an app's whose definitions could not be read. */
export const FALLBACK_SCOPE_CATALOGUE: Catalogue = Object.freeze({
  ...SHIPPED_SCOPE_CATALOGUE,
  source: 'fallback',
});

/** How long a scope's definitions are kept: they change with CometChat's releases. */
const SCOPE_CATALOGUE_TTL_MS = 5 * 60_000;

/** One cache per client (so per app): the definitions of each scope, asked of the group at hand. */
const caches = new WeakMap<object, TtlCache<Catalogue>>();

/**
 * A scope's catalogue in one app: its CometChat's definitions (asked of `guid`) merged over the
 * shipped scope keys, kept a few minutes per scope; the shipped keys as `fallback` when they
 * cannot be read (not kept: the next ask tries again). `onFailure` hears why.
 */
export async function readScopeCatalogue(
  client: Pick<GroupOperations, 'listScopePermissionDefinitions'>,
  guid: string,
  scope: GroupScope,
  onFailure: (error: unknown) => void = () => {},
): Promise<Catalogue> {
  let cache = caches.get(client);
  if (!cache) {
    cache = createTtlCache<Catalogue>({ max: 3, ttlMs: SCOPE_CATALOGUE_TTL_MS });
    caches.set(client, cache);
  }
  try {
    return await cache.get(scope, async () =>
      mergeCatalogue(SCOPE_PERMISSIONS, await client.listScopePermissionDefinitions(guid, scope)),
    );
  } catch (error) {
    onFailure(error);
    return FALLBACK_SCOPE_CATALOGUE;
  }
}
