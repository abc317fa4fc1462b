import type { KnownBlock, View } from '@slack/types';
import { type Catalogue, holdsRoleIds, SHIPPED_CATALOGUE } from '../cometchat/catalogue.ts';
import type { PermissionUpdate } from '../cometchat/model.ts';
import { permissionKeyText } from '../replies/permission-key-text.ts';
import { permissionValueText } from '../replies/permission-value-text.ts';
import { counted, failureMessage, inApp, withRef } from '../replies/sentences.ts';
import { actions, button, divider, plain, section } from '../slack/blocks.ts';
import { ACTIONS, CALLBACKS } from '../slack/ids.ts';
import { code, escapeMrkdwn } from '../slack/mrkdwn.ts';
import { type AuditStep, failedSteps } from '../store/store.ts';
import type { ApplyOutcome } from './apply.ts';
import type { Change, KeyChange } from './change.ts';
import { stepOutcomeLines } from './containment-view.ts';
import type { AppLabel } from './deps.ts';
import { kindOf, nameOf } from './kinds/index.ts';
import { AUDIT_NOT_STORED, chunkedSections, EDITOR_TITLE, messageView } from './views.ts';

// What the review's modal shows once "Apply" or "Request approval" is submitted: at once, that it
// is under way; then the outcome (applied, with the same change offered to the other apps; not
// sent, and why; the failure and its reference). Pure.

/** "Apply the same change to <app>": the app, and the button's value naming it, signed. */
export interface PromotionOffer {
  app: string;
  value: string;
}

/** Shown the moment a review is submitted: Slack has its answer at once. */
export function submittedView(
  change: Change,
  appName: string | undefined,
  needsApproval: boolean,
): View {
  if (needsApproval) {
    return messageView('Request approval', ':hourglass_flowing_sand: Posting the request…', false);
  }
  const n = change.changes.length;
  return messageView(
    'Applying',
    `:hourglass_flowing_sand: Applying ${counted(n, 'change')} to ${nameOf(change, appName)}…`,
    false,
  );
}

/** What the modal says for a change that was not sent, under its title. */
export function applyNotice(
  outcome: Extract<ApplyOutcome, { kind: 'refused' | 'not-sent' | 'repeated' | 'stale' | 'taken' }>,
  change: Change,
  label: AppLabel,
  ref: string,
): { title: string; sentence: string } {
  switch (outcome.kind) {
    case 'refused':
      return { title: 'Not allowed', sentence: outcome.sentence };
    case 'not-sent':
      return { title: 'Not sent', sentence: withRef(outcome.sentence, ref) };
    case 'stale':
      return { title: 'Not sent', sentence: outcome.sentence };
    case 'repeated':
    case 'taken':
      return {
        title: 'Already applied',
        sentence: `This change to ${nameOf(change, label.appName)} was already submitted once; it was not sent again.`,
      };
  }
}

/** A change to a user or to a role itself, applied: what it now has, in words. */
export function subjectAppliedText(
  change: Change,
  label: AppLabel,
  audited: boolean,
  steps: readonly AuditStep[] = [],
): string {
  const stored = audited ? '' : ` ${AUDIT_NOT_STORED}`;
  const failed = failedSteps({ steps: [...steps] });
  if (failed.length === 0) {
    return `Applied to ${nameOf(change, label.appName)}: ${kindOf(change).done}.${stored}`;
  }
  // A partial change: what took, and each step that did not, named.
  return `Applied in part to ${nameOf(change, label.appName)} (recorded as partial):\n${stepOutcomeLines(steps).join('\n')}${stored}`;
}

/** The applied permissions as a message, for when the modal cannot show them. */
export function appliedText(change: Change, label: AppLabel, audited: boolean): string {
  const count = change.changes.length;
  const keys = change.changes.map((c) => permissionKeyText(c.key)).join(', ');
  return `Applied ${counted(count, 'change')} to ${kindOf(change).name}${inApp(label.appName)}: ${keys}.${audited ? '' : ` ${AUDIT_NOT_STORED}`}`;
}

