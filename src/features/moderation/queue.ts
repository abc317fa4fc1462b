import { z } from 'zod';
import type { ModerationChange, ModerationStatus } from '../../changes/index.ts';
import type {
  BlockedMessage,
  FlaggedMessage,
  ModerationOperations,
  QueuedMessage,
} from '../../cometchat/moderation-model.ts';

// The moderation queue as the app reads it: the flagged and the blocked messages, read whole (the
// service pages neither usefully), newest first, and cut into pages here. Pure, but for `readQueue`.

/** Items on one page: one checkbox group holds ten options. */
export const PAGE_SIZE = 10;

/** What a person decides on an item, in the words of its buttons (and their values). */
export const DecisionSchema = z.enum(['approve', 'block', 'deliver', 'keep-blocked']);
export type Decision = z.infer<typeof DecisionSchema>;

/** The decisions an item of each queue offers, in the order of its buttons. */
export const DECISIONS: Readonly<Record<QueuedMessage['queue'], readonly Decision[]>> = {
  flagged: ['approve', 'block'],
  blocked: ['deliver', 'keep-blocked'],
};

/** The status a decision sets, as the change records it. */
export const STATUS_OF: Readonly<Record<Decision, ModerationStatus>> = {
  approve: 'approved',
  block: 'disapproved',
  deliver: 'delivered',
  'keep-blocked': 'rejected',
};

/** A decision's button and verb. */
export const DECISION_LABEL: Readonly<Record<Decision, string>> = {
  approve: 'Approve',
  block: 'Block',
  deliver: 'Deliver',
  'keep-blocked': 'Keep blocked',
};

/** When an item came into the queue: its last flag, or its block; else when it was sent. */
export function queuedAt(item: QueuedMessage): number {
  if (item.queue === 'blocked') return item.blockedAt || item.message.sentAt;
  const flagged = item.flags.map((flag) => flag.flaggedAt ?? 0);
  return Math.max(item.message.sentAt, ...flagged);
}

/** Both queues as one list, newest first (ties: by message id, so pages stay put). Pure. */
export function mergeQueues(
  flagged: readonly FlaggedMessage[],
  blocked: readonly BlockedMessage[],
): QueuedMessage[] {
  return [...flagged, ...blocked].sort(
    (a, b) => queuedAt(b) - queuedAt(a) || a.message.id.localeCompare(b.message.id),
  );
}

/** Reads both queues whole, at once. */
export async function readQueue(
  client: Pick<ModerationOperations, 'listFlaggedMessages' | 'listBlockedMessages'>,
): Promise<QueuedMessage[]> {
  const [flagged, blocked] = await Promise.all([
    client.listFlaggedMessages(),
    client.listBlockedMessages(),
  ]);
  return mergeQueues(flagged, blocked);
}

export interface Page {
  items: QueuedMessage[];
  /** 1-based, within 1..pages. */
  page: number;
  pages: number;
  total: number;
}

/** Page `asked` of the queue (a page past the end: the last). Pure. */
export function pageOf(queue: readonly QueuedMessage[], asked: number): Page {
  const pages = Math.max(1, Math.ceil(queue.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.floor(asked)), pages);
  const start = (page - 1) * PAGE_SIZE;
  return { items: queue.slice(start, start + PAGE_SIZE), page, pages, total: queue.length };
}

/** Whether `decision` is one an item of `queue` offers. Pure. */
export function offers(queue: QueuedMessage['queue'], decision: Decision): boolean {
  return DECISIONS[queue].includes(decision);
}

/** The reasons people gave when they flagged it, each once (a reason's name, else its id). Pure. */
export function reasonsOf(item: FlaggedMessage): string[] {
  const named = item.flags.map((flag) => flag.reasonName ?? flag.reasonId).filter(isText);
  return [...new Set(named)];
}

const isText = (value: string | undefined): value is string =>
  value !== undefined && value.trim() !== '';

/**
 * The decision on `item` as a change of the road (ids and why; never the text). `id` is made by
 * the caller (from where it was asked). Pure.
 */
export function decisionChange(
  item: QueuedMessage,
  decision: Decision,
  id: string,
): ModerationChange {
  const why =
    item.queue === 'blocked'
      ? { rule: { id: item.rule.id, name: item.rule.name } }
      : { reasons: reasonsOf(item).slice(0, 20) };
  return {
    kind: 'moderation',
    id,
    role: '',
    messageId: item.message.id,
    queue: item.queue,
    ...why,
    changes: [{ key: 'status', before: item.queue, after: STATUS_OF[decision], explicit: false }],
  };
}
