import { randomBytes, randomUUID } from 'node:crypto';

/** Fresh identifiers shaped like Slack's, unique for the life of one stand-in. */
export interface IdSource {
  /** A message ts: seconds, a dot, six digits; strictly increasing so ordering by ts works. */
  messageTs(): string;
  viewId(): string;
  viewHash(): string;
  triggerId(): string;
  responseUrlId(): string;
  envelopeId(): string;
  ticket(): string;
}

export function createIdSource(now: () => number = Date.now): IdSource {
  let counter = 0;
  const next = (): number => {
    counter += 1;
    return counter;
  };
  return {
    messageTs: () => `${Math.floor(now() / 1000)}.${String(next() % 1_000_000).padStart(6, '0')}`,
    viewId: () => `V${next().toString(36).toUpperCase().padStart(10, '0')}`,
    viewHash: () => `${Math.floor(now() / 1000)}.${randomBytes(4).toString('hex')}`,
    triggerId: () => `${next()}.${Math.floor(now() / 1000)}.${randomBytes(16).toString('hex')}`,
    responseUrlId: () => `${next()}-${randomBytes(12).toString('hex')}`,
    envelopeId: () => randomUUID(),
    ticket: () => randomUUID(),
  };
}

/**
 * Slack answers a post to a user id with the id of the DM channel between the bot and that user;
 * deriving it keeps `conversations.open` and `chat.postMessage` consistent without a table.
 */
export function dmChannelIdFor(userId: string): string {
  return `D${userId.replace(/^[UW]/, '')}`;
}
