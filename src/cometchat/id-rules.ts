import { z } from 'zod';
import { ROLE_ID } from './schemas.ts';

// What an id typed by a person must look like before it is sent anywhere: one definition, used
// by the command parser, the call search and the lookup form, and by the schemas that read a uid
// back from a button or a modal.

export const MAX_SESSION_ID = 255;
/** CometChat keeps at most this many roles per app (`default` included). */
export const MAX_ROLES = 25;
/** At most what CometChat keeps of a role's name and of its description. */
export const MAX_ROLE_NAME = 100;
export const MAX_ROLE_DESCRIPTION = 255;
export const MAX_UID = 100;
/** A guid as CometChat stores it: lower-cased, `a-z 0-9 - _`, at most 100 characters. */
export const GUID_PATTERN = /^[a-z0-9_-]{1,100}$/;
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
 * The characters CometChat makes uids of: letters, digits, `-` and `_` (a person may paste one in
 * capitals from a ticket: see storedUid). Anything else cannot be a uid, so it is refused before
 * a request, and a uid always fits the `onBehalfOf` header.
 */
const UID_CHARACTERS = /^[A-Za-z0-9_-]+$/;

/**
 * A uid a person typed, as CometChat stores it: its users API documents that a uid is converted
 * to lower case when the user is created (`CometChat-UID-1` is `cometchat-uid-1`), so that is how
 * every uid is sent. Only A to Z change: a uid holds no other letter, and the length stays.
 */
export function storedUid(typed: string): string {
  return typed.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Why a uid cannot be one, or undefined when it can. */
export function uidProblem(uid: string): string | undefined {
  return (
    idProblem(uid, 'A uid', MAX_UID) ??
    (UID_CHARACTERS.test(uid)
      ? undefined
      : 'A uid is letters, digits, `-` and `_` only, as CometChat makes them.')
  );
}

/**
 * A uid as a button's value or a modal's metadata carries it back from Slack: exactly what
 * {@link uidProblem} lets through, refused with its sentence otherwise.
 */
export const UidSchema = z.string().superRefine((uid, context) => {
  const problem = uidProblem(uid);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** CometChat's guids: at most this many characters. */
export const MAX_GUID = 100;

/**
 * A guid a person typed, as CometChat stores it: CometChat lower-cases a guid when the group is
 * created (live-api-notes.md, "Groups"), so a typed one is lower-cased the way a uid is
 * (storedUid), then checked against GUID_PATTERN.
 */
export function storedGuid(typed: string): string {
  return storedUid(typed);
}

/** Why a guid (as stored: lower-cased) cannot be one, or undefined when it can. */
export function guidProblem(guid: string): string | undefined {
  return (
    idProblem(guid, 'A guid', MAX_GUID) ??
    (GUID_PATTERN.test(guid)
      ? undefined
      : 'A guid is lower-case letters, digits, `-` and `_` only, as CometChat stores it.')
  );
}

/** A guid as a button's value or a modal's metadata carries it back: what guidProblem allows. */
export const GuidSchema = z.string().superRefine((guid, context) => {
  const problem = guidProblem(guid);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/**
 * Words of a message that could be a guid: as findUidCandidates reads uids (a word of guid
 * characters with a letter and a digit, `-` or `_` in it), lower-cased. First ones first.
 */
export function findGuidCandidates(text: string): string[] {
  return findUidCandidates(text).filter((word) => guidProblem(word) === undefined);
}

/** Why a role id (lower-cased already) cannot be used, or undefined when it can. */
export function roleIdProblem(role: string): string | undefined {
  return ROLE_ID.test(role)
    ? undefined
    : 'A role id is 1 to 100 characters of a-z, 0-9, `-` and `_` (see `/cometchat roles`).';
}

/** CometChat's moderation rule ids: without spaces, at most 100 characters. */
export const MAX_RULE_ID = 100;

/** Why a moderation rule id cannot be one, or undefined when it can. */
export function ruleIdProblem(id: string): string | undefined {
  return idProblem(id, 'A rule id', MAX_RULE_ID);
}

/** CometChat numbers its messages: an id is digits (20 at most, a 64-bit integer's). */
const MESSAGE_ID = /^\d{1,20}$/;

/** Why a message id cannot be one, or undefined when it can. */
export function messageIdProblem(id: string): string | undefined {
  return MESSAGE_ID.test(id)
    ? undefined
    : 'A message id is digits only, as CometChat numbers them.';
}

/**
 * Words of a message that could be a uid: a word of uid characters with a letter and a digit,
 * `-` or `_` in it, so that ordinary words, numbers and dates are left out (a session id, with
 * its dots, is never one). First ones first, each as CometChat stores it (storedUid).
 */
export function findUidCandidates(text: string): string[] {
  const candidates = text
    // An emoji code (`:white_check_mark:`) is Slack's, never a uid.
    .replace(/:[a-z0-9_+-]+:/gi, ' ')
    .split(/[\s,;:()[\]{}<>"'`!?]+/)
    .map((word) => word.replace(/[.]+$/, ''))
    .filter(
      (word) =>
        word.length > 1 &&
        /[0-9_-]/.test(word) &&
        // A time (10:30), a date (2026-11-20) or a number is not worth a lookup.
        /[A-Za-z]/.test(word) &&
        uidProblem(word) === undefined,
    )
    .map(storedUid);
  return [...new Set(candidates)].slice(0, 6);
}
