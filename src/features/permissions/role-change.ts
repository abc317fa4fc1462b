import type { View } from '@slack/types';
import { type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { context, plain, section } from '../../slack/blocks.ts';
import { CALLBACKS } from '../../slack/ids.ts';
import {
  type FeatureDeps,
  ROLE_CHANGE_TITLE,
  type RoleChange,
  type RoleChangeReview,
} from '../deps.ts';
import { type ConfirmMetadata, changeId, confirmRecord, METADATA_LIMIT } from './editor-state.ts';
import { chunkedSections, messageView, reasonInput } from './editor-view.ts';

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
  const asked = approvalChannel
    ? `Ask for approval in <#${approvalChannel}>: ${change.question} Nothing is sent until another person approves.`
    : change.question;
  return {
    type: 'modal',
    callback_id: CALLBACKS.permissionsConfirm,
    title: plain(approvalChannel ? 'Request approval' : ROLE_CHANGE_TITLE, 24),
    submit: plain(approvalChannel ? 'Request approval' : 'Apply', 24),
    close: plain('Cancel', 24),
    private_metadata: privateMetadata,
    blocks: [
      section(asked),
      ...chunkedSections([...(change.details ?? [])]),
      context([
        'CometChat’s role list is read again when the change is sent: if the role changed meanwhile, nothing is sent.',
      ]),
      ...(approvalChannel ? [reasonInput()] : []),
    ],
  };
}

/** The review the roles feature opens (AppDeps.reviewRoleChange). */
export function roleChangeReview(_deps: Pick<FeatureDeps, 'apps'>): RoleChangeReview {
  return (app: CometChatApp, change, origin) => {
    const meta = roleChangeMeta(app.name, change, origin);
    const metadata = valueWriter(app)(confirmRecord(meta));
    // Never carried half: a change too large for the modal is not offered at all.
    if (metadata.length > METADATA_LIMIT) return messageView(ROLE_CHANGE_TITLE, TOO_LARGE);
    return roleChangeView(change, metadata, app.approval?.channel);
  };
}
