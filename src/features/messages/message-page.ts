import { z } from 'zod';
import type {
  AccountOperations,
  ChatMessage,
  MessageCursor,
} from '../../cometchat/account-model.ts';
import { messageIdProblem } from '../../cometchat/id-rules.ts';
import { type MessageFilter, MessageFilterSchema, queryOf } from './message-words.ts';

// A page of one user's messages, newest first, paged by CometChat's own cursor (a message's id
// and a direction): CometChat gives no total and no page numbers. One more message than a page
// is read, so whether there is a page beyond is known without showing an empty one.

/**
 * Messages a page shows: ten sections with their buttons, and a moderator's text of each,
 * stay well inside a message's 50 blocks and Slack's 13,000 characters of text.
 */
export const PAGE_SIZE = 10;

/** A cursor as a button carries it: the direction, the message's id, its time. */
export const CarriedCursorSchema = z.object({
  a: z.enum(['append', 'prepend']),
  i: z.string().refine((id) => messageIdProblem(id) === undefined),
  t: z.number().int().nonnegative().optional(),
});
export type CarriedCursor = z.infer<typeof CarriedCursorSchema>;

/** What Older, Newer and "Delete several…" carry back: the filters, and where the page starts. */
export const PageValueSchema = z.object({
  f: MessageFilterSchema,
  c: CarriedCursorSchema.optional(),
});
export type PageValue = z.infer<typeof PageValueSchema>;

/** One page as shown: newest first, and where the pages beside it start. */
export interface ShownPage {
  messages: ChatMessage[];
  older?: CarriedCursor | undefined;
  newer?: CarriedCursor | undefined;
}

export function cursorOf(carried: CarriedCursor | undefined): MessageCursor | undefined {
  return carried ? { affix: carried.a, id: carried.i, sentAt: carried.t } : undefined;
}

function carriedOf(affix: 'append' | 'prepend', message: ChatMessage): CarriedCursor {
  return { a: affix, i: message.id, t: message.sentAt };
}

/**
 * What a page shows of what CometChat answered (oldest first, up to PAGE_SIZE + 1), read from
 * `at`: none (the newest), `prepend` (older than a message) or `append` (newer than one). Pure.
 */
export function shownPage(oldestFirst: readonly ChatMessage[], at: CarriedCursor | undefined) {
  const more = oldestFirst.length > PAGE_SIZE;
  // Reading newer, the extra one is the newest, left for the next Newer; else the oldest.
  const kept = at?.a === 'append' ? oldestFirst.slice(0, PAGE_SIZE) : oldestFirst.slice(-PAGE_SIZE);
  const messages = [...kept].reverse();
  const newest = messages[0];
  const oldest = messages[messages.length - 1];
  const hasOlder = at?.a === 'append' ? oldest !== undefined : more;
  // A page read older than a message has that message (and those after it) newer than it.
  const hasNewer = at?.a === 'append' ? more : at !== undefined;
  const page: ShownPage = { messages };
  if (hasOlder && oldest) page.older = carriedOf('prepend', oldest);
  if (hasNewer && newest) page.newer = carriedOf('append', newest);
  return page;
}

/** One page of the filter's messages, read from `at`. */
export async function readPage(
  client: Pick<AccountOperations, 'listMessages'>,
  filter: MessageFilter,
  at: CarriedCursor | undefined,
): Promise<ShownPage> {
  const { messages } = await client.listMessages({
    ...queryOf(filter),
    limit: PAGE_SIZE + 1,
    cursor: cursorOf(at),
  });
  return shownPage(messages, at);
}
