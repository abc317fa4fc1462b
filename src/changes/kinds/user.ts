import { accountOf, type User } from '../../cometchat/model.ts';
import type { KeyResult } from '../../cometchat/schemas.ts';
import { ChangeNotTaken, LOOK_UP_USER } from '../../replies/failure.ts';
import { code } from '../../slack/mrkdwn.ts';
import {
  type AccountChange,
  type KeyChange,
  type UserKeyChange,
  type UserRoleChange,
  userKeyChange,
} from '../change.ts';
import { type ChangeClient, type Kind, NO_FACTS } from './kind.ts';

// A user's role, or their account (deactivated, active again): one key each. "Is it still as
// reviewed?" is asked of the user as CometChat has them now.

/** Said when a user is no longer as the review showed them: nothing was sent. */
export const USER_CHANGED = `The user changed in CometChat since the review, so nothing was sent. ${LOOK_UP_USER} to see what they have now.`;

export function userKind(change: UserRoleChange | AccountChange): Kind {
  return {
    target: `user:${change.uid}`,
    name: `user ${code(change.uid)}`,
    done: userChangeDone(change.changes),
    outOfDate: USER_CHANGED,
    logged: 'user changed',
    async send(client) {
      const one = userKeyChange(change.changes);
      if (!one) throw new Error('a change to a user is exactly one change of its role or account');
      return { results: { [one.key]: await sendUserKey(client, change.uid, one) } };
    },
    async sinceReview({ app }) {
      const user = await app.cometchat.getUser(change.uid);
      const changed = change.changes.some(({ key, before }) => currentValue(user, key) !== before);
      return { changed, has: userHasChange(user, change) };
    },
    recordFacts: NO_FACTS,
  };
}

async function sendUserKey(
  client: ChangeClient,
  uid: string,
  { key, after }: UserKeyChange,
): Promise<KeyResult> {
  if (key === 'role') {
    const user = await client.setUserRole(uid, after);
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
      ? await client.deactivateUsers([uid])
      : await client.reactivateUsers([uid]);
  // CometChat lists the uids it changed; one it does not list may have been in that state
  // already (a retried request, another change meanwhile): the user, read again, says.
  if (!uids.includes(uid) && accountOf(await client.getUser(uid)) !== after) {
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
function userChangeDone(changes: readonly Pick<KeyChange, 'key' | 'after'>[]): string {
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
 * Whether `user` already has every "after" of a change: after an attempt whose outcome was not
 * known, the user may well hold the change already, and then it did take. Pure.
 */
function userHasChange(
  user: User,
  change: { changes: readonly { key: string; after: unknown }[] },
): boolean {
  return change.changes.every(({ key, after }) => currentValue(user, key) === after);
}
