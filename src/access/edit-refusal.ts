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
  | 'revert';

/** What the log calls a refused attempt that is not a permission edit. */
const REFUSED_WHAT: Partial<Record<EditAttempt, string>> = {
  'change a user': 'user change',
  'change a role': 'role change',
  revert: 'revert',
};

/**
 * The sentence for someone who may not change the app (logged with the step they tried), or
 * undefined when they may. Asked at every step, on the server: a forged or replayed submission
 * from anyone else changes nothing. The one rule the permissions and users features both ask.
 */
export async function editRefusal(
  access: Pick<Access, 'editRefusal'>,
  userId: string,
  log: Logger,
  attempt: EditAttempt,
  limit: CheckLimit = {},
): Promise<string | undefined> {
  const refusal = await access.editRefusal(userId, log, limit);
  if (refusal) {
    const what = REFUSED_WHAT[attempt] ?? 'permission edit';
    log.warn({ user: userId, attempt }, `${what} refused: not an editor`);
  }
  return refusal;
}
