// Node wraps a failed connection: fetch's `fetch failed` TypeError holds undici's error, which
// may hold the socket's. What went wrong is said by the first code along that chain.

/**
 * How many links are looked at unless told otherwise: more than fetch's wrapping needs, and an
 * end to a chain whose cause leads back to itself.
 */
const DEFAULT_DEPTH = 8;

/**
 * The system's code for a failed connection (`ECONNREFUSED`, `UND_ERR_SOCKET`...): the first
 * string `code` on the error or the causes it wraps, within `depth` links.
 */
export function systemCodeOf(error: unknown, depth = DEFAULT_DEPTH): string | undefined {
  let link = error;
  for (let seen = 0; seen < depth && link instanceof Error; seen += 1) {
    if ('code' in link && typeof link.code === 'string') return link.code;
    link = link.cause;
  }
  return undefined;
}
