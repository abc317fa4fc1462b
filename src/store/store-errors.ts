/**
 * What can go wrong in a store backend, as two kinds with a stable `code`: the backend cannot be
 * reached (a Redis server that is down or refuses us), or what it holds does not decode (a file or
 * key written by something else, or by an incompatible version).
 *
 * Messages never carry credentials: a Redis URL appears with its password replaced.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
}

export class StoreDataError extends Error {
  override readonly name = 'StoreDataError';
  readonly code = 'store_invalid_data';
}
