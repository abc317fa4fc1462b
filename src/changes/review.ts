import type { View } from '@slack/types';
import { type Apps, appNameIfMultiple, type CometChatApp, valueWriter } from '../apps/apps.ts';
import type { Session } from '../cometchat/account-model.ts';
import type { Catalogue } from '../cometchat/catalogue.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import { counted, inApp } from '../replies/sentences.ts';
import { context, plain, section } from '../slack/blocks.ts';
import { CALLBACKS } from '../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../slack/mrkdwn.ts';
import {
  type AccountChange,
  type Change,
  changeId,
  changeRecord,
  decodeChange,
  encodeChange,
  type GroupMemberChange,
  idPayload,
  METADATA_LIMIT,
  type MessageDeletionChange,
  type PermissionsChange,
  type PromotedFrom,
  type RoleChange,
  type SessionsChange,
  type UserRoleChange,
} from './change.ts';
import { KICK_NO_REVERT, memberChangeLine } from './kinds/group-member.ts';
import { NO_UNDELETE } from './kinds/message-deletion.ts';
import { scopeName } from './kinds/scope-permissions.ts';
import {
  SESSION_DROP_UNDOCUMENTED,
  SESSIONS_NO_REVERT,
  sessionLine,
  sessionsChangeLine,
} from './kinds/sessions.ts';
import { changeLine, chunkedSections, holdersLine, messageView, reasonInput } from './views.ts';

// The review of a change: the modal that says exactly what it does, each value before and after,
// and asks "Apply" (or "Request approval", with a reason, where the app asks for approvals). Every
// kind's review submits to the same callback, so every change goes the same road from there
// (confirm.ts). A feature asks for a change as a person put it; the review makes it a Change.

/** The title of every modal of a change to a user, whichever feature draws it. */
export const USER_CHANGE_TITLE = 'Change a user';

/** The title of every modal of a change to a role itself, whichever feature draws it. */
export const ROLE_CHANGE_TITLE = 'Change a role';

/**
 * A change to one CometChat user, as a person asked for it: its role, or its account (`active`,
 * `deactivated`).
 */
export interface AskedUserChange {
  uid: string;
  /** The user's name, to name them in the review (escaped where shown). */
  name: string;
  /** The user's role when the change was asked for. */
  role: string;
  key: 'role' | 'status';
  before: string;
  after: string;
  /** What the review says beyond from and to: mrkdwn lines (the permissions it affects). */
  details?: readonly string[] | undefined;
}

/**
 * A change to a role itself, as a person asked for it: its creation (a name, perhaps a
 * description, and the permissions to set right after), a new name or description, or its
 * deletion; with the question its review asks, in mrkdwn.
 */
export interface AskedRoleChange {
  action: 'create' | 'update' | 'delete';
  role: string;
  /** `name`, `description`; a new role's permissions beside them; `role` (to null) to delete. */
  changes: readonly { key: string; before: PermissionValue; after: PermissionValue }[];
  question: string;
  /** mrkdwn lines under the question: a new role's permissions, who holds a role to delete. */
  details?: readonly string[] | undefined;
}

const TOO_LARGE =
  'This change is too large to carry through Slack in one review: nothing was sent. Create the role with fewer permissions (or none), then set the rest in the editor.';

/**
 * The change a person asked of a user. `origin` names where it was asked (a view or trigger id):
 * with the app, the user and the change, it makes the claim that applies it once. Pure.
 */
export function userChangeOf(
  app: string,
  asked: AskedUserChange,
  origin: string,
): UserRoleChange | AccountChange {
  const fields = {
    uid: asked.uid,
    role: asked.role,
    id: changeId(origin, app, `user:${asked.uid}`, { [asked.key]: asked.after }),
    changes: [{ key: asked.key, before: asked.before, after: asked.after, explicit: false }],
  };
  return asked.key === 'role' ? { kind: 'user-role', ...fields } : { kind: 'account', ...fields };
}

/** The change a person asked of a role itself (see userChangeOf for `origin`). Pure. */
export function roleChangeOf(app: string, asked: AskedRoleChange, origin: string): RoleChange {
  const changes = asked.changes.map((c) => ({ ...c, explicit: false }));
  const payload = Object.fromEntries(changes.map((c) => [c.key, c.after]));
  return {
    kind: 'role',
    action: asked.action,
    role: asked.role,
    id: changeId(origin, app, `role ${asked.action}:${asked.role}`, payload),
    changes,
  };
}

