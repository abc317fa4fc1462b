import { fitsHeader } from './header-value.ts';
import { ROLE_ID } from './schemas.ts';

// What an id typed by a person must look like before it is sent anywhere: one definition, used
// by the command parser, the call search and the lookup form.

export const MAX_SESSION_ID = 255;
export const MAX_UID = 100;
// Controls and separators have no place in an id; rejecting them early gives a clear message
// instead of a confusing 404.
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * Why an id typed by a person cannot be used, or undefined when it can. `spaces` allows inner
 * spaces, for a field that holds one id (a client SDK may start a call with any session id,
 * spaces included); words typed after a command are split on spaces and cannot hold one.
 */
export function idProblem(
  id: string,
  what: string,
  max: number,
  options: { spaces?: boolean } = {},
): string | undefined {
  if (id.length === 0) return `${what} cannot be empty.`;
  if (id.length > max) return `${what} is at most ${max} characters.`;
  if (CONTROL.test(id)) return `${what} cannot contain control characters.`;
  if (!options.spaces && /\s/.test(id)) return `${what} cannot contain spaces.`;
  if (id === '.' || id === '..') return `${what} cannot be \`.\` or \`..\`.`;
  return undefined;
}

/**
 * Why a uid cannot be used as `onBehalfOf`, or undefined when it can. idProblem has refused
 * control characters and spaces already, so what the header rule still refuses is text beyond
 * Latin-1.
 */
export function uidProblem(uid: string): string | undefined {
  return (
    idProblem(uid, 'A uid', MAX_UID) ??
    (fitsHeader(uid)
      ? undefined
      : 'A uid is sent in an HTTP header, which carries Latin-1 characters only.')
  );
}

/** Why a role id (lower-cased already) cannot be used, or undefined when it can. */
export function roleIdProblem(role: string): string | undefined {
  return ROLE_ID.test(role)
    ? undefined
    : 'A role id is 1 to 100 characters of a-z, 0-9, `-` and `_` (see `/cometchat roles`).';
}
/**
 * Words of a message that could be a uid: an id-like word (letters, digits, `-`, `_`, `.`, `@`)
 * with a digit or a separator in it, so that ordinary words are left out. First ones first.
 */
export function findUidCandidates(text: string): string[] {
  const words = text.split(/[\s,;:()[\]{}<>"'`!?]+/);
  const candidates = words
    .map((word) => word.replace(/[.]+$/, ''))
    .filter(
      (word) =>
        /^[A-Za-z0-9][A-Za-z0-9_.@-]{1,99}$/.test(word) &&
        /[0-9_-]/.test(word) &&
        !SESSION_ID_SHAPE.test(word) &&
        uidProblem(word) === undefined,
    );
  return [...new Set(candidates)].slice(0, 6);
}

/** A session id as CometChat usually makes them (`v1.us.<appId>.…`): never taken for a uid. */
const SESSION_ID_SHAPE = /^v1\.[a-z]{2,}\./;
