import type { Logger } from 'pino';
import { isCometChatError } from '../cometchat/errors.ts';
import { ChangeNotTaken } from '../replies/failure.ts';
import type { AuditRecord } from '../store/store.ts';
import { type Change, setsPermissions, subjectOf } from './change.ts';
import type { RecordFacts } from './kinds/index.ts';

// The audit record of one attempt at a change: who, what it acts on, each key before and after,
// the outcome. A record holds enough to propose its inverse from it alone: its kind (`subject`),
// every "before", what else the change did (a deletion's `movedToDefault`), and the record it
// put back, if any (`reverts`).

/** What an update's record says when the app stopped before its answer (see the pending-record sweep). */
export const UNKNOWN_OUTCOME =
  'unknown: the app stopped while the update was in flight; check the role';
/** The same, for a change to a user. */
const UNKNOWN_USER_OUTCOME =
  'unknown: the app stopped while the change was in flight; check the user';

/**
 * Where attempted changes are kept: the road records, the audit feature implements it (and lists
 * what it kept).
 */
export interface AuditTrail {
  /**
   * Keeps the record: the store first (before the user hears anything), with its post to the
   * audit channel, then a structured log event, then the post. A failed post loses nothing (it
   * is tried again from the store); a failed store write leaves the whole record in the log at
   * error level and is reported to the caller.
   */
  record(record: AuditRecord, log: Logger): Promise<{ stored: boolean }>;
}

/** Who made an attempt, and for an approved request who asked, when and why. */
export interface Attempt {
  app: string;
  change: Change;
  /** Who sends it: the editor, or for an approved request the approver. */
  userId: string;
  teamId: string;
  approval?:
    | { requester: string; requestedAt: number; approvedAt: number; reason?: string | undefined }
    | undefined;
}

/** The record of one attempt, made at `at` by the request `ref`. Pure. */
export function auditRecord(
  { app, change, userId, teamId, approval }: Attempt,
  made: { ref: string; at: number; facts?: RecordFacts | undefined },
  outcome: AuditRecord['outcome'],
  extra: Pick<AuditRecord, 'serviceMessage' | 'errorKind' | 'steps'>,
): AuditRecord {
  const subject = subjectOf(change);
  return {
    ref: made.ref,
    at: made.at,
    app,
    teamId,
    // The person who asked for the change; an approver is named beside them.
    userId: approval?.requester ?? userId,
    role: change.role,
    ...(subject ? { subject } : {}),
    changes: change.changes.map((c) => ({
      key: c.key,
      before: c.before ?? null,
      after: c.after,
      explicit: c.explicit,
      ...(c.unset ? { unset: true as const } : {}),
    })),
    beforeSource: beforeSourceOf(change),
    outcome,
    ...(change.promotedFrom ? { promotedFrom: change.promotedFrom.ref } : {}),
    ...(approval ? { approval: approvalOf(userId, approval) } : {}),
    ...made.facts,
    ...(change.reverts ? { reverts: change.reverts } : {}),
    ...extra,
  };
}

function approvalOf(approvedBy: string, approval: NonNullable<Attempt['approval']>) {
  return {
    approvedBy,
    approvedAt: approval.approvedAt,
    requestedAt: approval.requestedAt,
    ...(approval.reason ? { reason: approval.reason } : {}),
  };
}

/** The pending record: what the attempt's record is if the app stops before the answer. Pure. */
export function pendingRecord(
  attempt: Attempt,
  made: { ref: string; at: number; facts?: RecordFacts | undefined },
): AuditRecord {
  const user = 'uid' in attempt.change;
  return auditRecord(attempt, made, 'unknown', {
    serviceMessage: user ? UNKNOWN_USER_OUTCOME : UNKNOWN_OUTCOME,
  });
}

/** Where a change's "before" values came from. */
function beforeSourceOf(change: Change): AuditRecord['beforeSource'] {
  // A user's role or account, or a role itself, is read from CometChat at the review, and
  // checked again when sent.
  if (!setsPermissions(change)) return 'service';
  return change.seenAt !== undefined ? 'last-update' : 'defaults';
}

/** What a failure's record says of it: its kind, and the service's own words. */
export function failureFacts(error: unknown): Pick<AuditRecord, 'serviceMessage' | 'errorKind'> {
  if (error instanceof ChangeNotTaken)
    return { errorKind: 'not_taken', serviceMessage: error.message };
  if (!isCometChatError(error)) return { errorKind: 'internal' };
  return { errorKind: error.kind, serviceMessage: error.serviceMessage ?? error.serviceCode };
}

/** Whether a failed update may still have been applied: then its outcome is not known. */
export function mayHaveApplied(error: unknown): boolean {
  if (error instanceof ChangeNotTaken) return error.partial;
  return isCometChatError(error) && error.mayHaveReached;
}
