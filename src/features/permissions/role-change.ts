import type { View } from '@slack/types';
import { type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { MAX_ROLES } from '../../cometchat/id-rules.ts';
import type { Role } from '../../cometchat/schemas.ts';
import { actions, button, section } from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn } from '../../slack/mrkdwn.ts';
import { inApp, roleHoldersSentence, roleLimitSentence } from '../../voice/sentences.ts';
import { ROLE_CHANGE_TITLE, type RoleChange, type RoleChangeReview } from '../deps.ts';
import {
  type AppliedChange,
  type ConfirmMetadata,
  changeId,
  confirmRecord,
  METADATA_LIMIT,
} from './editor-state.ts';
import { messageView, type PromotionOffer } from './editor-view.ts';
import { type RoleAction, roleAsk, roleChangeLines } from './role-definition.ts';
import { subjectReviewView } from './subject-review.ts';

// A change to a role itself (created, renamed or described, deleted), reviewed like every other
// change: the same confirmation callback, so "Apply" and "Request approval" run the same flows
// (apply-flow.ts, request-approval.ts) with the same checks, claim, intent and audit. What is
// sent and checked is role-definition.ts's; what the modal says is the roles feature's question.

const TOO_LARGE =
  'This change is too large to carry through Slack in one review: nothing was sent. Create the role with fewer permissions (or none), then set the rest in the editor.';

/** The change as the confirmation carries it (sealed for the app). Pure. */
export function roleChangeMeta(app: string, change: RoleChange, origin: string): ConfirmMetadata {
  const changes = change.changes.map((c) => ({ ...c, explicit: false }));
  return {
    role: change.role,
    subject: { kind: 'role', action: change.action },
    id: changeId(
      origin,
      app,
      `role ${change.action}:${change.role}`,
      Object.fromEntries(changes.map((c) => [c.key, c.after])),
    ),
    changes,
  };
}

/** The confirmation modal of a role change. Pure. */
export function roleChangeView(
  change: RoleChange,
  privateMetadata: string,
  approvalChannel: string | undefined,
): View {
  return subjectReviewView({
    title: ROLE_CHANGE_TITLE,
    question: change.question,
    details: change.details,
    note: 'CometChat’s role list is read again when the change is sent: if the role changed meanwhile, nothing is sent.',
    privateMetadata,
    approvalChannel,
  });
}

/**
 * The result of an applied role change, with the same change offered to each app where it can
 * be made the same (`promoteTo`), when `metadata` carries it. Pure.
 */
export function roleResultView(
  sentence: string,
  metadata: string | undefined,
  promoteTo: readonly PromotionOffer[],
): View {
  const offer = metadata ? promoteTo.slice(0, 25) : [];
  const buttons = offer.map(({ app, value }) =>
    button(`Apply the same to ${app}`, `${ACTIONS.promoteChange}:${app}`, value),
  );
  return {
    ...messageView('Applied', [
      section(sentence),
      // Each opens that app's own review; nothing is sent from here.
      ...(buttons.length > 0 ? [actions(buttons)] : []),
    ]),
    ...(buttons.length > 0 && metadata ? { private_metadata: metadata } : {}),
  };
}

/** What another app has of the role a promoted role change is about. */
export interface PromotionTarget {
  roles: readonly Role[];
  /** For a deletion: how many users hold the role there, deactivated ones included. */
  holders?: number | undefined;
  approvalChannel?: string | undefined;
  write: (value: unknown) => string;
  appName?: string | undefined;
}

/**
 * A role change applied to one app, as that app's own review: the same name, description or
 * permissions, each "before" that app's own; or why it cannot be made there. Pure.
 */
export function rolePromotionView(
  applied: AppliedChange & { subject: { kind: 'role'; action: RoleAction } },
  input: { from: string; to: string; target: PromotionTarget },
): View {
  const { target } = input;
  const action = applied.subject.action;
  const there = target.roles.find((r) => r.role === applied.role);
  const why = rolePromotionProblem(applied, target.roles, target.appName);
  if (why) return messageView('Apply to another app', why);
  const changes = applied.changes.map(({ key, after }) => ({
    key,
    before: beforeThere(key, there),
    after,
  }));
  const holders = target.holders ?? 0;
  const change: RoleChange = {
    action,
    role: applied.role,
    changes,
    question: `The change made in *${escapeMrkdwn(input.from)}*: ${roleAsk(action, applied.role)}${inApp(target.appName)}?${action === 'delete' ? ` ${roleHoldersSentence(holders, ' there')}` : ''}`,
    details: roleChangeLines(changes),
  };
  const meta: ConfirmMetadata = {
    ...roleChangeMeta(input.to, change, `promoted ${applied.ref}`),
    promotedFrom: { app: input.from, ref: applied.ref },
  };
  const metadata = target.write(confirmRecord(meta));
  if (metadata.length > METADATA_LIMIT) return messageView(ROLE_CHANGE_TITLE, TOO_LARGE);
  return roleChangeView(change, metadata, target.approvalChannel);
}

/** A role field's value in the other app, the "before" of the promoted change there. */
function beforeThere(key: string, there: Role | undefined): string | null {
  if (key === 'role') return there?.role ?? null;
  if (key === 'name') return there?.name ?? null;
  if (key === 'description') return there?.description ?? null;
  return null;
}

/** Why a role change cannot be made the same in another app, or undefined. Pure. */
function rolePromotionProblem(
  applied: AppliedChange & { subject: { kind: 'role'; action: RoleAction } },
  roles: readonly Role[],
  appName: string | undefined,
): string | undefined {
  const exists = roles.some((r) => r.role === applied.role);
  const id = code(applied.role);
  if (applied.subject.action === 'create') {
    if (exists) return `There is a role ${id}${inApp(appName)} already. Nothing was sent.`;
    return roles.length >= MAX_ROLES ? roleLimitSentence(roles.length, appName) : undefined;
  }
  const there = roles.find((r) => r.role === applied.role);
  if (!there) return `There is no role ${id}${inApp(appName)}. Nothing was sent.`;
  // A rename or description the other app has already would send a change that does nothing.
  const same = applied.changes.every(({ key, after }) => beforeThere(key, there) === after);
  return applied.subject.action === 'update' && same
    ? `${id}${inApp(appName)} has that name and description already. Nothing was sent.`
    : undefined;
}

/** The review the roles feature opens (AppDeps.reviewRoleChange). */
export function roleChangeReview(): RoleChangeReview {
  return (app: CometChatApp, change, origin) => {
    const meta = roleChangeMeta(app.name, change, origin);
    const metadata = valueWriter(app)(confirmRecord(meta));
    // Never carried half: a change too large for the modal is not offered at all.
    if (metadata.length > METADATA_LIMIT) return messageView(ROLE_CHANGE_TITLE, TOO_LARGE);
    return roleChangeView(change, metadata, app.approval?.channel);
  };
}