/** What the review of a change to a user asks, in one sentence. Pure. */
function userChangeQuestion(asked: AskedUserChange, appName: string | undefined): string {
  const who = `*${escapeMrkdwn(truncate(asked.name, 100))}* ${code(asked.uid)}${inApp(appName)}`;
  if (asked.key === 'role') {
    return `Change the role of ${who} from ${code(asked.before)} to ${code(asked.after)}? The user then has exactly the permissions of ${code(asked.after)}.`;
  }
  return asked.after === 'deactivated'
    ? `Deactivate ${who}? They can no longer log in or chat; their messages, groups and data are kept, and _Reactivate_ undoes it. Nothing is ever deleted.`
    : `Reactivate ${who}? They can log in and chat again, with role ${code(asked.role)}.`;
}

/** The review of a change to a user, for the users feature's modal. */
export function reviewUserChange(
  apps: Pick<Apps, 'multiple'>,
  app: CometChatApp,
  asked: AskedUserChange,
  origin: string,
): View {
  const change = userChangeOf(app.name, asked, origin);
  return subjectReviewView({
    title: USER_CHANGE_TITLE,
    question: userChangeQuestion(asked, appNameIfMultiple(apps, app)),
    details: asked.details,
    note: '“Before” is what CometChat had when you asked; it is checked again when the change is sent.',
    privateMetadata: valueWriter(app)(changeRecord(change)),
    approvalChannel: app.approval?.channel,
  });
}

/** The review of a change to a role itself, for the roles feature's modal (or why there is none). */
export function reviewRoleChange(app: CometChatApp, asked: AskedRoleChange, origin: string): View {
  return roleReviewView(asked, roleChangeOf(app.name, asked, origin), {
    write: valueWriter(app),
    approvalChannel: app.approval?.channel,
  });
}

/** A role change's review, its metadata written by `write`; too large, why there is none. Pure. */
export function roleReviewView(
  asked: Pick<AskedRoleChange, 'question' | 'details'>,
  change: RoleChange,
  where: { write: (value: Record<string, unknown>) => string; approvalChannel: string | undefined },
): View {
  const metadata = where.write(changeRecord(change));
  // Never carried half: a change too large for the modal is not offered at all.
  if (metadata.length > METADATA_LIMIT) return messageView(ROLE_CHANGE_TITLE, TOO_LARGE);
  return subjectReviewView({
    title: ROLE_CHANGE_TITLE,
    question: asked.question,
    details: asked.details,
    note: 'CometChat’s role list is read again when the change is sent: if the role changed meanwhile, nothing is sent.',
    privateMetadata: metadata,
    approvalChannel: where.approvalChannel,
  });
}

/**
 * Revoking a user's sessions, as a person asked for it: one session (by its fingerprint), or
 * every one (Sign out everywhere).
 */
export interface AskedSessionsRevoke {
  uid: string;
  /** The user's name, to name them in the review (escaped where shown). */
  name: string;
  /** The user's role when it was asked for (the role every record of a user is filed under). */
  role: string;
  /** The user's sessions now, newest first: the change's "before". */
  sessions: readonly Session[];
  /** The fingerprint of the session to revoke; undefined: every session. */
  revoke?: string | undefined;
}

/** The change that revokes what a person asked (see userChangeOf for `origin`). Pure. */
export function sessionsChangeOf(
  app: string,
  asked: AskedSessionsRevoke,
  origin: string,
): SessionsChange {
  const before = asked.sessions.map((session) => session.fingerprint);
  const after = asked.revoke === undefined ? [] : before.filter((f) => f !== asked.revoke);
  return {
    kind: 'sessions',
    uid: asked.uid,
    role: asked.role,
    id: changeId(origin, app, `user:${asked.uid}`, { sessions: asked.revoke ?? 'all' }),
    changes: [{ key: 'sessions', before, after, explicit: false }],
  };
}

