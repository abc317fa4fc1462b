import { z } from 'zod';
import { activeUser } from './auth-tokens.ts';
import { errorResponse } from './errors.ts';
import { detailsOf } from './json-body.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { ChatMessage, SandboxState } from './state.ts';

// `GET /v3/messages` (live-api-notes.md, "Messages"): every chat message, narrowed by filters and
// paged by a cursor. Without a cursor the newest `limit`; with one, `prepend` reads the messages
// before it (older), `append` those after it (newer). A page is oldest first, and `meta.next`
// names where the next page in the same direction starts (absent after an empty page).

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1_000;

const digits = z
  .string()
  .regex(/^\d{1,16}$/, 'Must be a whole number.')
  .transform(Number);
const flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

const ListQuerySchema = z.object({
  sender: z.string().min(1).optional(),
  conversationId: z.string().min(1).optional(),
  receiverType: z.enum(['user', 'group']).optional(),
  category: z.string().min(1).optional(),
  type: z.string().min(1).optional(),
  hasAttachments: flag.optional(),
  onlyDeleted: flag.optional(),
  hideDeleted: flag.optional(),
  fromTimestamp: digits.optional(),
  toTimestamp: digits.optional(),
  id: digits.optional(),
  sentAt: digits.optional(),
  affix: z.enum(['append', 'prepend']).optional(),
  limit: digits
    .pipe(z.number().int().min(1).max(MAX_LIMIT, `The limit is at most ${MAX_LIMIT}.`))
    .default(DEFAULT_LIMIT),
});
type ListQuery = z.infer<typeof ListQuerySchema>;

/** Whether `message` passes every filter of the query (the cursor aside). */
function matches(message: ChatMessage, query: ListQuery): boolean {
  const exact = ['sender', 'conversationId', 'receiverType', 'category', 'type'] as const;
  if (exact.some((key) => query[key] !== undefined && message[key] !== query[key])) return false;
  const deleted = message.deletedAt !== undefined;
  if ((query.onlyDeleted && !deleted) || (query.hideDeleted && deleted)) return false;
  if (query.hasAttachments !== undefined && query.hasAttachments !== hasAttachments(message)) {
    return false;
  }
  if (query.fromTimestamp !== undefined && message.sentAt < query.fromTimestamp) return false;
  return query.toTimestamp === undefined || message.sentAt <= query.toTimestamp;
}

function hasAttachments(message: ChatMessage): boolean {
  const { attachments } = message.data;
  return Array.isArray(attachments) && attachments.length > 0;
}

/** Where a message stands against the cursor: before it (-1), at it (0) or after it (1). */
function against(message: ChatMessage, query: ListQuery): number {
  if (query.id !== undefined) return Math.sign(Number(message.id) - query.id);
  return Math.sign(message.sentAt - (query.sentAt ?? 0));
}

export function listMessages(
  state: SandboxState,
  query: Record<string, string>,
  onBehalfOf: string | undefined,
): SandboxResponse {
  const parsed = ListQuerySchema.safeParse(query);
  if (!parsed.success) {
    return errorResponse('ERR_BAD_REQUEST', { details: detailsOf(parsed.error.issues) });
  }
  // Read on a user's behalf, the user must be one that can sign in.
  if (onBehalfOf !== undefined && activeUser(state, onBehalfOf) === undefined) {
    return errorResponse('ERR_UID_NOT_FOUND');
  }
  const filter = parsed.data;
  const all = [...state.accounts.messages.values()].filter((message) => matches(message, filter));
  const cursor = filter.id !== undefined || filter.sentAt !== undefined;
  const affix = filter.affix ?? 'prepend';
  const page =
    cursor && affix === 'append'
      ? all.filter((message) => against(message, filter) > 0).slice(0, filter.limit)
      : all.filter((message) => !cursor || against(message, filter) < 0).slice(-filter.limit);
  const edge = affix === 'append' && cursor ? page.at(-1) : page[0];
  const next = edge && { affix: cursor ? affix : 'prepend', sentAt: edge.sentAt, id: edge.id };
  return ok({
    data: page,
    meta: { current: { limit: filter.limit, count: page.length }, ...(next && { next }) },
  });
}
