// A conversation's id as CometChat makes it, for an answer that leaves it out and for the
// message list's filters: one rule for the moderation queue, the message list and its words.

/** Two users' conversation id: the two uids sorted, joined by `_user_`. */
export function userConversationId(one: string, other: string): string {
  return [one, other].sort().join('_user_');
}

/** A group's conversation id. */
export function groupConversationId(guid: string): string {
  return `group_${guid}`;
}

/** The conversation of a message, from its sender and where it was sent. */
export function conversationIdOf(message: {
  sender: string;
  receiver: string;
  receiverType: 'user' | 'group';
}): string {
  return message.receiverType === 'group'
    ? groupConversationId(message.receiver)
    : userConversationId(message.sender, message.receiver);
}
