import type { View } from '@slack/types';
import { type Apps, appNameIfMultiple, type CometChatApp, valueWriter } from '../apps/apps.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import { counted, inApp } from '../replies/sentences.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../slack/mrkdwn.ts';
import type { AuditStep } from '../store/store.ts';
import {
  type ContainmentChange,
  changeId,
  changeRecord,
  decodeChange,
  encodeChange,
  type KeyChange,
  MAX_CONTAINMENT_GROUPS,
  METADATA_LIMIT,
} from './change.ts';
import { MAX_CONTAINMENT_DELETIONS } from './kinds/containment.ts';
import { SESSION_DROP_UNDOCUMENTED } from './kinds/sessions.ts';
import { subjectReviewView } from './review.ts';
import { messageView } from './views.ts';

// The review of a containment, and its steps in words wherever a containment is shown (the
// review, a revert's review, an outcome): the steps in the order they are sent.

export const CONTAIN_TITLE = 'Contain a user';

/** A containment as a person asked for it, with what the app read for its review. */
export interface AskedContainment {
  uid: string;
  /** The user's name (escaped where shown). */
  name: string;
  role: string;
  /** How many sessions the user has now. */
  sessions: number;
  /** The groups to ban the user from; none or absent: no ban. */
  groups?: readonly string[] | undefined;
  /** Groups the user is in beyond those a containment carries (MAX_CONTAINMENT_GROUPS). */
  groupsLeftOut?: number | undefined;
  /** The messages to soft-delete: since when (Unix seconds), and how many there are now. */
  since?: { at: number; count: number } | undefined;
}

/** The change a containment review carries (see userChangeOf for `origin`). Pure. */
export function containmentChangeOf(
  app: string,
  asked: AskedContainment,
  origin: string,
): ContainmentChange {
  const groups = (asked.groups ?? []).slice(0, MAX_CONTAINMENT_GROUPS);
  const changes: KeyChange[] = [
    { key: 'sessions', before: String(asked.sessions), after: '0', explicit: false },
    ...(groups.length > 0 ? [{ key: 'bans', before: [], after: groups, explicit: false }] : []),
    ...(asked.since
      ? [{ key: 'messagesSince', before: null, after: String(asked.since.at), explicit: false }]
      : []),
    { key: 'status', before: 'active', after: 'deactivated', explicit: false },
  ];
  const payload = Object.fromEntries(changes.map((c) => [c.key, c.after]));
  return {
    kind: 'containment',
    uid: asked.uid,
    role: asked.role,
    id: changeId(origin, app, `user:${asked.uid}`, payload),
    changes,
  };
}

/** The review of a containment: its steps in order, what always happens, what cannot come back. */
export function reviewContainment(
  apps: Pick<Apps, 'multiple'>,
  app: CometChatApp,
  asked: AskedContainment,
  origin: string,
): View {
  const change = containmentChangeOf(app.name, asked, origin);
  const metadata = valueWriter(app)(changeRecord(change));
  // Never offered unless Slack can carry it back as the same change (a guid the service wrote
  // otherwise, say): Apply would otherwise be refused as a review the app did not sign.
  if (metadata.length > METADATA_LIMIT || !decodeChange(encodeChange(change))) {
    return messageView(
      CONTAIN_TITLE,
      'This containment cannot be carried through Slack in one review (too many groups, or a group id in a form the app does not send back); nothing was sent. Contain without the bans, then ban from the group cards.',
    );
  }
  const who = `*${escapeMrkdwn(truncate(asked.name, 100))}* ${code(asked.uid)}${inApp(appNameIfMultiple(apps, app))}`;
  return subjectReviewView({
    title: CONTAIN_TITLE,
    question: `Contain ${who}? These steps are sent in this order:`,
    details: [...containmentSteps(change, asked), ...leftOut(asked)],
    note: 'Revoking and deactivating happen even when a ban or a deletion fails; each step’s outcome is recorded, and a failed one marks the record partial. Its Revert reactivates the account and lifts the bans; revoked sessions and deleted messages do not come back. The account is read again when it is sent.',
    privateMetadata: metadata,
    approvalChannel: app.approval?.channel,
  });
}

/** The numbered steps of a containment, or of its revert, in the order they are sent. Pure. */
export function containmentSteps(
  change: Pick<ContainmentChange, 'changes'>,
  counts: Pick<AskedContainment, 'since'> = {},
): string[] {
  const lines = change.changes.map((c) => stepLine(c, counts));
  return lines.map((line, i) => `${i + 1}. ${line}`);
}

function stepLine(c: KeyChange, counts: Pick<AskedContainment, 'since'>): string {
  const groups = (value: unknown) =>
    Array.isArray(value) ? value.map((guid) => code(String(guid))).join(', ') : '';
  switch (c.key) {
    case 'sessions': {
      const n = Number(c.before);
      return `*Revoke every session* (${counted(n, 'session')} now; any opened meanwhile too). ${SESSION_DROP_UNDOCUMENTED}`;
    }
    case 'bans':
      return Array.isArray(c.after) && c.after.length > 0
        ? `*Ban from ${counted(c.after.length, 'group')}*: ${groups(c.after)}. They leave each and cannot rejoin until unbanned.`
        : `*Lift the bans* in ${groups(c.before)}.`;
    case 'messagesSince': {
      const at = Number(c.after);
      const count = counts.since ? `${counted(counts.since.count, 'message')} now, ` : '';
      return `*Soft-delete their messages sent since* ${slackDate(at)} (${count}up to ${MAX_CONTAINMENT_DELETIONS}; kept by CometChat, shown as deleted).`;
    }
    default:
      return c.after === 'deactivated'
        ? '*Deactivate the account*, last: CometChat answers a deactivated user’s uid as unknown, so the steps above need it active.'
        : '*Reactivate the account*, first: the bans are lifted by uid, which CometChat answers only for an active user.';
  }
}

function leftOut(asked: AskedContainment): string[] {
  const more = asked.groupsLeftOut ?? 0;
  return more > 0
    ? [
        `They are in ${counted(more, 'more group')} than one containment bans from (${MAX_CONTAINMENT_GROUPS}); ban them there from the group's card or CometChat's dashboard.`,
      ]
    : [];
}

/** Each step's outcome as a line: what took, and what did not. Pure. */
export function stepOutcomeLines(steps: readonly AuditStep[]): string[] {
  const mark = { applied: ':white_check_mark:', failed: ':x:', unknown: ':grey_question:' };
  return steps.map((s) => `${mark[s.outcome]} ${escapeMrkdwn(truncate(s.message, 300))}`);
}

/** A containment's key as a plain line (the audit list's cells): what the step did. Pure. */
export function containmentKeyText(c: {
  key: string;
  before: PermissionValue | undefined;
  after: PermissionValue;
}): string {
  const list = (value: PermissionValue | undefined) => (Array.isArray(value) ? value : []);
  switch (c.key) {
    case 'sessions':
      return `every session revoked (${counted(Number(c.before), 'session')} at the review)`;
    case 'bans':
      return list(c.after).length > 0
        ? `banned from ${list(c.after).join(', ')}`
        : `bans lifted in ${list(c.before).join(', ')}`;
    case 'messagesSince':
      return `messages since ${new Date(Number(c.after) * 1000).toISOString()} soft-deleted`;
    default:
      return `account ${String(c.before)} → ${String(c.after)}`;
  }
}
