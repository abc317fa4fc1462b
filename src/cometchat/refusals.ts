import { fitsHeader } from './header-value.ts';

// What the client refuses to send, before any request: an id that would not stay one path
// segment, a header fetch could not send. The request's sender (send.ts) turns the refusal into
// a `bad_request` CometChatError under the request's reference; nothing reaches the service.

export class Refused extends Error {
  override readonly name = 'Refused';
}

/** With the `u` flag a surrogate pair is one code point, so only unpaired halves match. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * An id as one path segment: percent-encoded so that `/`, `?`, `#`, spaces and unicode stay
 * inside it. `.` and `..` would still be read as dot segments by URL parsing (even encoded),
 * so they are refused. `what` names the id in the refusal (`the uid is empty...`).
 */
export function segment(id: string, what: string): string {
  if (id === '' || id === '.' || id === '..') {
    throw new Refused(`the ${what} is empty or a dot segment`);
  }
  // encodeURIComponent throws a URIError on a lone UTF-16 surrogate (possible from a JSON
  // `\ud800` escape); no id of the service can hold one.
  if (LONE_SURROGATE.test(id)) throw new Refused(`the ${what} is not well-formed text`);
  return encodeURIComponent(id);
}

/**
 * The `onBehalfOf` header, when asked for. fetch throws a TypeError for a header it cannot send,
 * which would read as a network failure (and be retried): it is refused instead.
 */
export function onBehalfOf(uid: string | undefined): Record<string, string> {
  if (!uid) return {};
  if (!fitsHeader(uid)) {
    throw new Refused('the uid cannot be sent in a header (Latin-1 characters only)');
  }
  return { onBehalfOf: uid };
}