/** Why a revocation has no review: more sessions than a review in Slack can carry. */
function tooManySessions(everywhere: boolean): string {
  const instead = everywhere
    ? '_Deactivate_ on their card cuts them off instead.'
    : '_Sign out everywhere_ revokes them all.';
  return `This user has too many sessions to carry through a review in Slack; nothing was sent. ${instead}`;
}

/** What the review of revoking sessions asks, in one sentence. Pure. */
function sessionsQuestion(asked: AskedSessionsRevoke, appName: string | undefined): string {
  const who = `*${escapeMrkdwn(truncate(asked.name, 100))}* ${code(asked.uid)}${inApp(appName)}`;
  if (asked.revoke === undefined) {
    return `Sign ${who} out everywhere? One request revokes every session they have when it is sent (${counted(asked.sessions.length, 'session')} now, and any begun since): every client signed in as them must sign in again.`;
  }
  const others = asked.sessions.length - 1;
  return `Revoke session ${code(asked.revoke)} of ${who}? That client must sign in again; ${counted(others, 'other session')} ${others === 1 ? 'stays' : 'stay'}.`;
}

/**
 * The review of revoking a user's sessions (`nowSeconds` dates their ages), for the users
 * feature's modal; a change too large to carry, why there is none.
 */
export function reviewSessionsChange(
  apps: Pick<Apps, 'multiple'>,
  app: CometChatApp,
  asked: AskedSessionsRevoke,
  origin: string,
  nowSeconds: number,
): View {
  const change = sessionsChangeOf(app.name, asked, origin);
  const metadata = valueWriter(app)(changeRecord(change));
  // Checked as Slack will carry it back: a review that could not be submitted is not offered.
  if (metadata.length > METADATA_LIMIT || !decodeChange(encodeChange(change))) {
    return messageView(USER_CHANGE_TITLE, tooManySessions(asked.revoke === undefined));
  }
  const shown = asked.sessions.filter(
    (s) => asked.revoke === undefined || s.fingerprint === asked.revoke,
  );
  return subjectReviewView({
    title: USER_CHANGE_TITLE,
    question: sessionsQuestion(asked, appNameIfMultiple(apps, app)),
    details: [
      ...change.changes.map((c) => sessionsChangeLine(c)),
      ...shown.slice(0, 10).map((s) => `• ${sessionLine(s, nowSeconds)}`),
      ...(shown.length > 10 ? [`…and ${shown.length - 10} more.`] : []),
      `*${SESSION_DROP_UNDOCUMENTED}*`,
      `Its record will have no _Revert_: ${SESSIONS_NO_REVERT}`,
    ],
    note: 'The sessions are read again when the change is sent: if a session to revoke is gone meanwhile, nothing is sent.',
    privateMetadata: metadata,
    approvalChannel: app.approval?.channel,
  });
}

/**
 * A review of a change to a user or a role itself (or a revert, of any kind): one question, its
 * lines, and when it is checked.
 */
export interface SubjectReview {
  /** The modal's title when no approval is asked for. */
  title: string;
  question: string;
  details?: readonly string[] | undefined;
  /** Under the lines: when what the review shows is checked again. */
  note: string;
  privateMetadata: string;
  approvalChannel: string | undefined;
  /** The submit button's label when no approval is asked for (else "Apply"). */
  submit?: string | undefined;
}

/** The review modal of a change to a user or to a role itself, or of a revert. Pure. */
export function subjectReviewView(review: SubjectReview): View {
  const { approvalChannel } = review;
  const asked = approvalChannel
    ? `Ask for approval in <#${approvalChannel}>: ${review.question} Nothing is sent until another person approves.`
    : review.question;
  return {
    type: 'modal',
    callback_id: CALLBACKS.permissionsConfirm,
    title: plain(approvalChannel ? 'Request approval' : review.title, 24),
    submit: plain(approvalChannel ? 'Request approval' : (review.submit ?? 'Apply'), 24),
    close: plain('Cancel', 24),
    private_metadata: review.privateMetadata,
    blocks: [
      section(asked),
      ...chunkedSections([...(review.details ?? [])]),
      context([review.note]),
      ...(approvalChannel ? [reasonInput()] : []),
    ],
  };
}

