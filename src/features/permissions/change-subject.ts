import type { CometChatApp } from '../../apps/apps.ts';
import type { CometChatClient, RequestOptions } from '../../cometchat/client.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import type { KeyResult, PermissionMap, Role } from '../../cometchat/schemas.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type RequestScope, tracedBy } from '../../slack/request-context.ts';
import type { ChangeSubject, KnownPermissions, Store } from '../../store/store.ts';
import { ChangeNotTaken } from '../../voice/failure.ts';
import { inApp } from '../../voice/sentences.ts';
import { permissionKeyText } from '../permission-key-text.ts';
import { type Change, changePayload, type UserKeyChange, userKeyChange } from './editor-state.ts';
import {
  type RoleChangeClient,
  roleChangeDone,
  roleHasChange,
  roleStaleness,
  sendRoleChange,
} from './role-definition.ts';

// What a change acts on: a role's permissions (no subject), or a CometChat user's role or
// account (subject). Everything else about a change is the same whatever it acts on: who may,
// the approval, the claim, the intent, the audit. These are the places where the subject
// makes a difference: what is sent, how "has it changed since the review?" is asked, and how
// the change is named.

/** What a change's answer says, key by key; a permission update also carries the role's map. */
export interface Sent {
  results: Record<string, KeyResult>;
  permissions?: PermissionMap | undefined;
}

/** What a change may send: the client's writes, and the reads that check them. */
export type ChangeClient = Pick<
  CometChatClient,
  | 'setRolePermissions'
  | 'unsetRolePermission'
  | 'setUserRole'
  | 'deactivateUsers'
  | 'reactivateUsers'
  | 'getUser'
> &
  RoleChangeClient;

/** A change to a user's, or undefined when it is not one. */
export function userSubject(change: {
  subject?: ChangeSubject | undefined;
}): Extract<ChangeSubject, { kind: 'user' }> | undefined {
  return change.subject?.kind === 'user' ? change.subject : undefined;
}

/** A change to a role itself (created, renamed, deleted), or undefined when it is not one. */
export function roleSubject(change: {
  subject?: ChangeSubject | undefined;
}): Extract<ChangeSubject, { kind: 'role' }> | undefined {
  return change.subject?.kind === 'role' ? change.subject : undefined;
}

/**
 * Sends the change to CometChat: the role's changed keys, the user's one change (its role or
 * its account), or the role's own change. Changes that are not one of those are refused where
 * the confirmation is read (ConfirmSchema); one that reaches here all the same sends nothing.
 */
export async function sendChange(
  client: ChangeClient,
  change: { role: string; subject?: ChangeSubject | undefined; changes: readonly Change[] },
  request: RequestOptions,
): Promise<Sent> {
  const { subject } = change;
  if (!subject) return sendPermissions(client, change.role, change.changes, request);
  if (subject.kind === 'role') {
    return sendRoleChange(client, { ...change, action: subject.action }, request);
  }
  const one = userKeyChange(change.changes);
  if (!one) throw new Error('a change to a user is exactly one change of its role or account');
  return { results: { [one.key]: await sendUserKey(client, subject.uid, one, request) } };
}

/** One key unset; a key CometChat says is not set is at its default already (undefined). */
function unsetOnce(client: ChangeClient, role: string, key: string, request: RequestOptions) {
  return client.unsetRolePermission(role, key, request).catch((error: unknown) => {
    if (isCometChatError(error) && error.serviceCode === 'ERR_PERMISSION_NOT_FOUND') {
      return undefined;
    }
    throw error;
  });
}

/**
 * A reset that failed after other keys of the same change were applied: part of it took, so
 * the outcome is not known as a whole (recorded as unknown; the editor shows the role again).
 */
function partlySent(role: string, key: string, error: unknown): ChangeNotTaken {
  const why = isCometChatError(error) ? error.kind : 'an error inside the app';
  const said = `applied part of the change but not the reset of ${key} (${why})`;
  return new ChangeNotTaken(
    code(role),
    {
      plain: said,
      mrkdwn: `applied part of the change but not the reset of ${code(key)} (${why})`,
    },
    true,
  );
}

