// A user's account as an account in trouble needs it: their sessions (auth tokens), the messages
// they sent, and the groups they are in (on the chat host: `/v3/users/{uid}/auth_tokens`,
// `/v3/messages`, `/v3/groups`). The service's shapes are resolved into these by sessions.ts,
// messages.ts and groups.ts, so nothing else sees them.
//
// An auth token is a credential: it never leaves `src/cometchat/`. A session is known outside by
// its fingerprint (a short hash of the token), and a session is revoked by its fingerprint: the
// client finds the token again just before it sends the DELETE.

/** One of a user's sessions: an auth token, known by its fingerprint, never its value. */
export interface Session {
  /** A short hash of the token (sessionFingerprint): shown, stored and sent back instead of it. */
  fingerprint: string;
  /** Unix seconds. */
  createdAt: number;
  /** `android`, `ios`, `web`, ... when the service says (newer versions do). */
  platform?: string | undefined;
  userAgent?: string | undefined;
  /** The client app's name and version, when the service says. */
  appInfo?: string | undefined;
}

/** A message as the message list shows it. Its text is shown to moderators alone. */
export interface ChatMessage {
  id: string;
  conversationId: string;
  /** The sender's uid. */
  sender: string;
  receiverType: 'user' | 'group';
  /** The receiving uid or guid. */
  receiver: string;
  /** `message`, `custom`, `action`, `call`, ... and its type (`text`, `image`, ...). */
  category: string;
  type: string;
  /** Unix seconds. */
  sentAt: number;
  /** Unix seconds; set when it was edited. */
  editedAt?: number | undefined;
  /** Unix seconds; set when it was (soft) deleted. */
  deletedAt?: number | undefined;
  /** The text, for a text message; never logged, never posted in a channel. */
  text?: string | undefined;
  /** How many files it carries. */
  attachments: number;
}

/**
 * Where a page of messages starts: CometChat's cursor. `prepend` reads the messages before
 * (older than) `id`, `append` those after (newer than) it.
 */
export interface MessageCursor {
  affix: 'append' | 'prepend';
  id: string;
  /** Unix seconds: the cursor message's time, as the service's `meta.next` gives it. */
  sentAt?: number | undefined;
}

/** Which messages `listMessages` reads: one sender's, narrowed. */
export interface MessageQuery {
  sender: string;
  /** Unix seconds, inclusive. */
  since?: number | undefined;
  /** Unix seconds, inclusive. */
  until?: number | undefined;
  /** One conversation (`group_<guid>`, or the two uids' conversation id). */
  conversationId?: string | undefined;
  /** Only messages with files. */
  attachments?: boolean | undefined;
  /** Only deleted messages. */
  onlyDeleted?: boolean | undefined;
  /** No deleted messages (what is left to delete). */
  hideDeleted?: boolean | undefined;
  /** 1 to 1000. */
  limit: number;
  /** Without one: the newest `limit`. */
  cursor?: MessageCursor | undefined;
}

/** One page of messages, oldest first as the service answers; where the next page starts. */
export interface MessagePage {
  messages: ChatMessage[];
  /** The service's `meta.next`; absent when it gave none. */
  next?: MessageCursor | undefined;
}

/** A group the user is a member of, with their scope in it. */
export interface UserGroup {
  guid: string;
  name: string;
  type: string;
  /** `admin`, `moderator`, `participant`, when the service says. */
  scope?: string | undefined;
}

export interface AccountOperations {
  /** The user's sessions, newest first. `not_found` for an unknown or deactivated user. */
  listSessions(uid: string): Promise<Session[]>;
  /** Revokes the session of that fingerprint; `not_found` when the user has none such now. */
  revokeSession(uid: string, fingerprint: string): Promise<void>;
  /** Revokes every session of the user: one DELETE. */
  revokeAllSessions(uid: string): Promise<void>;
  /** One page of one sender's messages. */
  listMessages(query: MessageQuery): Promise<MessagePage>;
  /** One message; `not_found` (`ERR_MSG_NOT_FOUND`) when there is none. */
  getMessage(id: string): Promise<ChatMessage>;
  /** Deletes a message: soft (kept, shown as deleted) unless `permanent`. */
  deleteMessage(id: string, options: { permanent: boolean }): Promise<void>;
  /** Every group the user is a member of (read on their behalf); `not_found` when deactivated. */
  listUserGroups(uid: string): Promise<UserGroup[]>;
  /** Bans the user from the group (they leave it and cannot rejoin until unbanned). */
  banGroupMember(guid: string, uid: string): Promise<void>;
  /** Lifts a ban. */
  unbanGroupMember(guid: string, uid: string): Promise<void>;
}
