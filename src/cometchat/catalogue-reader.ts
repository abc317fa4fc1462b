import { currentRequestIfAny } from '../request-context.ts';
import { createTtlCache } from '../ttl-cache.ts';
import { type Catalogue, FALLBACK_CATALOGUE, PERMISSIONS } from './catalogue.ts';
import { mergeCatalogue } from './catalogue-merge.ts';
import type { CometChatClient } from './client.ts';

/**
 * One app's catalogue: the definitions its CometChat gives merged with the shipped catalogue
 * (catalogue-merge.ts), read at most once every `ttlMs`. The definitions are the same for every
 * role, so they are asked of `default`, the one role every app has. A read that fails is not kept
 * (the next ask tries again), and answers the shipped catalogue as `fallback`: the editor still
 * opens, and says so. The client has logged why.
 */
export type CatalogueReader = () => Promise<Catalogue>;

/** How long an app's definitions are kept: they change with CometChat's releases, not by the minute. */
export const CATALOGUE_TTL_MS = 5 * 60_000;

/** How long the shipped catalogue stands in after a failed read before CometChat is asked again. */
export const FALLBACK_MS = 30_000;

export function createCatalogueReader(
  client: Pick<CometChatClient, 'listPermissionDefinitions'>,
  options: { ttlMs?: number; now?: () => number } = {},
): CatalogueReader {
  // One entry: the app's definitions. Concurrent asks share one request.
  const cache = createTtlCache<Catalogue>({
    max: 1,
    ttlMs: options.ttlMs ?? CATALOGUE_TTL_MS,
    now: options.now,
  });
  const now = options.now ?? Date.now;
  // After a failed read, the shipped catalogue stands in for a short while without asking again:
  // during an outage every category switch and review would otherwise wait out the whole budget.
  let fallbackUntil = 0;
  return async () => {
    if (now() < fallbackUntil) return FALLBACK_CATALOGUE;
    try {
      return await cache.get('default', async () =>
        mergeCatalogue(PERMISSIONS, await client.listPermissionDefinitions('default')),
      );
    } catch (error) {
      fallbackUntil = now() + FALLBACK_MS;
      currentRequestIfAny()?.log.warn(
        { err: error },
        'permission definitions not read: the shipped catalogue stands in',
      );
      return FALLBACK_CATALOGUE;
    }
  };
}