/**
 * A role's permissions: the keys to set in one update, then each key to unset (back to its
 * default) by CometChat's own unset, one request a key. The last answer holds the role's map.
 * A key CometChat says is not set is at its default already, which is what was asked.
 */
async function sendPermissions(
  client: ChangeClient,
  role: string,
  changes: readonly Change[],
  request: RequestOptions,
): Promise<Sent> {
  const toSet = changePayload(changes.filter((c) => !c.unset));
  let sent: Sent = { results: {} };
  if (Object.keys(toSet).length > 0) sent = await client.setRolePermissions(role, toSet, request);
  for (const { key } of changes.filter((c) => c.unset)) {
    const unset = await unsetOnce(client, role, key, request).catch((error: unknown) => {
      throw Object.keys(sent.results).length > 0 || sent.permissions
        ? partlySent(role, key, error)
        : error;
    });
    const message = unset ? 'back to its default' : 'was not set: at its default already';
    sent = {
      results: { ...sent.results, [key]: { success: true, message } },
      permissions: unset?.permissions ?? sent.permissions,
    };
  }
  return sent;
}

async function sendUserKey(
  client: ChangeClient,
  uid: string,
  { key, after }: UserKeyChange,
  request: RequestOptions,
): Promise<KeyResult> {
  if (key === 'role') {
    const user = await client.setUserRole(uid, after, request);
    if (user.role !== after) {
      throw new ChangeNotTaken(`user ${code(uid)}`, {
        plain: `answered with role ${user.role}, not ${after}`,
        mrkdwn: `answered with role ${code(user.role)}, not ${code(after)},`,
      });
    }
    return { success: true, message: `role is now ${user.role}` };
  }
  const uids =
    after === 'deactivated'
      ? await client.deactivateUsers([uid], request)
      : await client.reactivateUsers([uid], request);
  // CometChat lists the uids it changed; one it does not list may have been in that state
  // already (a retried request, another change meanwhile): the user, read again, says.
  if (!uids.includes(uid) && accountOf(await client.getUser(uid, request)) !== after) {
    const answered = `did not list the user as ${after}`;
    throw new ChangeNotTaken(`user ${code(uid)}`, { plain: answered, mrkdwn: answered });
  }
  return { success: true, message: `account is now ${after}` };
}

/**
 * What a user has after a change CometChat confirmed, key by key: "role is now `vip`". Built
 * from the change, which CometChat's answer matched (else it did not take), so ids stay exact
 * code and nothing CometChat wrote reaches mrkdwn unescaped. Pure.
 */
export function userChangeDone(changes: readonly { key: string; after: unknown }[]): string {
  return changes
    .map(({ key, after }) =>
      key === 'role' ? `role is now ${code(String(after))}` : `the account is now ${String(after)}`,
    )
    .join('; ');
}

/**
 * What a change to a user or to a role itself did, once CometChat confirmed it: "role is now
 * `vip`", "created, with 3 permissions set". Built from the change, as userChangeDone. A role's
 * permissions are said so only when CometChat answered no map (see keysAtDefaultDone). Pure.
 */
export function subjectChangeDone(change: {
  subject?: ChangeSubject | undefined;
  changes: readonly { key: string; after: unknown }[];
}): string {
  const role = roleSubject(change);
  if (role) return roleChangeDone(role.action, change.changes);
  return change.subject ? userChangeDone(change.changes) : keysAtDefaultDone(change.changes);
}

/**
 * A change of a role's permissions whose answer held no map: one that only unset keys, none of
 * them set, so each was at its default already (sendPermissions); nothing else answers without
 * one. Pure.
 */
function keysAtDefaultDone(changes: readonly { key: string }[]): string {
  const keys = changes.map(({ key }) => permissionKeyText(key)).join(', ');
  const one = changes.length === 1;
  return `${keys} ${one ? 'was' : 'were'} not set in CometChat: ${one ? 'it was at its' : 'each was at its'} default already`;
}

