import type { CometChatApp } from '../../apps/apps.ts';
import type { CometChatClient, RequestOptions } from '../../cometchat/client.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import type { KeyResult, PermissionMap } from '../../cometchat/schemas.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type RequestScope, tracedBy } from '../../slack/request-context.ts';
import type { ChangeSubject, KnownPermissions, Store } from '../../store/store.ts';
import { ChangeNotTaken } from '../../voice/failure.ts';
import { inApp } from '../../voice/sentences.ts';
import { type Change, changePayload, type UserKeyChange, userKeyChange } from './editor-state.ts';

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

/** What a change may send: the client's writes. */
export type ChangeClient = Pick<
  CometChatClient,
  'setRolePermissions' | 'setUserRole' | 'deactivateUsers' | 'reactivateUsers' | 'getUser'
>;

/**
 * Sends the change to CometChat: the role's changed keys, or the user's one change (its role or
 * its account). Changes to a user that are not exactly one of those are refused where the
 * confirmation is read (ConfirmSchema); one that reaches here all the same sends nothing.
 */
export async function sendChange(
  client: ChangeClient,
  change: { role: string; subject?: ChangeSubject | undefined; changes: readonly Change[] },
  request: RequestOptions,
): Promise<Sent> {
  const { subject } = change;
  if (!subject)
    return client.setRolePermissions(change.role, changePayload(change.changes), request);
  const one = userKeyChange(change.changes);
  if (!one) throw new Error('a change to a user is exactly one change of its role or account');
  return { results: { [one.key]: await sendUserKey(client, subject.uid, one, request) } };
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
      throw new ChangeNotTaken(uid, {
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
    throw new ChangeNotTaken(uid, { plain: answered, mrkdwn: answered });
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

/** What CometChat has now of the user a failed change was about, in one sentence. Pure. */
export function userNowText(user: User | undefined): string {
  if (!user) return 'What CometChat has now of the user could not be read; look them up again.';
  return `CometChat has now: role ${code(user.role)}, account ${accountOf(user)}.`;
}

/** The user's value of a change's key as CometChat has it now. */
function currentValue(user: User, key: string): string {
  return key === 'role' ? user.role : accountOf(user);
}

/**
 * Whether what the change was reviewed against is still so: for a role, no other change of it
 * was seen since (the store's last known map); for a user, CometChat still has the "before" of
 * every key. `known` is the role's last known map, for the caller that shows it; `user`, the
 * user as CometChat has them now.
 */
export async function changedSinceReview(
  deps: { store: Pick<Store, 'getKnownPermissions'> },
  app: Pick<CometChatApp, 'name'> & { cometchat: Pick<CometChatClient, 'getUser'> },
  change: {
    role: string;
    subject?: ChangeSubject | undefined;
    seenAt?: number | undefined;
    changes: readonly { key: string; before?: unknown }[];
  },
  scope: RequestScope,
): Promise<{ changed: boolean; known: KnownPermissions | undefined; user?: User }> {
  if (!change.subject) {
    const known = await deps.store.getKnownPermissions(app.name, change.role);
    return { changed: known?.seenAt !== change.seenAt, known };
  }
  const user = await app.cometchat.getUser(change.subject.uid, tracedBy(scope));
  const changed = change.changes.some(({ key, before }) => currentValue(user, key) !== before);
  return { changed, known: undefined, user };
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

/** "`role`", or "user `uid`": what a change acts on. */
export function subjectText(change: { role: string; subject?: ChangeSubject | undefined }): string {
  return change.subject ? `user ${code(change.subject.uid)}` : code(change.role);
}

/** {@link subjectText}, with the app when several are configured. */
export function subjectIn(
  change: { role: string; subject?: ChangeSubject | undefined },
  label: { appName?: string | undefined },
): string {
  return `${subjectText(change)}${inApp(label.appName)}`;
}
