import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { editRefusal } from '../../access/edit-refusal.ts';
import { openSigned } from '../../apps/apps.ts';
import {
  type AskedSessionsRevoke,
  replyPrivately,
  reviewSessionsChange,
  USER_CHANGE_TITLE,
} from '../../changes/index.ts';
import type { Session } from '../../cometchat/account-model.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import { LOOK_UP_USER } from '../../replies/failure.ts';
import { currentRequest } from '../../request-context.ts';
import { messageModal } from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import { SessionValue, UidValue } from './user-values.ts';

// A user's sessions revoked from their card: _Sign out everywhere_ and a session's _Revoke_ open
// the review at once, with the sessions read again; the review, approval, sending and audit are
// every change's (src/changes).

/**
 * The sessions to review revoking `revoke` (a fingerprint; undefined: every session) of, or why
 * there is nothing to review: a deactivated account (CometChat lists none of its sessions: they
 * are `undefined`), no session at all, or the session gone since the card was drawn. Pure.
 */
export function sessionsToReview(
  user: Pick<User, 'uid' | 'deactivatedAt'>,
  sessions: readonly Session[] | undefined,
  revoke: string | undefined,
): { sessions: readonly Session[] } | { problem: string } {
  const uid = code(user.uid);
  if (accountOf(user) === 'deactivated' || sessions === undefined) {
    return {
      problem: `${uid} is deactivated: CometChat does not list a deactivated account's sessions, so none can be revoked. Nothing was sent.`,
    };
  }
  if (sessions.length === 0) {
    return { problem: `${uid} has no sessions: there is nothing to revoke, and nothing was sent.` };
  }
  if (revoke !== undefined && !sessions.some((s) => s.fingerprint === revoke)) {
    return {
      problem: `Session ${code(revoke)} of ${uid} is gone since the card was drawn (revoked, or signed out), so nothing was sent. ${LOOK_UP_USER} to see their sessions now.`,
    };
  }
  return { sessions };
}

/** What a button asks to revoke, read from its signed value: a user's session, or every one. */
function revokeAsked(deps: Pick<AppDeps, 'apps'>, raw: string | undefined, everywhere: boolean) {
  if (everywhere) {
    const { app, value } = openSigned(deps.apps, UidValue, raw);
    return { app, uid: value.uid, revoke: undefined };
  }
  const { app, value } = openSigned(deps.apps, SessionValue, raw);
  return { app, uid: value.uid, revoke: value.session };
}

/** _Sign out everywhere_ (`everywhere`) or a session's _Revoke_: its review, for an editor. */
function createRevokeButton(deps: AppDeps, everywhere: boolean) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, uid, revoke } = revokeAsked(deps, action.value, everywhere);
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, body.user.id, log, 'change a user');
    if (refusal) return replyPrivately(deps, args, refusal);
    const modal = { triggerId: body.trigger_id, title: USER_CHANGE_TITLE };
    await loadIntoModal(deps, modal, async (viewId) => {
      const user = await app.cometchat.getUser(uid);
      // A deactivated account's sessions are not listed (`ERR_UID_NOT_FOUND`): not asked.
      const sessions =
        accountOf(user) === 'deactivated' ? undefined : await app.cometchat.listSessions(user.uid);
      const found = sessionsToReview(user, sessions, revoke);
      if ('problem' in found) return messageModal(USER_CHANGE_TITLE, found.problem);
      const asked: AskedSessionsRevoke = {
        uid: user.uid,
        name: user.name,
        role: user.role,
        sessions: found.sessions,
        revoke,
      };
      const nowSeconds = Math.floor(deps.now() / 1000);
      return reviewSessionsChange(deps.apps, app, asked, viewId, nowSeconds);
    });
  };
}

export function registerUserSessions(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userSignOut, createRevokeButton(deps, true));
  bolt.action<BlockAction<ButtonAction>>(
    ACTIONS.userRevokeSession,
    createRevokeButton(deps, false),
  );
}
