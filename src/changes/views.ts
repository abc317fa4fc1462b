import type { ViewSubmitAction } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import { type Catalogue, holdsRoleIds, SHIPPED_CATALOGUE } from '../cometchat/catalogue.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import { permissionKeyText } from '../replies/permission-key-text.ts';
import { permissionValueText } from '../replies/permission-value-text.ts';
import { counted } from '../replies/sentences.ts';
import { md, messageModal, plain } from '../slack/blocks.ts';
import { CALLBACKS } from '../slack/ids.ts';
import { code, escapeMrkdwn } from '../slack/mrkdwn.ts';
import type { Change, KeyChange } from './change.ts';
import { memberChangeLine } from './kinds/group-member.ts';
import { sessionsChangeLine } from './kinds/sessions.ts';

// The Block Kit pieces every view of a change is made of, as pure functions: the modal that says
// one thing, a change's lines, the reason an approval request may give.

const SECTION_CHARS = 2900;

/** The road's modal's title where no other is given: a role's permissions, the editor's. */
export const EDITOR_TITLE = 'Edit permissions';

/** A modal that says `content`, in the review's place (the same callback: nothing to submit). */
export function messageView(
  title: string,
  content: string | KnownBlock[],
  clearOnClose = true,
): View {
  return messageModal(title, content, { callbackId: CALLBACKS.permissionsConfirm, clearOnClose });
}

/** Lines packed into as few sections as the 3000-character limit allows. */
export function chunkedSections(lines: readonly string[]): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let current = '';
  for (const line of lines) {
    if (current && current.length + line.length + 1 > SECTION_CHARS) {
      blocks.push({ type: 'section', text: md(current) });
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) blocks.push({ type: 'section', text: md(current) });
  return blocks;
}

/** Items added and removed between two list values. */
function listDelta(before: PermissionValue | undefined, after: PermissionValue) {
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  return { added: a.filter((x) => !b.includes(x)), removed: b.filter((x) => !a.includes(x)) };
}

/**
 * One line per key, as a person confirms it: `*Label* (`key`): before -> after`, lists as +/-
 * items; the label from the app's catalogue (the shipped one by default). Role ids (a role
 * list's items, a user's role) are code, so they copy exactly; other values are escaped.
 */
export function changeLine(
  change: KeyChange,
  kind?: Change['kind'],
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): string {
  if (kind === 'message-deletion') return deletionLine(change);
  if (kind === 'sessions') return sessionsChangeLine(change);
  if (kind === 'group-member') return memberChangeLine(change);
  const key = permissionKeyText(change.key, catalogue);
  const spec = catalogue.spec(change.key);
  const ids = holdsRoleIds(
    change.key,
    kind === 'user-role' || kind === 'account' || (kind === 'role' && change.key === 'role'),
    catalogue,
  );
  const item = (x: string) => (ids ? code(x) : escapeMrkdwn(x));
  if (change.unset) {
    return `${key}: ${permissionValueText(change.before, ids)} → *the default* (${permissionValueText(change.after, ids)}) _(unset)_`;
  }
  if (change.explicit)
    return `${key}: ${permissionValueText(change.after, ids)} _(unchanged, stated explicitly)_`;
  const isList = spec
    ? spec.kind.endsWith('List')
    : Array.isArray(change.after) || Array.isArray(change.before);
  if (isList) {
    const { added, removed } = listDelta(change.before, change.after);
    const parts = [...added.map((x) => `+${item(x)}`), ...removed.map((x) => `−${item(x)}`)];
    const now = permissionValueText(change.after, ids);
    return `${key}: ${parts.join(', ') || now} _(now ${now})_`;
  }
  return `${key}: ${permissionValueText(change.before, ids)} → *${permissionValueText(change.after, ids)}*`;
}

/** A message a deletion names: its id, from what it was to what the deletion makes it. Pure. */
function deletionLine({ key, before, after }: KeyChange): string {
  return `Message ${code(key)}: ${String(before ?? 'sent')} → *${String(after)}*`;
}

/** Who a change of a role's permissions reaches: every user who holds the role. */
export function holdersLine(holders: number | undefined): string {
  return holders === undefined
    ? 'How many users hold this role: unknown (CometChat did not say in time).'
    : `${counted(holders, 'user holds', 'users hold')} this role: the change reaches them all.`;
}

/** The block and field of the reason an approval request may give. */
export const REASON_BLOCK = 'approval_reason';
export const REASON_INPUT = 'reason';
export const MAX_REASON = 300;

/** The optional reason of an approval request, read back by `reasonOf`. */
export function reasonInput(): KnownBlock {
  return {
    type: 'input',
    block_id: REASON_BLOCK,
    optional: true,
    label: plain('Reason (shown to the approvers)'),
    element: {
      type: 'plain_text_input',
      action_id: REASON_INPUT,
      multiline: true,
      max_length: MAX_REASON,
    },
  };
}

/**
 * The reason a request for approval gives (or, with its block and input, a rejection), if it
 * gives one (blank is none).
 */
export function reasonOf(
  values: ViewSubmitAction['view']['state']['values'],
  block = REASON_BLOCK,
  input = REASON_INPUT,
): string | undefined {
  return values[block]?.[input]?.value?.trim() || undefined;
}

/** Said with an applied change whose audit record the store did not keep. */
export const AUDIT_NOT_STORED =
  ":warning: The change was applied, but its audit record could not be stored; it is in the app's log. Tell whoever runs the app.";
