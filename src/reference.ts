import { randomUUID } from 'node:crypto';

/**
 * A request's reference: shown to the person with a failure, and on every log line of the
 * request, so that a report can be found. Short enough to read out on a call, long enough not
 * to collide in a day of logs: ten hex digits (40 random bits) of a v4 UUID, which Node draws
 * from a cached pool.
 */
export function newReference(): string {
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(9, 11);
}
