import { fileURLToPath } from 'node:url';
import { redactUrl } from './redact-url.ts';
import { createMemoryStore, type Store } from './store.ts';

/** Where the state lives when STORE_URL is not set: a file beside the app, no set-up needed. */
export const DEFAULT_SQLITE_PATH = './data/cometchat-ops.sqlite';

export type StoreTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'redis'; url: string }
  | { kind: 'memory' };

const ACCEPTED_FORMS =
  'a file path, sqlite:PATH, file:PATH, redis://[:PASSWORD@]HOST[:PORT][/DB], rediss://... or memory:';

/**
 * Reads STORE_URL:
 * - unset → SQLite at `./data/cometchat-ops.sqlite`;
 * - a plain path, `sqlite:PATH` (`sqlite:///abs/path` for an absolute one) or a `file:` URL → SQLite;
 * - `redis://` or `rediss://` → Redis, shared by every replica;
 * - `memory:` → one process's memory, lost on restart.
 */
export function resolveStoreTarget(storeUrl: string | undefined): StoreTarget {
  if (storeUrl === undefined || storeUrl.trim() === '') {
    return { kind: 'sqlite', path: DEFAULT_SQLITE_PATH };
  }
  const url = storeUrl.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  // A Windows drive letter (`C:\...`) looks like a one-letter scheme.
  if (scheme === undefined || /^[a-z]:[\\/]/i.test(url)) return { kind: 'sqlite', path: url };
  switch (scheme) {
    case 'redis':
    case 'rediss':
      return { kind: 'redis', url };
    case 'memory':
      return { kind: 'memory' };
    case 'sqlite':
      return { kind: 'sqlite', path: sqlitePath(url.slice('sqlite:'.length), storeUrl) };
    case 'file':
      return { kind: 'sqlite', path: filePath(url, storeUrl) };
    default:
      throw new Error(
        `STORE_URL ${JSON.stringify(redactUrl(url))} is not supported: use ${ACCEPTED_FORMS}`,
      );
  }
}

/** Opens the store STORE_URL names (see `resolveStoreTarget`). */
export async function openStore(storeUrl: string | undefined): Promise<Store> {
  const target = resolveStoreTarget(storeUrl);
  // Imported on demand: a Redis deployment never loads node:sqlite, and the other way round.
  switch (target.kind) {
    case 'sqlite': {
      const { createSqliteStore } = await import('./sqlite-store.ts');
      return createSqliteStore(target.path);
    }
    case 'redis': {
      const { createRedisStore } = await import('./redis-store.ts');
      return createRedisStore(target.url);
    }
    case 'memory':
      return createMemoryStore();
  }
}

/** `sqlite:rel/path`, `sqlite://rel/path` and `sqlite:///abs/path`. */
function sqlitePath(rest: string, original: string): string {
  // `///abs` keeps one slash, so both forms come down to dropping two.
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '')
    throw new Error(`STORE_URL ${JSON.stringify(redactUrl(original))} names no file`);
  return path;
}

/** `file:///abs/path` (a proper file URL, percent-decoded) and `file:rel/path`. */
function filePath(url: string, original: string): string {
  if (!url.toLowerCase().startsWith('file://'))
    return sqlitePath(url.slice('file:'.length), original);
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new Error(`STORE_URL ${JSON.stringify(redactUrl(original))} is not a local file URL`, {
      cause: error,
    });
  }
}
