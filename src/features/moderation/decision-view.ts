import type { View } from '@slack/types';
import { z } from 'zod';
import type { ValueWriter } from '../../apps/apps.ts';
import {
  changeId,
  changeRecord,
  METADATA_LIMIT,
  noRevertReason,
  subjectReviewView,
} from '../../changes/index.ts';
import type { QueuedMessage } from '../../cometchat/moderation-model.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { context, messageModal, plain, section } from '../../slack/blocks.ts';
import { CALLBACKS } from '../../slack/ids.ts';
import { code, codeUpTo, escapedUpTo, truncate } from '../../slack/mrkdwn.ts';
import {
  DECISION_LABEL,
  type Decision,
  DecisionSchema,
  decisionChange,
  offers,
  STATUS_OF,
} from './queue.ts';
import { itemText } from './queue-view.ts';

// The reviews of moderation decisions, pure: one item's (the road's review, submitted to the
// road's one callback), and several at once (a choice, then a review of exactly what is sent).
// Each is the moderator's own modal, so it shows the text.

export const MODERATION_TITLE = 'Moderation';

/**
 * What a decision does, with what cannot be undone: no decision's record has _Revert_
 * (noRevertReason says why). Pure.
 */
export function decisionQuestion(item: QueuedMessage, decision: Decision, where = ''): string {
  const which = `message ${code(item.message.id)} from ${code(item.message.sender)}${where}`;
  const noRevert = `Its record has no _Revert_: ${noRevertReason(STATUS_OF[decision])}`;
  switch (decision) {
    case 'approve':
      return `Approve ${which}? It stays visible and leaves the flagged queue. ${noRevert}`;
    case 'block':
      return `Block ${which}? It is hidden from its conversation and leaves the flagged queue. ${noRevert}`;
    case 'deliver':
      return `Deliver ${which}? Its receivers get it now. *This cannot be taken back*: once delivered it stays delivered, and its record has no _Revert_.`;
    case 'keep-blocked':
      return `Keep ${which} blocked? It is marked reviewed and never delivered. ${noRevert}`;
  }
}

const NOTE =
  'The queue is read again when the decision is sent: if someone decided on the message meanwhile, nothing is sent.';

/** The review of one decision, submitted to the road (its metadata: the change, signed). Pure. */
export function decisionReview(
  item: QueuedMessage,
  decision: Decision,
  where: { write: ValueWriter; origin: string; app: string; appName?: string | undefined },
  approvalChannel: string | undefined,
): View {
  const status = { status: decision };
  const id = changeId(where.origin, where.app, `message:${item.message.id}`, status);
  const change = decisionChange(item, decision, id);
  return subjectReviewView({
    title: MODERATION_TITLE,
    question: decisionQuestion(item, decision, inApp(where.appName)),
    details: [itemText(item, { moderator: true })],
    note: NOTE,
    privateMetadata: where.write(changeRecord(change)),
    approvalChannel,
  });
}

// --- Several at once ----------------------------------------------------------------------------

export const BULK_BLOCK = 'moderation_bulk_items';
export const BULK_ITEMS = 'items';
export const DECISION_BLOCK = 'moderation_bulk_decision';
export const DECISION_INPUT = 'decision';

/** An item as the bulk modals carry it: enough to make its change and name it, never its text. */
export const CarriedItemSchema = z.object({
  m: z.string().min(1).max(100),
  q: z.enum(['flagged', 'blocked']),
  s: z.string().max(100),
  r: z.object({ id: z.string().max(100), name: z.string().max(200) }).optional(),
  why: z.array(z.string().max(200)).max(20).optional(),
});
export type CarriedItem = z.infer<typeof CarriedItemSchema>;

/** What the choice and the review carry back: the page's items (the review: the chosen ones). */
export const BulkValueSchema = z.object({
  items: z.array(CarriedItemSchema).min(1).max(10),
  d: DecisionSchema.optional(),
});

/** An item, carried: its ids and why, cut to fit Slack's metadata. Pure. */
export function carried(item: QueuedMessage): CarriedItem {
  const change = decisionChange(item, item.queue === 'flagged' ? 'approve' : 'deliver', '');
  return {
    m: item.message.id,
    q: item.queue,
    s: truncate(item.message.sender, 100),
    ...(change.rule
      ? { r: { id: change.rule.id, name: truncate(change.rule.name, 60) } }
      : { why: (change.reasons ?? []).slice(0, 3).map((r) => truncate(r, 40)) }),
  };
}

