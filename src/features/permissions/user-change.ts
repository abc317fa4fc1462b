import type { View } from '@slack/types';
import { type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import { inApp } from '../../voice/sentences.ts';
import {
  type FeatureDeps,
  USER_CHANGE_TITLE,
  type UserChange,
  type UserChangeReview,
} from '../deps.ts';
import { type ConfirmMetadata, changeId, confirmRecord } from './editor-state.ts';
import { subjectReviewView } from './subject-review.ts';

// A change to a user, reviewed like a change to a role: the same confirmation callback, so
// "Apply" and "Request approval" run the same flows (apply-flow.ts, request-approval.ts), with
// the same checks, claim, intent and audit. Only what the modal says is the user's own.

/** The change as the confirmation carries it (sealed for the app). Pure. */
export function userChangeMeta(app: string, change: UserChange, origin: string): ConfirmMetadata {
  return {
    role: change.role,
    subject: { kind: 'user', uid: change.uid },
    id: changeId(origin, app, `user:${change.uid}`, { [change.key]: change.after }),
    changes: [{ key: change.key, before: change.before, after: change.after, explicit: false }],
  };
}

/** What the confirmation asks, in one sentence. Pure. */
export function userChangeQuestion(change: UserChange, appName: string | undefined): string {
  const who = `*${escapeMrkdwn(truncate(change.name, 100))}* ${code(change.uid)}${inApp(appName)}`;
  if (change.key === 'role') {
    return `Change the role of ${who} from ${code(change.before)} to ${code(change.after)}? The user then has exactly the permissions of ${code(change.after)}.`;
  }
  return change.after === 'deactivated'
    ? `Deactivate ${who}? They can no longer log in or chat; their messages, groups and data are kept, and _Reactivate_ undoes it. Nothing is ever deleted.`
    : `Reactivate ${who}? They can log in and chat again, with role ${code(change.role)}.`;
}

/** The confirmation modal of a user change. Pure. */
export function userChangeView(
  change: UserChange,
  privateMetadata: string,
  appName: string | undefined,
  approvalChannel: string | undefined,
): View {
  return subjectReviewView({
    title: USER_CHANGE_TITLE,
    question: userChangeQuestion(change, appName),
    details: change.details,
    note: '“Before” is what CometChat had when you asked; it is checked again when the change is sent.',
    privateMetadata,
    approvalChannel,
  });
}

/** The review the users feature opens (AppDeps.reviewUserChange). */
export function userChangeReview(deps: Pick<FeatureDeps, 'apps'>): UserChangeReview {
  return (app: CometChatApp, change, origin) => {
    const meta = userChangeMeta(app.name, change, origin);
    const metadata = valueWriter(app)(confirmRecord(meta));
    const appName = deps.apps.several ? app.name : undefined;
    return userChangeView(change, metadata, appName, app.approval?.channel);
  };
}
