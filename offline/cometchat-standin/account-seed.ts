import { z } from 'zod';
import { checkScopeUpdate } from './scope-permissions.ts';
import {
  type AccountState,
  AuthTokenSchema,
  type ChatMessage,
  ChatMessageSchema,
  GROUP_SCOPES,
  type GroupMember,
  GroupSchema,
  type GroupScope,
  type PermissionMap,
  type User,
} from './state.ts';

// The seeded accounts of an app (`seed/accounts.json`): auth tokens, groups, their members and
// bans, a few hand-written messages; and, made here because 260 are too many to write by hand,
// one customer's messages over a month (`accountMessages`). Deterministic: the same on every
// load, whatever the clock. README.md, "Accounts", describes them.

/** The default seed's accounts by what they are; README.md describes each. */
export const SANDBOX_ACCOUNT_IDS = Object.freeze({
  /** Three sessions (android, ios, web), 263 messages (260 generated), in three groups, admin of one. */
  uid: 'customer-1001',
  /** No sessions; a member of `support-lobby`. */
  noSessions: 'customer-1002',
  /** Deactivated, one session: every route named by this uid answers `ERR_UID_NOT_FOUND`. */
  deactivated: 'customer-1003',
  /** The other side of `uid`'s direct conversation; one session. */
  directWith: 'support-agent-2',
  groups: Object.freeze({
    /** Public; `uid` a participant. */
    lobby: 'support-lobby',
    /** Private; `uid` a participant. */
    beta: 'beta-testers',
    /** Password-protected; `uid` an admin (not its owner); its name holds mrkdwn. */
    adminOf: 'liams-book-club',
    /** Public; `uid` not a member (listed on their behalf with `hasJoined: false`). */
    notJoined: 'announcements',
    /** Private; `uid` not a member (not listed on their behalf). */
    hidden: 'staff-room',
  }),
  conversations: Object.freeze({
    lobby: 'group_support-lobby',
    direct: 'customer-1001_user_support-agent-2',
  }),
  /** The generated messages of `uid`: one every three hours from `firstSentAt`. */
  series: Object.freeze({ count: 260, firstSentAt: 1_735_689_600, everySeconds: 10_800 }),
  messages: Object.freeze({
    /** The oldest of `uid`'s messages: hand-written, in `beta-testers`. */
    oldest: '50001',
    /** A custom message (a poll), no text. */
    custom: '50004',
    /** The first of the series, in the lobby. */
    firstOfSeries: '60001',
    /** Edited (`editedAt`). */
    edited: '60007',
    /** An image, no text. */
    attachment: '60009',
    /** Soft-deleted already (`deletedAt`). */
    deleted: '60011',
    /** In the direct conversation. */
    direct: '60005',
    /** The newest of `uid`'s messages. */
    newest: '60519',
    /** A reply by someone else (`ops-lead`, in the lobby). */
    reply: '60002',
  }),
} as const);

/**
 * The groups beside the user's (private, `SANDBOX_ACCOUNT_IDS.uid` in none of them, so nothing
 * about that user changes): members of every scope, bans of active users, a scope that denies
 * `sendMessage`, more members than a page of 25. README.md, "Groups", describes them.
 */
export const SANDBOX_GROUP_IDS = Object.freeze({
  /** Private, owner `cometchat-uid-1` (admin); its participants may not send messages. */
  hiking: 'hiking',
  /** Private, owner `ops-lead`: 28 members (2 admins, 3 moderators, 23 participants). */
  townHall: 'town-hall',
  townHallMembers: 28,
  /** The owner of `hiking`: an admin whose scope cannot change (`ERR_GROUP_NO_SCOPE_CLEARANCE`). */
  hikingOwner: 'cometchat-uid-1',
  /** A moderator of `hiking`. */
  hikingModerator: 'cometchat-uid-3',
  /** A participant of `hiking` (role `premium`): the scope denies them `sendMessage`. */
  deniedByScope: 'ana_souza',
  /** Active (role `premium`), banned from `hiking`. */
  bannedFromHiking: 'cometchat-uid-4',
  /** Active (role `guest`), banned from `town-hall`. */
  bannedFromTownHall: 'cometchat-uid-11',
  /** A participant of `town-hall` (role `default`): nothing in either layer denies `sendMessage`. */
  allowed: 'cometchat-uid-5',
  /** Active, in neither group. */
  notMember: 'late-joiner',
  /** The keys set on `hiking`'s `participant` scope; every other key of every scope is its default. */
  hikingParticipantPermissions: Object.freeze({ sendMessage: 'deny', initiateCall: 'deny' }),
} as const);

const AccountsSeedSchema = z.strictObject({
  authTokens: z.array(AuthTokenSchema),
  groups: z.array(GroupSchema),
  members: z.array(
    z.strictObject({
      guid: z.string(),
      uid: z.string(),
      scope: z.enum(GROUP_SCOPES),
      joinedAt: z.int().nonnegative(),
    }),
  ),
  bans: z.array(
    z.strictObject({ guid: z.string(), uid: z.string(), bannedAt: z.int().nonnegative() }),
  ),
  /** Keys set explicitly on a group's scope (none by default). */
  scopePermissions: z
    .array(
      z.strictObject({
        guid: z.string(),
        scope: z.enum(GROUP_SCOPES),
        permissions: z.record(z.string(), z.union([z.string(), z.array(z.string()), z.null()])),
      }),
    )
    .default([]),
  messages: z.array(ChatMessageSchema),
});

/**
 * The seed's accounts, checked against its users: every token, member, ban and message names a
 * known user and group; message ids are unique and grow with time. `generated` adds the series.
 */
