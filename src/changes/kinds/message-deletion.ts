import type { AccountOperations, ChatMessage } from '../../cometchat/account-model.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { ChangeNotTaken } from '../../replies/failure.ts';
import { counted } from '../../replies/sentences.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AuditRecord } from '../../store/store.ts';
import type { MessageDeletionChange } from '../change.ts';
import { type Kind, NO_FACTS } from './kind.ts';

// One user's messages deleted, soft or permanently: one DELETE per message, in turn. "Is it
// still as reviewed?" reads each message again: one gone meanwhile, or deleted already the way
// this change would, means the review no longer holds, and nothing is sent. The record names the
// messages' ids (its keys), never their text. There is no Revert: CometChat documents no way to
// bring a deleted message back.

/** Why a deletion of messages has no Revert. */
export const NO_UNDELETE =
  'CometChat documents no way to bring a deleted message back (a soft-deleted one stays deleted).';

/** Said of a message CometChat no longer has: deleted permanently meanwhile, or never there. */
export function messageGoneSentence(id: string): string {
  return `Message ${code(id)} is no longer there (deleted permanently, or never there), so nothing was sent.`;
}

/** What the kind reads to ask "is it still as reviewed?". */
export type MessageReads = Pick<AccountOperations, 'getMessage'>;

export function messageDeletionKind(change: MessageDeletionChange): Kind {
  const ids = change.changes.map((c) => c.key);
  const name = `${counted(ids.length, 'message')} of ${code(change.sender)}`;
  const how = change.permanent ? 'deleted permanently' : 'deleted';
  return {
    target: `messages:${change.sender}`,
    name,
    done: change.permanent
      ? `${how}: ${ids.map(code).join(', ')}`
      : `${how} (soft: CometChat keeps them, shown as deleted): ${ids.map(code).join(', ')}`,
    outOfDate: `The messages of ${code(change.sender)} changed since the review, or another deletion of them is under way, so nothing was sent. List them again with \`/cometchat messages ${change.sender}\`.`,
    logged: 'messages deleted',
    async send(client) {
      const results: Record<string, { success: boolean; message: string }> = {};
      for (const [index, id] of ids.entries()) {
        try {
          await client.deleteMessage(id, { permanent: change.permanent });
        } catch (error) {
          if (index === 0) throw error;
          // Part of it took: the record says which, as an unknown outcome.
          const answered = `deleted ${counted(index, 'message')} of ${ids.length}, then failed on ${id}`;
          throw new ChangeNotTaken(
            name,
            {
              plain: answered,
              mrkdwn: `deleted ${ids.slice(0, index).map(code).join(', ')}, then failed on ${code(id)},`,
            },
            true,
          );
        }
        results[id] = { success: true, message: how };
      }
      return { results };
    },
    async sinceReview({ app }) {
      const now = await Promise.all(ids.map((id) => messageIfAny(app.cometchat, id)));
      const why = changedSentence(change, now);
      return { changed: why !== undefined, has: hasDeletion(change, now), why };
    },
    recordFacts: NO_FACTS,
  };
}

/** A message as CometChat has it now: undefined when it has none (deleted permanently). */
export async function messageIfAny(
  client: MessageReads,
  id: string,
): Promise<ChatMessage | undefined> {
  try {
    return await client.getMessage(id);
  } catch (error) {
    if (isCometChatError(error) && error.kind === 'not_found') return undefined;
    throw error;
  }
}

/**
 * What no longer holds of the review, in one sentence, or undefined: a message gone, deleted
 * already the way this change would (soft: deleted at all), or not the sender's. Pure.
 */
export function changedSentence(
  change: Pick<MessageDeletionChange, 'changes' | 'permanent' | 'sender'>,
  now: readonly (ChatMessage | undefined)[],
): string | undefined {
  for (const [index, { key }] of change.changes.entries()) {
    const message = now[index];
    if (!message) return messageGoneSentence(key);
    if (message.sender !== change.sender) {
      return `Message ${code(key)} was not sent by ${code(change.sender)}, so nothing was sent.`;
    }
    if (!change.permanent && message.deletedAt !== undefined) {
      return `Message ${code(key)} is deleted already, so nothing was sent.`;
    }
  }
  return undefined;
}

/** Whether CometChat already has the whole deletion (after an attempt whose outcome was unknown). */
function hasDeletion(
  change: Pick<MessageDeletionChange, 'permanent'>,
  now: readonly (ChatMessage | undefined)[],
): boolean {
  return now.every((message) =>
    change.permanent ? message === undefined : message?.deletedAt !== undefined,
  );
}

/**
 * Why a record (or change) has no Revert when it deleted messages, or undefined when it did not:
 * none does (NO_UNDELETE). Pure.
 */
export function deletionIrreversible(record: {
  subject?: AuditRecord['subject'];
}): string | undefined {
  return record.subject?.kind === 'messages' ? NO_UNDELETE : undefined;
}
