import type { ChatMessage, MessagePage, MessageQuery } from './account-model.ts';
import { conversationIdOf } from './conversations.ts';
import { Refused, segment } from './refusals.ts';
import {
  type ChatMessageRecord,
  MessageListResponseSchema,
  MessageResponseSchema,
} from './schemas.ts';
import type { Send, Sender } from './send.ts';

// Chat messages, on the REST API's host: `/v3/messages` (live-api-notes.md, "Messages"). The
// list reads one sender's messages a page at a time by CometChat's cursor; a page comes oldest
// first, as the service answers it.

/** The service's largest page. */
const MAX_LIMIT = 1_000;

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class MessageRequests {
  readonly #send: Send;

  constructor({ send }: Sender) {
    this.#send = send;
  }

  listMessages = async (query: MessageQuery): Promise<MessagePage> => {
    const { data, meta } = await this.#send('listMessages', ({ api }) =>
      api
        .get('messages', { searchParams: messageSearchParams(query) })
        .json(MessageListResponseSchema),
    );
    const next = meta?.next;
    return {
      messages: data.map(toChatMessage),
      next:
        next?.id === undefined
          ? undefined
          : { affix: next.affix, id: next.id, sentAt: next.sentAt ?? undefined },
    };
  };

  getMessage = async (id: string) => {
    const { data } = await this.#send('getMessage', ({ api }) =>
      api.get(`messages/${segment(id, 'message id')}`).json(MessageResponseSchema),
    );
    return toChatMessage(data);
  };

  /**
   * Soft unless `permanent`: no body at all then, as the documents' soft delete. The documented
   * answer is wrong (an "edited" action, live-api-notes.md), so any 2xx is the deletion and its
   * body is not read.
   */
  deleteMessage = async (id: string, { permanent }: { permanent: boolean }) => {
    await this.#send('deleteMessage', ({ api }) =>
      api
        .delete(`messages/${segment(id, 'message id')}`, permanent ? { json: { permanent } } : {})
        .text(),
    );
  };
}

/**
 * The query as `GET /v3/messages` takes it: only the filters asked for, flags only when true,
 * the cursor's message id (and time) with its direction. Throws a Refused for a limit the
 * service would refuse (send.ts makes it a `bad_request`).
 */
export function messageSearchParams(query: MessageQuery): Record<string, string | number> {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_LIMIT) {
    throw new Refused(`the page size must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  const params: Record<string, string | number> = { sender: query.sender, limit: query.limit };
  if (query.since !== undefined) params.fromTimestamp = query.since;
  if (query.until !== undefined) params.toTimestamp = query.until;
  if (query.conversationId) params.conversationId = query.conversationId;
  if (query.attachments) params.hasAttachments = 'true';
  if (query.onlyDeleted) params.onlyDeleted = 'true';
  if (query.hideDeleted) params.hideDeleted = 'true';
  const { cursor } = query;
  if (cursor) {
    params.affix = cursor.affix;
    params.id = cursor.id;
    if (cursor.sentAt !== undefined) params.sentAt = cursor.sentAt;
  }
  return params;
}

/**
 * A message as the list shows it. An answer without a conversation id gets the one CometChat
 * makes: `group_<guid>`, or the two uids in order joined by `_user_`.
 */
export function toChatMessage(record: ChatMessageRecord): ChatMessage {
  const { sender, receiver, receiverType } = record;
  const conversationId =
    record.conversationId || conversationIdOf({ sender, receiver, receiverType });
  return {
    id: record.id,
    conversationId,
    sender,
    receiverType,
    receiver,
    category: record.category,
    type: record.type,
    sentAt: record.sentAt,
    editedAt: record.editedAt ?? undefined,
    deletedAt: record.deletedAt ?? undefined,
    text: record.data?.text ?? undefined,
    attachments: record.data?.attachments?.length ?? 0,
  };
}