/** What CometChat has now of the user a failed change was about, in one sentence. Pure. */
export function userNowText(user: User | undefined): string {
  if (!user) return 'What CometChat has now of the user could not be read; look them up again.';
  return `CometChat has now: role ${code(user.role)}, account ${accountOf(user)}.`;
}

/** The user's value of a change's key as CometChat has it now. */
function currentValue(user: User, key: string): string {
  return key === 'role' ? user.role : accountOf(user);
}

/** What "has it changed since the review?" found (see changedSinceReview). */
export interface SinceReview {
  changed: boolean;
  /** The role's last known map, for a change of its permissions. */
  known: KnownPermissions | undefined;
  /** The user as CometChat has them now, for a change to a user. */
  user?: User | undefined;
  /** The roles as CometChat has them now, for a change to a role itself. */
  roles?: readonly Role[] | undefined;
  /** For a change to a role itself that changed: why, in one sentence. */
  why?: string | undefined;
}

/**
 * Whether what the change was reviewed against is still so: for a role's permissions, no other
 * change of it was seen since (the store's last known map); for a user, CometChat still has the
 * "before" of every key; for a role itself, it is (or, to create, is not) in CometChat's list
 * as the review saw it, and a new one still fits.
 */
export async function changedSinceReview(
  deps: { store: Pick<Store, 'getKnownPermissions'> },
  app: Pick<CometChatApp, 'name'> & {
    cometchat: Pick<CometChatClient, 'getUser' | 'listAllRoles'>;
  },
  change: {
    role: string;
    subject?: ChangeSubject | undefined;
    seenAt?: number | undefined;
    changes: readonly { key: string; before?: unknown; after: unknown }[];
  },
  scope: RequestScope,
): Promise<SinceReview> {
  const { subject } = change;
  if (!subject) {
    const known = await deps.store.getKnownPermissions(app.name, change.role);
    return { changed: known?.seenAt !== change.seenAt, known };
  }
  if (subject.kind === 'role') {
    const roles = await app.cometchat.listAllRoles({ ...tracedBy(scope), fresh: true });
    const why = roleStaleness(roles, { ...change, action: subject.action });
    return { changed: why !== undefined, known: undefined, roles, why };
  }
  const user = await app.cometchat.getUser(subject.uid, tracedBy(scope));
  const changed = change.changes.some(({ key, before }) => currentValue(user, key) !== before);
  return { changed, known: undefined, user };
}

/**
 * Whether CometChat, as `found` read it, already has every "after" of a change to a user or to a
 * role itself: after an attempt whose outcome was not known, it may well have taken. Pure.
 */
export function alreadyHasChange(
  found: SinceReview,
  change: {
    role: string;
    subject?: ChangeSubject | undefined;
    changes: readonly { key: string; after: unknown }[];
  },
): boolean {
  const role = roleSubject(change);
  if (role && found.roles) return roleHasChange(found.roles, { ...change, action: role.action });
  return found.user !== undefined && userHasChange(found.user, change);
}

/**
 * Whether `user` already has every "after" of a change: after an attempt whose outcome was not
 * known, the user may well hold the change already, and then it did take. Pure.
 */
export function userHasChange(
  user: User,
  change: { changes: readonly { key: string; after: unknown }[] },
): boolean {
  return change.changes.every(({ key, after }) => currentValue(user, key) === after);
}

/** "`role`", "user `uid`", or "role `vip` (new)": what a change acts on. */
export function subjectText(change: { role: string; subject?: ChangeSubject | undefined }): string {
  const { subject } = change;
  if (!subject) return code(change.role);
  if (subject.kind === 'user') return `user ${code(subject.uid)}`;
  return `role ${code(change.role)}${subject.action === 'create' ? ' (new)' : ''}`;
}

/** {@link subjectText}, with the app when several are configured. */
export function subjectIn(
  change: { role: string; subject?: ChangeSubject | undefined },
  label: { appName?: string | undefined },
): string {
  return `${subjectText(change)}${inApp(label.appName)}`;
}