/**
 * The review of a change of a role's permissions: each key before and after, who the change
 * reaches (`holders`: CometChat's count, undefined when it could not say), and where "before"
 * came from; `catalogue` (the app's) names the keys.
 */
export function confirmView(
  change: Change,
  roleName: string,
  privateMetadata: string,
  appName?: string,
  /** Set when the app's changes need a second person: where the request goes. */
  approvalChannel?: string,
  { holders, catalogue }: { holders?: number | undefined; catalogue?: Catalogue | undefined } = {},
): View {
  const promoted = change.promotedFrom ? [promotedNote(change.promotedFrom, appName)] : [];
  const n = change.changes.length;
  // A group's scope is named by its guid and the scope (its `role` is only the name its map is
  // known under); it reaches the group's members of that scope, who are not counted.
  const scope = change.kind === 'scope-permissions';
  const named = scope
    ? `the ${scopeName(change)}`
    : `${escapeMrkdwn(roleName)} ${code(change.role)}`;
  const what = `${counted(n, 'change')} to ${named}${inApp(appName)}`;
  return {
    type: 'modal',
    callback_id: CALLBACKS.permissionsConfirm,
    title: plain(approvalChannel ? 'Request approval' : 'Confirm change', 24),
    submit: plain(approvalChannel ? 'Request approval' : 'Apply', 24),
    close: plain('Back', 24),
    private_metadata: privateMetadata,
    blocks: [
      section(
        approvalChannel
          ? `Ask for approval of ${what} in <#${approvalChannel}>? Nothing is sent until another person approves; then exactly these keys are sent.`
          : `Apply ${what}? Exactly these keys are sent; nothing else changes.`,
      ),
      ...chunkedSections(change.changes.map((c) => changeLine(c, change.kind, catalogue))),
      context([scope ? SCOPE_REACH : holdersLine(holders), ...promoted, seenNote(change)]),
      ...(approvalChannel ? [reasonInput()] : []),
    ],
  };
}

/** Whom a change of a group's scope reaches. */
const SCOPE_REACH =
  'It reaches every member of the group with this scope, now and later: CometChat applies a scope’s permissions to whoever holds it.';

function seenNote({ seenAt }: Pick<PermissionsChange, 'seenAt'>): string {
  return seenAt !== undefined
    ? `“Before” values are from the last update this app saw (${slackDate(Math.floor(seenAt / 1000))}).`
    : '“Before” values are the documented defaults: the live values could not be read.';
}

function promotedNote(from: PromotedFrom, appName: string | undefined): string {
  return `Promoted from *${escapeMrkdwn(from.app)}* (its change ${code(from.ref)}): the same keys and values, compared with what ${appName ? `*${escapeMrkdwn(appName)}*` : 'this app'} last returned.`;
}

/** The title of every modal of a deletion of messages, whichever feature draws it. */
export const DELETE_MESSAGES_TITLE = 'Delete messages';

/** A deletion of one user's messages, as a person chose it. */
export interface AskedDeletion {
  sender: string;
  permanent: boolean;
  /** Each message, and whether it is (soft) deleted already. */
  messages: readonly { id: string; deleted: boolean }[];
}

/** The change a person asked of a user's messages (see userChangeOf for `origin`). Pure. */
export function messageDeletionOf(
  app: string,
  asked: AskedDeletion,
  origin: string,
): MessageDeletionChange {
  const after = asked.permanent ? 'deleted permanently' : 'deleted';
  const changes = asked.messages.map(({ id, deleted }) => ({
    key: id,
    before: deleted ? 'deleted' : 'sent',
    after,
    explicit: false,
  }));
  return {
    kind: 'message-deletion',
    sender: asked.sender,
    permanent: asked.permanent,
    role: '',
    id: changeId(origin, app, `messages:${asked.sender}`, idPayload(changes)),
    changes,
  };
}

/** What a deletion does, in one question: soft, or named as permanent. Pure. */
export function deletionQuestion(
  change: Pick<MessageDeletionChange, 'sender' | 'permanent' | 'changes'>,
  appName?: string,
): string {
  const what = `${counted(change.changes.length, 'message')} of ${code(change.sender)}${inApp(appName)}`;
  return change.permanent
    ? `Delete ${what} *permanently*? They cannot be brought back.`
    : `Delete ${what}? A soft delete: CometChat keeps them and shows them as deleted.`;
}

