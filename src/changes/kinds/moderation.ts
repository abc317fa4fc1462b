import type { ModerationOperations, QueuedMessage } from '../../cometchat/moderation-model.ts';
import { notWaitingSentence } from '../../replies/sentences.ts';
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

/** What the moderation kind reads to ask "is it still as reviewed?". */
export type QueueReads = Pick<ModerationOperations, 'listFlaggedMessages' | 'listBlockedMessages'>;

export function moderationKind(change: ModerationChange): Kind {
  const [one] = change.changes;
  const status = one?.after;
  return {
    target: `message:${change.messageId}`,
    name: `message ${code(change.messageId)}`,
    done: `the message is now ${DECISION_WORDS[isStatus(status) ? status : 'approved']}`,
    outOfDate: notWaitingSentence(change.messageId),
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
      const waiting = await queueOf(app.cometchat, change.queue);
      const changed = !waiting.some((item) => item.message.id === change.messageId);
      return {
        changed,
        has: false,
        ...(changed ? { why: notWaitingSentence(change.messageId) } : {}),
      };
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
 * Why a decision on a message has no Revert, by the status it set: a delivered message cannot be
 * taken back, and CometChat documents no second decision on a reviewed message (a decision moves
 * it to the reviewed list, which no decision reaches). Pure.
 */
export function noRevertReason(decided: unknown): string {
  return decided === 'delivered'
    ? 'Delivering cannot be taken back: its receivers have the message.'
    : 'CometChat documents no way to decide a reviewed message again.';
}

/**
 * Why a moderation record (or change) has no Revert, or undefined when it is not a decision on
 * a message: no decision has one (noRevertReason). Pure.
 */
export function moderationIrreversible(record: {
  subject?: AuditRecord['subject'];
  changes: readonly { after: unknown }[];
}): string | undefined {
  if (record.subject?.kind !== 'message') return undefined;
  return noRevertReason(record.changes[0]?.after);
}