export function loadAccounts(
  data: unknown,
  users: ReadonlyMap<string, User>,
  generated: readonly ChatMessage[],
  where: string,
): AccountState {
  const seed = AccountsSeedSchema.parse(structuredClone(data));
  const known = (uid: string) => {
    if (!users.has(uid)) throw new Error(`${where}: accounts name no user "${uid}"`);
  };
  const groups = new Map(seed.groups.map((group) => [group.guid, group]));
  if (groups.size !== seed.groups.length) throw new Error(`${where}: a guid is listed twice`);
  const inGroup = <T>(map: Map<string, Map<string, T>>, guid: string, uid: string, value: T) => {
    if (!groups.has(guid)) throw new Error(`${where}: no group "${guid}"`);
    known(uid);
    map.set(guid, (map.get(guid) ?? new Map<string, T>()).set(uid, value));
  };
  const members = new Map<string, Map<string, GroupMember>>();
  for (const { guid, uid, scope, joinedAt } of seed.members) {
    inGroup(members, guid, uid, { scope, joinedAt });
  }
  const bans = new Map<string, Map<string, number>>();
  for (const { guid, uid, bannedAt } of seed.bans) inGroup(bans, guid, uid, bannedAt);
  const scopePermissions = new Map<string, Map<GroupScope, PermissionMap>>();
  for (const { guid, scope, permissions } of seed.scopePermissions) {
    if (!groups.has(guid)) throw new Error(`${where}: no group "${guid}"`);
    const checked = checkScopeUpdate(permissions);
    if (!checked.ok) {
      throw new Error(
        `${where}: bad ${scope} permissions of "${guid}": ${JSON.stringify(checked.details)}`,
      );
    }
    const scopes = scopePermissions.get(guid) ?? new Map<GroupScope, PermissionMap>();
    scopePermissions.set(guid, scopes.set(scope, checked.permissions));
  }
  const authTokens = new Map<string, z.infer<typeof AuthTokenSchema>[]>();
  for (const token of seed.authTokens) {
    known(token.uid);
    authTokens.set(token.uid, [...(authTokens.get(token.uid) ?? []), token]);
  }
  return {
    authTokens,
    messages: messageMap([...seed.messages, ...generated], where),
    groups,
    members,
    bans,
    scopePermissions,
  };
}

function messageMap(list: readonly ChatMessage[], where: string): Map<string, ChatMessage> {
  const messages = new Map<string, ChatMessage>();
  let last: ChatMessage | undefined;
  for (const message of list) {
    if (last && (Number(message.id) <= Number(last.id) || message.sentAt < last.sentAt)) {
      throw new Error(`${where}: message ${message.id} is not after ${last.id} in id and time`);
    }
    messages.set(message.id, message);
    last = message;
  }
  return messages;
}

const PHRASES = [
  'Hi, my order still has not arrived',
  'Can someone reset my password?',
  'The app logs me out every hour',
  'Thanks, that worked!',
  'Is the *premium* plan worth it?',
  'Why was my refund <refused>?',
  'Ping me at 10 & I will check',
  'Still waiting on ticket #4411',
  'Here is the screenshot you asked for',
  'Could you escalate this, please?',
  'It says `ERR_PAYMENT` again',
];

/**
 * `uid`'s month of messages (SANDBOX_ACCOUNT_IDS.series): message `i` has id `60001 + 2i`, in the
 * direct conversation every third, else in the lobby; every seventh edited, every thirteenth
 * soft-deleted, every tenth an image or a file; after every fourth, a reply by the other side
 * (the id between). The same every time.
 */
export function accountMessages(): ChatMessage[] {
  const { uid, directWith, groups, conversations, series } = SANDBOX_ACCOUNT_IDS;
  const messages: ChatMessage[] = [];
  for (let i = 0; i < series.count; i += 1) {
    const sentAt = series.firstSentAt + i * series.everySeconds + ((i * 37) % 600);
    const direct = i % 3 === 2;
    const where = direct
      ? {
          conversationId: conversations.direct,
          receiverType: 'user' as const,
          receiver: directWith,
        }
      : {
          conversationId: conversations.lobby,
          receiverType: 'group' as const,
          receiver: groups.lobby,
        };
    messages.push({
      id: String(60_001 + 2 * i),
      ...where,
      sender: uid,
      category: 'message',
      ...content(i),
      sentAt,
      updatedAt: sentAt,
      ...(i % 7 === 3 && { editedAt: sentAt + 90, editedBy: uid, updatedAt: sentAt + 90 }),
      ...(i % 13 === 5 && { deletedAt: sentAt + 3_600, deletedBy: uid, updatedAt: sentAt + 3_600 }),
    });
    if (i % 4 === 0) {
      const replier = direct ? 'support-agent-2' : 'ops-lead';
      messages.push({
        id: String(60_002 + 2 * i),
        conversationId: where.conversationId,
        sender: replier,
        receiverType: where.receiverType,
        receiver: direct ? uid : groups.lobby,
        category: 'message',
        type: 'text',
        data: { text: `Reply to #${i + 1}: we are on it.` },
        sentAt: sentAt + 60,
        updatedAt: sentAt + 60,
      });
    }
  }
  return messages;
}

function content(i: number): Pick<ChatMessage, 'type' | 'data'> {
  if (i % 10 !== 4)
    return { type: 'text', data: { text: `${PHRASES[i % PHRASES.length]} (#${i + 1})` } };
  const image = i % 20 === 4;
  const name = image ? `screenshot-${i + 1}.png` : `invoice-${i + 1}.pdf`;
  const attachment = {
    name,
    extension: image ? 'png' : 'pdf',
    mimeType: image ? 'image/png' : 'application/pdf',
    size: 20_000 + i * 13,
    url: `https://files.sandbox.example/${name}`,
  };
  return { type: image ? 'image' : 'file', data: { attachments: [attachment] } };
}
