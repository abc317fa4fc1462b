import type { View } from '@slack/types';
import { z } from 'zod';
import type { ValueWriter } from '../../apps/apps.ts';
import {
  type AskedDeletion,
  chunkedSections,
  DELETE_MESSAGES_TITLE,
  deletionQuestion,
  MAX_DELETED_MESSAGES,
  METADATA_LIMIT,
  type MessageDeletionChange,
  messageView,
} from '../../changes/index.ts';
import type { ChatMessage } from '../../cometchat/account-model.ts';
import { messageIdProblem, UidSchema } from '../../cometchat/id-rules.ts';
import { context, plain, section } from '../../slack/blocks.ts';
import { CALLBACKS } from '../../slack/ids.ts';
import { code, slackDate, truncate } from '../../slack/mrkdwn.ts';

// The modals of a deletion before the road's review: the choice of the page's messages (and, for
// a moderator, how: soft or permanently), and for a permanent one the review that leads to the
// last confirmation, which names it as permanent. Pure. No message's text is drawn here.

export const MESSAGES_BLOCK = 'messages_delete_items';
export const MESSAGES_INPUT = 'items';
export const HOW_BLOCK = 'messages_delete_how';
export const HOW_INPUT = 'how';

/** A message as the deletion's modals carry it: ids, time, where, type; never its text. */
export const CarriedMessageSchema = z.object({
  i: z.string().refine((id) => messageIdProblem(id) === undefined),
  t: z.number().int().nonnegative(),
  g: z.literal(true).optional(),
  r: z.string().max(100),
  y: z.string().max(100),
  d: z.literal(true).optional(),
});
export type CarriedMessage = z.infer<typeof CarriedMessageSchema>;

/**
 * What the choice carries (the page's messages, and whether "permanently" was offered: the
 * reader moderates), and what the permanent review carries (the chosen ones).
 */
export const ChoiceValueSchema = z.object({
  u: UidSchema,
  ms: z.array(CarriedMessageSchema).min(1).max(MAX_DELETED_MESSAGES),
  p: z.literal(true).optional(),
});
export type ChoiceValue = z.infer<typeof ChoiceValueSchema>;

/** A message, carried. Pure. */
export function carriedMessage(message: ChatMessage): CarriedMessage {
  const type =
    message.category === 'message' ? message.type : `${message.category}/${message.type}`;
  return {
    i: message.id,
    t: message.sentAt,
    ...(message.receiverType === 'group' ? { g: true as const } : {}),
    r: truncate(message.receiver, 100),
    y: truncate(type, 100),
    ...(message.deletedAt !== undefined ? { d: true as const } : {}),
  };
}

/** A carried message in one line of mrkdwn: id, when, where, type, deleted. Pure. */
export function carriedLine(item: CarriedMessage): string {
  const where = item.g ? `in group ${code(item.r)}` : `to ${code(item.r)}`;
  const deleted = item.d ? ' · deleted (soft) already' : '';
  return `• ${code(item.i)} · ${slackDate(item.t)} · ${where} · ${code(item.y)}${deleted}`;
}

/** A carried message as an option: plain text, at most 75 characters. Pure. */
function optionText(item: CarriedMessage): string {
  const when = new Date(item.t * 1000).toISOString().slice(0, 16).replace('T', ' ');
  const where = item.g ? `group ${item.r}` : `to ${item.r}`;
  return truncate(
    `${item.i} · ${when} UTC · ${item.y} · ${where}${item.d ? ' · deleted' : ''}`,
    75,
  );
}

/**
 * The choice: which of the page's messages (`preselected`: the one whose Delete was clicked),
 * and for a moderator how. Soft is the default; "permanently" only where `permanent` is offered.
 */
export function chooseView(
  sender: string,
  items: readonly CarriedMessage[],
  options: { write: ValueWriter; permanent: boolean; preselected?: string | undefined },
): View {
  const offered = items.slice(0, 10);
  const asOption = (item: CarriedMessage) => ({ text: plain(optionText(item)), value: item.i });
  const initial = offered.filter((item) => item.i === options.preselected).map(asOption);
  const soft = { text: plain('Soft: kept by CometChat, shown as deleted'), value: 'soft' };
  const permanent = { text: plain('Permanently: removed for good'), value: 'permanent' };
  return {
    type: 'modal',
    callback_id: CALLBACKS.messagesDeleteChoose,
    title: plain(DELETE_MESSAGES_TITLE, 24),
    submit: plain('Review', 24),
    close: plain('Cancel', 24),
    private_metadata: options.write({
      u: sender,
      ms: offered,
      ...(options.permanent ? { p: true } : {}),
    }),
    blocks: [
      section(`Delete messages sent by ${code(sender)}: choose them, then review.`),
      {
        type: 'input',
        block_id: MESSAGES_BLOCK,
        label: plain('Messages'),
        element: {
          type: 'multi_static_select',
          action_id: MESSAGES_INPUT,
          placeholder: plain('Choose messages'),
          options: offered.map(asOption),
          ...(initial.length > 0 ? { initial_options: initial } : {}),
        },
      },
      ...(options.permanent
        ? [
            {
              type: 'input' as const,
              block_id: HOW_BLOCK,
              label: plain('How'),
              element: {
                type: 'radio_buttons' as const,
                action_id: HOW_INPUT,
                options: [soft, permanent],
                initial_option: soft,
              },
            },
          ]
        : []),
      context(['Only moderators may delete permanently; a permanent delete asks once more.']),
    ],
  };
}

/** Why the chosen messages cannot be deleted that way, or undefined when they can. Pure. */
export function choiceProblem(
  chosen: readonly CarriedMessage[],
  permanent: boolean,
): string | undefined {
  if (chosen.length === 0) return 'Choose at least one message.';
  const deleted = chosen.find((item) => item.d);
  if (!permanent && deleted) {
    return `Message ${deleted.i} is deleted already: only deleting it permanently removes it.`;
  }
  return undefined;
}

/** The chosen messages as a deletion asks for them. Pure. */
export function askedOf(sender: string, chosen: readonly CarriedMessage[], permanent: boolean) {
  const asked: AskedDeletion = {
    sender,
    permanent,
    messages: chosen.map((item) => ({ id: item.i, deleted: item.d === true })),
  };
  return asked;
}

/**
 * A permanent deletion's review: what it removes for good. Its submit leads to the last
 * confirmation (the road's review, which names it as permanent); nothing is sent from here.
 */
export function permanentReviewView(
  change: MessageDeletionChange,
  chosen: ChoiceValue,
  where: { write: ValueWriter; appName?: string | undefined },
): View {
  const metadata = where.write(chosen);
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      DELETE_MESSAGES_TITLE,
      'Too many messages to carry through Slack in one review; nothing was sent. Choose fewer.',
    );
  }
  return {
    type: 'modal',
    callback_id: CALLBACKS.messagesDeletePermanent,
    title: plain(DELETE_MESSAGES_TITLE, 24),
    submit: plain('Continue', 24),
    close: plain('Cancel', 24),
    private_metadata: metadata,
    blocks: [
      section(deletionQuestion(change, where.appName)),
      ...chunkedSections(chosen.ms.map(carriedLine)),
      context([
        'A permanent delete removes each message from CometChat for good: nobody sees it again, and this app cannot read it again. You confirm once more on the next step.',
      ]),
    ],
  };
}