/**
 * The review of a deletion of messages on the road (Apply goes the road): a soft deletion's
 * review, or a permanent one's last confirmation, which names it as permanent. `details` name
 * each message (ids, times, where; never its text). Too large to carry: why there is none. Pure.
 */
export function messageDeletionReview(
  change: MessageDeletionChange,
  details: readonly string[],
  where: {
    write: (value: Record<string, unknown>) => string;
    appName?: string | undefined;
    approvalChannel: string | undefined;
  },
): View {
  const metadata = where.write(changeRecord(change));
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      DELETE_MESSAGES_TITLE,
      'Too many messages to carry through Slack in one review; nothing was sent. Choose fewer.',
    );
  }
  return subjectReviewView({
    title: DELETE_MESSAGES_TITLE,
    question: deletionQuestion(change, where.appName),
    details,
    note: `Each message is read again when the deletion is sent: one gone or deleted meanwhile stops it, and nothing is sent. The record names the messages' ids, never their text, and has no _Revert_: ${NO_UNDELETE}`,
    privateMetadata: metadata,
    approvalChannel: where.approvalChannel,
    submit: change.permanent ? 'Delete permanently' : 'Delete',
  });
}

/** The title of every modal of a change to a group's member, whichever feature draws it. */
export const MEMBER_CHANGE_TITLE = 'Change a member';

/**
 * A change to one member of one group, as a person asked for it: their scope, a kick, a ban or
 * its lifting; `before` is where they stood when it was asked.
 */
export interface AskedMemberChange {
  guid: string;
  /** The group's name, to name it in the review (escaped where shown). */
  groupName: string;
  uid: string;
  key: 'scope' | 'membership' | 'ban';
  before: string;
  after: string;
}

/** The change a person asked of a group's member (see userChangeOf for `origin`). Pure. */
export function memberChangeOf(
  app: string,
  asked: AskedMemberChange,
  origin: string,
): GroupMemberChange {
  const target = `group:${asked.guid}:${asked.uid}`;
  return {
    kind: 'group-member',
    guid: asked.guid,
    uid: asked.uid,
    role: '',
    id: changeId(origin, app, target, { [asked.key]: asked.after }),
    changes: [{ key: asked.key, before: asked.before, after: asked.after, explicit: false }],
  };
}

/** What the review of a change to a member asks, in one sentence. Pure. */
function memberQuestion(asked: AskedMemberChange, appName: string | undefined): string {
  const group = `*${escapeMrkdwn(truncate(asked.groupName, 100))}* ${code(asked.guid)}${inApp(appName)}`;
  const who = code(asked.uid);
  if (asked.key === 'scope') {
    return `Change the scope of ${who} in ${group} from ${code(asked.before)} to ${code(asked.after)}? Their permissions in the group become those of the scope ${code(asked.after)}.`;
  }
  if (asked.key === 'membership') {
    return `Kick ${who} from ${group}? They leave the group; they may join again if the group lets them.`;
  }
  return asked.after === 'banned'
    ? `Ban ${who} from ${group}? They leave the group and cannot join again until the ban is lifted.`
    : `Lift the ban of ${who} in ${group}? They may join the group again (they are not added back).`;
}

/** The review of a change to a group's member, for the groups feature's modal. Pure. */
export function reviewMemberChange(
  apps: Pick<Apps, 'multiple'>,
  app: CometChatApp,
  asked: AskedMemberChange,
  origin: string,
): View {
  const change = memberChangeOf(app.name, asked, origin);
  const kick = asked.key === 'membership';
  return subjectReviewView({
    title: MEMBER_CHANGE_TITLE,
    question: memberQuestion(asked, appNameIfMultiple(apps, app)),
    details: [
      ...change.changes.map((c) => memberChangeLine(c)),
      ...(kick ? [`Its record will have no _Revert_: ${KICK_NO_REVERT}`] : []),
    ],
    note: '“Before” is what CometChat had when you asked; the group’s members (or banned users) are read again when the change is sent.',
    privateMetadata: valueWriter(app)(changeRecord(change)),
    approvalChannel: app.approval?.channel,
    submit: kick ? 'Kick' : undefined,
  });
}
