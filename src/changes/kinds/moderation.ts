import type { ModerationOperations, QueuedMessage } from '../../cometchat/moderation-model.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AuditRecord } from '../../store/store.ts';
import type { ModerationChange, ModerationStatus } from '../change.ts';
import { type Kind, NO_FACTS } from './kind.ts';

// A decision on a message under moderation: one key, its `status`, sent as one PATCH. "Is it
// still as reviewed?" is asked of the queue it was in: a message someone decided meanwhile (on
// another replica, in CometChat's dashboard) is no longer there, and nothing is sent. The record
// names the message, its queue and why it was there (the rule, or the reasons), never its text.

/** The decision as the service words it, in words a person reads in the review and the record. */
export const DECISION_WORDS: Readonly<Record<ModerationStatus, string>> = {
  flagged: 'flagged',
  blocked: 'blocked',
  approved: 'approved',
  disapproved: 'blocked (hidden)',
  rejected: 'kept blocked',
  delivered: 'delivered',
};

/** Said when the message is no longer waiting for a decision: nothing was sent. */
export function alreadyReviewed(change: Pick<ModerationChange, 'messageId' | 'queue'>): string {
  return `Message ${code(change.messageId)} is no longer waiting in the ${change.queue} queue: someone decided on it meanwhile, so nothing was sent. Run \`/cometchat moderation\` to see what waits now.`;
}

/** What the moderation kind reads to ask "is it still as reviewed?". */
export type QueueReads = Pick<ModerationOperations, 'listFlaggedMessages' | 'listBlockedMessages'>;

export function moderationKind(change: ModerationChange): Kind {
  const [one] = change.changes;
  const status = one?.after;
  return {
    target: `message:${change.messageId}`,
    name: `message ${code(change.messageId)}`,
    done: `the message is now ${DECISION_WORDS[isStatus(status) ? status : 'approved']}`,
    outOfDate: alreadyReviewed(change),
    logged: 'moderation decided',
    async send(client) {
      if (change.queue === 'flagged') {
        if (status !== 'approved' && status !== 'disapproved') throw new Error(NOT_A_DECISION);
        await client.decideFlaggedMessage(change.messageId, status);
      } else {
        // `delivered` is the service's `approved` of a blocked message: delivered, for good.
        const decision = status === 'delivered' ? 'approved' : status;
        if (decision !== 'approved' && decision !== 'rejected') throw new Error(NOT_A_DECISION);
        await client.decideBlockedMessage(change.messageId, decision);
      }
      return { results: { status: { success: true, message: `status is now ${status}` } } };
    },
    async sinceReview({ app }) {
      // A reversal (a flagged decision turned round) acts on a reviewed message, which no list
      // this app reads holds: CometChat itself refuses one it cannot make.
      if (one?.before !== change.queue) return { changed: false, has: false };
      const waiting = await queueOf(app.cometchat, change.queue);
      const changed = !waiting.some((item) => item.message.id === change.messageId);
      return { changed, has: false, ...(changed ? { why: alreadyReviewed(change) } : {}) };
    },
    recordFacts: NO_FACTS,
  };
}

const NOT_A_DECISION = 'a moderation decision is one change of its status to a decision';

const STATUSES: readonly string[] = Object.keys(DECISION_WORDS);
const isStatus = (value: unknown): value is ModerationStatus =>
  typeof value === 'string' && STATUSES.includes(value);

function queueOf(client: QueueReads, queue: 'flagged' | 'blocked'): Promise<QueuedMessage[]> {
  return queue === 'flagged' ? client.listFlaggedMessages() : client.listBlockedMessages();
}

/**
 * Why a moderation record has no Revert, or undefined when it has: delivering a blocked message
 * cannot be taken back, and keeping one blocked has no safe inverse (its inverse delivers it).
 * Pure.
 */
export function moderationIrreversible(
  record: Pick<AuditRecord, 'subject' | 'changes'>,
): string | undefined {
  if (record.subject?.kind !== 'message') return undefined;
  const after = record.changes[0]?.after;
  if (after === 'delivered') {
    return 'A delivered message cannot be taken back: its receivers have it. Nothing was sent.';
  }
  if (record.subject.queue === 'blocked') {
    return 'Keeping a message blocked has no safe inverse (the inverse would deliver it, which cannot be taken back). Decide on it again from `/cometchat moderation` only if it is still waiting. Nothing was sent.';
  }
  return undefined;
}
