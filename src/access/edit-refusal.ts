import type { Logger } from 'pino';
import type { Access, CheckLimit } from './access.ts';

/**
 * The step of a change someone tried: the permission editor's own steps, or asking for a change
 * to a user (its role or account: the card's buttons and `/cometchat user <uid> role <role>`).
 */
export type EditAttempt =
  | 'open'
  | 'switch category'
  | 'review'
  | 'confirm'
  | 'change a user'
  | 'change a role'
  /** A group member's scope, a kick, a ban or its lifting (the group's card). */
  | 'change a group member'
  | 'revert'
  /** A moderation decision (asked, reviewed, sent or reverted): for moderators, not editors. */
  | 'moderate'
  /** Messages deleted for good: for an editor who is a moderator too. */
  | 'delete permanently';

/** What the log calls a refused attempt that is not a permission edit. */
const REFUSED_WHAT: Partial<Record<EditAttempt, string>> = {
  'change a user': 'user change',
  'change a role': 'role change',
  'change a group member': 'group member change',
  revert: 'revert',
  moderate: 'moderation decision',
};

/**
 * The sentence for someone who may not change the app (logged with the step they tried), or
 * undefined when they may. Asked at every step, on the server: a forged or replayed submission
 * from anyone else changes nothing. The one rule the permissions and users features both ask.
 */
export async function editRefusal(
  access: Pick<Access, 'editRefusal' | 'moderatorRefusal'>,
  userId: string,
  log: Logger,
  attempt: EditAttempt,
  limit: CheckLimit = {},
): Promise<string | undefined> {
  if (attempt === 'delete permanently') {
    const asEditor = await editRefusal(access, userId, log, 'change a user', limit);
    return asEditor ?? (await editRefusal(access, userId, log, 'moderate', limit));
  }
  const moderating = attempt === 'moderate';
  const refusal = moderating
    ? await access.moderatorRefusal(userId, log, limit)
    : await access.editRefusal(userId, log, limit);
  if (refusal) {
    const what = REFUSED_WHAT[attempt] ?? 'permission edit';
    log.warn(
      { user: userId, attempt },
      `${what} refused: not ${moderating ? 'a moderator' : 'an editor'}`,
    );
  }
  return refusal;
}

/**
 * The step a change's authorisation is asked as: a moderation decision's, a permanent deletion's,
 * or `attempt`. Pure.
 */
export function attemptOf(
  change: { kind: string; permanent?: boolean },
  attempt: EditAttempt,
): EditAttempt {
  if (change.kind === 'message-deletion' && change.permanent) return 'delete permanently';
  return change.kind === 'moderation' ? 'moderate' : attempt;
}