/**
 * The result of an applied role change, with the same change offered to each app where it can
 * be made the same (`promoteTo`), when `metadata` carries it.
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

/** What a permissions result offers besides the outcome: the same change for each other app. */
export interface ResultOptions {
  appName?: string | undefined;
  /** Other apps that have the role, each offered "Apply the same change to <app>". */
  promoteTo?: readonly PromotionOffer[];
  /** The applied change as the result's metadata carries it (signed for the app). */
  metadata?: string | undefined;
  /** The app's catalogue, which names and groups the keys; the shipped one by default. */
  catalogue?: Catalogue | undefined;
  /** What the change acts on, in mrkdwn, where it is not the role (a group's scope). */
  name?: string | undefined;
}

/** An applied change of permissions: CometChat's per-key messages and the role's map as answered. */
export function resultView(
  role: string,
  update: PermissionUpdate,
  changes: readonly KeyChange[],
  audited = true,
  options: ResultOptions = {},
): View {
  const { catalogue = SHIPPED_CATALOGUE } = options;
  const keyText = (key: string) => permissionKeyText(key, catalogue);
  const messages = Object.entries(update.results).map(
    ([key, r]) =>
      `${r.success ? ':white_check_mark:' : ':x:'} ${keyText(key)}: ${escapeMrkdwn(r.message || (r.success ? 'applied' : 'not applied'))}`,
  );
  const blocks: KnownBlock[] = [
    section(
      `:white_check_mark: Applied ${counted(changes.length, 'change')} to ${options.name ?? code(role)}${inApp(options.appName)}.`,
    ),
  ];
  if (messages.length > 0) blocks.push(...chunkedSections(messages));
  if (!audited) blocks.push(section(AUDIT_NOT_STORED));
  const promoteTo = options.metadata ? (options.promoteTo ?? []) : [];
  if (promoteTo.length > 0) {
    // Each opens that app's own review; nothing is sent from here.
    const buttons = promoteTo
      .slice(0, 25)
      .map(({ app, value }) =>
        button(`Apply the same change to ${app}`, `${ACTIONS.promoteChange}:${app}`, value),
      );
    blocks.push(actions(buttons));
  }
  blocks.push(divider(), section('*Resulting permissions* (as CometChat answered)'));
  for (const [category, lines] of resultingLines(update, changes, catalogue))
    blocks.push(...chunkedSections([`*${escapeMrkdwn(category)}*`, ...lines]));
  return {
    type: 'modal',
    callback_id: CALLBACKS.permissionsConfirm,
    title: plain('Permissions updated', 24),
    close: plain('Done', 24),
    clear_on_close: true,
    ...(promoteTo.length > 0 && options.metadata ? { private_metadata: options.metadata } : {}),
    blocks: blocks.slice(0, 100),
  };
}

/** The role's map as answered, a line a key by category, each changed key marked. */
function resultingLines(
  update: PermissionUpdate,
  changes: readonly KeyChange[],
  catalogue: Catalogue,
): Map<string, string[]> {
  const changed = new Map(changes.map((c) => [c.key, c]));
  const byCategory = new Map<string, string[]>();
  for (const [key, value] of Object.entries(update.permissions)) {
    const category = catalogue.spec(key)?.category ?? 'Other keys';
    const shown = permissionValueText(value, holdsRoleIds(key, false, catalogue));
    // The label is bold already: a changed key's value is, and the line says so.
    const mark = changed.get(key)?.unset ? 'back to the default' : 'changed';
    const line = `${permissionKeyText(key, catalogue)}: ${changed.has(key) ? `*${shown}* ← ${mark}` : shown}`;
    byCategory.set(category, [...(byCategory.get(category) ?? []), line]);
  }
  return byCategory;
}

/** A failure as the modal shows it, under `title` (a role's permissions by default). */
export function failureView(
  sentence: string,
  ref: string,
  options: { title?: string | undefined; more?: string | undefined } = {},
): View {
  const message = failureMessage(sentence, ref);
  const more = options.more ? [section(options.more)] : [];
  return messageView(options.title ?? EDITOR_TITLE, [...(message.blocks ?? []), ...more]);
}
