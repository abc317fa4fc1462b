import type { BlockedMessage, FlaggedMessage } from '../../../src/cometchat/moderation-model.ts';

// Queue items as the client resolves them, with texts a test can look for in any payload.

export const SECRET_TEXT = 'the secret words of alice';
export const BLOCKED_TEXT = 'buy cheap pills at example dot com';

export function flagged(
  id: string,
  at: number,
  overrides: Partial<FlaggedMessage> = {},
): FlaggedMessage {
  return {
    queue: 'flagged',
    message: {
      id,
      conversationId: 'alice_user_bob',
      sender: 'alice',
      receiverType: 'user',
      receiver: 'bob',
      category: 'message',
      type: 'text',
      text: `${SECRET_TEXT} ${id}`,
      sentAt: at,
    },
    flags: [
      {
        uid: 'bob',
        reasonId: 'spam',
        reasonName: 'Spam',
        remark: 'remark quoting secret',
        flaggedAt: at + 5,
      },
      { uid: 'carol', reasonId: 'abuse', reasonName: 'Abuse', flaggedAt: at + 9 },
    ],
    flaggedCount: 3,
    ...overrides,
  };
}

export function blocked(
  id: string,
  at: number,
  overrides: Partial<BlockedMessage> = {},
): BlockedMessage {
  return {
    queue: 'blocked',
    message: {
      id,
      conversationId: 'group_sales',
      sender: 'mallory',
      receiverType: 'group',
      receiver: 'sales',
      category: 'message',
      type: 'text',
      text: `${BLOCKED_TEXT} ${id}`,
      sentAt: at,
    },
    rule: { id: 'no-links', name: 'No links', revisionId: 'app_no-links_2' },
    conditionMessage: 'Contains a link',
    actions: ['blockMessage'],
    blockedAt: at + 1,
    ...overrides,
  };
}
