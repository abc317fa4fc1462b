import type { Logger } from 'pino';
import type { Access, CheckLimit } from '../../access/access.ts';

/**
 * The sentence for someone who may not edit (logged with the step they tried), or undefined
 * when they may. Asked at every step, on the server: a forged or replayed submission from
 * anyone else changes nothing.
 */
export async function editRefusal(
  access: Pick<Access, 'editRefusal'>,
  userId: string,
  log: Logger,
  attempt: 'open' | 'switch category' | 'review' | 'confirm',
  limit: CheckLimit = {},
): Promise<string | undefined> {
  const refusal = await access.editRefusal(userId, log, limit);
  if (refusal) log.warn({ user: userId, attempt }, 'permission edit refused: not an editor');
  return refusal;
}