/** A carried item as the queue item its change is made from (no text: none is carried). Pure. */
export function itemOfCarried(item: CarriedItem): QueuedMessage {
  const message = {
    id: item.m,
    conversationId: '',
    sender: item.s,
    receiverType: 'user' as const,
    receiver: '',
    category: 'message',
    type: 'text',
    sentAt: 0,
  };
  if (item.q === 'blocked') {
    const rule = item.r ?? { id: '', name: '' };
    return { queue: 'blocked', message, rule, actions: [], blockedAt: 0 };
  }
  const flags = (item.why ?? []).map((reasonName) => ({ uid: '', reasonName }));
  return { queue: 'flagged', message, flags, flaggedCount: flags.length };
}

const OPTION_TEXT = 75;

/** An item as a checkbox: ids, sender, and the start of its text (the modal is a moderator's). */
function optionText(item: QueuedMessage): string {
  const { id, sender, text } = item.message;
  const head = `${codeUpTo(id, 20)} from ${codeUpTo(sender, 20)}`;
  // Slack shows an option's first 75 characters.
  const room = OPTION_TEXT - head.length - 2;
  return text && room > 3 ? `${head}: ${escapedUpTo(text, room)}` : head;
}

/** The choice of several items and one decision, from a page of the queue. Pure. */
export function bulkPickView(items: readonly QueuedMessage[], write: ValueWriter): View {
  const options = items.slice(0, 10).map((item) => ({
    text: { type: 'mrkdwn' as const, text: optionText(item) },
    value: item.message.id,
  }));
  const decisions = DecisionSchema.options.map((d) => ({
    text: plain(`${DECISION_LABEL[d]} (${offers('flagged', d) ? 'flagged' : 'blocked'})`),
    value: d,
  }));
  return {
    type: 'modal',
    callback_id: CALLBACKS.moderationBulkPick,
    title: plain(MODERATION_TITLE, 24),
    submit: plain('Review', 24),
    close: plain('Cancel', 24),
    private_metadata: write({ items: items.slice(0, 10).map(carried) }),
    blocks: [
      {
        type: 'input',
        block_id: BULK_BLOCK,
        label: plain('Messages'),
        element: { type: 'checkboxes', action_id: BULK_ITEMS, options },
      },
      {
        type: 'input',
        block_id: DECISION_BLOCK,
        label: plain('Decision'),
        element: { type: 'radio_buttons', action_id: DECISION_INPUT, options: decisions },
      },
    ],
  };
}

/** Why the chosen items cannot all take the decision, or undefined when they can. Pure. */
export function bulkProblem(items: readonly CarriedItem[], decision: Decision): string | undefined {
  if (items.length === 0) return 'Choose at least one message.';
  const other = items.find((item) => !offers(item.q, decision));
  if (!other) return undefined;
  return `Message ${other.m} is ${other.q}: ${DECISION_LABEL[decision]} is for ${other.q === 'flagged' ? 'blocked' : 'flagged'} messages. Choose messages of one queue.`;
}

/** The review of one decision over several items: each named, what cannot be taken back. Pure. */
export function bulkReviewView(
  items: readonly CarriedItem[],
  decision: Decision,
  where: { write: ValueWriter; appName?: string | undefined; approvalChannel?: string | undefined },
): View {
  const metadata = where.write({ items, d: decision });
  if (metadata.length > METADATA_LIMIT) {
    return messageModal(
      MODERATION_TITLE,
      'Too many messages to carry in one review; choose fewer.',
    );
  }
  const lines = items.map((item) =>
    decisionQuestion(itemOfCarried(item), decision).replace(/\?.*$/, ''),
  );
  const approval = where.approvalChannel
    ? ` Each is posted for approval in <#${where.approvalChannel}>; nothing is sent until another moderator approves.`
    : '';
  const reason = noRevertReason(STATUS_OF[decision]);
  const lasting =
    decision === 'deliver'
      ? ` *${reason}* Their records have no _Revert_.`
      : ` Their records have no _Revert_: ${reason}`;
  return {
    type: 'modal',
    callback_id: CALLBACKS.moderationBulkApply,
    title: plain(MODERATION_TITLE, 24),
    submit: plain(where.approvalChannel ? 'Request approval' : 'Apply', 24),
    close: plain('Cancel', 24),
    private_metadata: metadata,
    blocks: [
      section(
        `${DECISION_LABEL[decision]} ${counted(items.length, 'message')}${inApp(where.appName)}? One decision is sent for each, in turn, each audited.${lasting}${approval}`,
      ),
      section(lines.map((line) => `• ${line}`).join('\n')),
      context([NOTE]),
    ],
  };
}
