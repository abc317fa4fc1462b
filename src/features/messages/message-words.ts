import { z } from 'zod';
import type { MessageQuery } from '../../cometchat/account-model.ts';
import { groupConversationId, userConversationId } from '../../cometchat/conversations.ts';
import { idProblem, storedUid, UidSchema, uidProblem } from '../../cometchat/id-rules.ts';
import { code, truncate } from '../../slack/mrkdwn.ts';
import { parseTimeBound, resolveSearch, type TimeBound } from '../call-filters.ts';
import { Refusal } from '../feature.ts';

// The words after `/cometchat messages`: one sender, then filters in any order. Parsing is pure;
// `since:` and `until:` are read the way the call search reads them (parseTimeBound), and fixed
// against a clock only when the list is read, so the page buttons carry absolute times.

export const MESSAGES_USAGE =
  '`/cometchat messages &lt;uid&gt; [since:…] [until:…] [group:&lt;guid&gt; | with:&lt;uid&gt;] [attachments] [deleted]`';

/** What a person may type after the uid, said whenever they typed something else. */
const ACCEPTED = `Accepted after the uid: ${[
  'since:30m|2h|3d|2026-11-20',
  'until:(same forms)',
  'group:<guid>',
  'with:<uid>',
  'attachments',
  'deleted',
]
  .map((word) => code(word))
  .join(', ')}.`;

/** CometChat's guids: at most 100 characters, stored lower-cased. */
const MAX_GUID = 100;

/** The words as typed: the sender, and the filters, times still as written. */
export interface MessageWords {
  uid: string;
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
  /** One group's conversation. */
  group?: string | undefined;
  /** The direct conversation with this uid. */
  with?: string | undefined;
  attachments?: true | undefined;
  deleted?: true | undefined;
}

/**
 * The filters with their times fixed (Unix seconds), as the page buttons carry them back (signed,
 * and read again like any value from Slack). Short keys: a button's value holds 2000 characters.
 */
export const MessageFilterSchema = z.object({
  u: UidSchema,
  s: z.number().int().nonnegative().optional(),
  t: z.number().int().nonnegative().optional(),
  g: z
    .string()
    .max(MAX_GUID)
    .refine((guid) => idProblem(guid, 'A guid', MAX_GUID) === undefined)
    .optional(),
  w: UidSchema.optional(),
  a: z.literal(true).optional(),
  d: z.literal(true).optional(),
});
export type MessageFilter = z.infer<typeof MessageFilterSchema>;

/** `messages <uid> [filters]`: the words, or the one sentence that says what is wrong. Pure. */
export function parseMessageWords(words: readonly string[]): MessageWords | Refusal {
  const [uid, ...rest] = words;
  if (uid === undefined || uid.includes(':')) {
    return new Refusal(`Name the user whose messages to list: ${MESSAGES_USAGE}.`);
  }
  const uidWrong = uidProblem(uid);
  if (uidWrong) return new Refusal(uidWrong);
  const read: MessageWords = { uid: storedUid(uid) };
  for (const word of rest) {
    const problem = readWord(read, word);
    if (problem) return new Refusal(problem);
  }
  if (read.group !== undefined && read.with !== undefined) {
    return new Refusal(
      '`group:` and `with:` each name one conversation: give one of them, or neither for every conversation.',
    );
  }
  if (laterSince(read.since, read.until)) {
    return new Refusal('`since` is later than `until`, so no message could match.');
  }
  return read;
}

/** Reads one word into `read`; the sentence when it cannot be read. */
function readWord(read: MessageWords, word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower === 'attachments' || lower === 'deleted') {
    if (read[lower]) return `${code(lower)} is given twice.`;
    read[lower] = true;
    return undefined;
  }
  const colon = word.indexOf(':');
  if (colon === -1) {
    return `Only one user's messages are listed at a time (${code(truncate(word, 40))} is a second word). ${ACCEPTED}`;
  }
  const key = lower.slice(0, colon);
  const value = word.slice(colon + 1);
  if ((key === 'since' || key === 'until' || key === 'group' || key === 'with') && read[key]) {
    return `${code(`${key}:`)} is given twice.`;
  }
  switch (key) {
    case 'since':
    case 'until': {
      const bound = parseTimeBound(value);
      if (!bound) return `${code(`${key}:${truncate(value, 30)}`)} is not a time. ${ACCEPTED}`;
      read[key] = bound;
      return undefined;
    }
    case 'group': {
      const problem = idProblem(value, 'A guid', MAX_GUID);
      if (problem) return problem;
      // CometChat lower-cases guids, as it does uids.
      read.group = value.toLowerCase();
      return undefined;
    }
    case 'with': {
      const problem = uidProblem(value);
      if (problem) return problem;
      read.with = storedUid(value);
      return undefined;
    }
    default:
      return `There is no filter ${code(truncate(key || ':', 30))}. ${ACCEPTED}`;
  }
}

/** Two bounds of the same kind compared now; a mixed pair simply matches nothing. Pure. */
function laterSince(since: TimeBound | undefined, until: TimeBound | undefined): boolean {
  if (!since || !until) return false;
  if ('ago' in since && 'ago' in until) return since.ago < until.ago;
  if ('day' in since && 'day' in until) return since.day > until.day;
  return false;
}

/** The words with their times fixed against `nowSeconds`, a day read in `zone`. Pure. */
export function filterOf(words: MessageWords, nowSeconds: number, zone = 'UTC'): MessageFilter {
  const { since, until } = resolveSearch(
    { since: words.since, until: words.until },
    nowSeconds,
    zone,
  );
  return {
    u: words.uid,
    ...(since !== undefined ? { s: since } : {}),
    ...(until !== undefined ? { t: until } : {}),
    ...(words.group !== undefined ? { g: words.group } : {}),
    ...(words.with !== undefined ? { w: words.with } : {}),
    ...(words.attachments ? { a: true as const } : {}),
    ...(words.deleted ? { d: true as const } : {}),
  };
}

/**
 * The conversation a filter names, as CometChat ids it: `group_<guid>`, or the two users' id
 * (userConversationId: the uids sorted, joined by `_user_`). Pure.
 */
export function conversationOf(filter: MessageFilter): string | undefined {
  if (filter.g !== undefined) return groupConversationId(filter.g);
  return filter.w !== undefined ? userConversationId(filter.u, filter.w) : undefined;
}

/** What CometChat is asked for the filter's messages (its cursor and limit are the page's). Pure. */
export function queryOf(filter: MessageFilter): Omit<MessageQuery, 'limit' | 'cursor'> {
  return {
    sender: filter.u,
    since: filter.s,
    until: filter.t,
    conversationId: conversationOf(filter),
    attachments: filter.a,
    onlyDeleted: filter.d,
  };
}
