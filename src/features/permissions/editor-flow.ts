import type { View } from '@slack/types';
import {
  type AppLabel,
  baselineFrom,
  changeId,
  changeRecord,
  idPayload,
  METADATA_LIMIT,
  type PermissionsChange,
  type ScopePermissionsChange,
} from '../../changes/index.ts';
import { type Catalogue, SHIPPED_CATALOGUE } from '../../cometchat/catalogue.ts';
import type { Role } from '../../cometchat/schemas.ts';
import type { KnownPermissions } from '../../store/store.ts';
import {
  computeChanges,
  EDITOR_CATEGORIES,
  type EditorState,
  mergeEdits,
  rebase,
  type ScopeRef,
  staleNotice,
  unsetProblem,
} from './editor-state.ts';
import { blockIds, editorView } from './editor-view.ts';
import { readCategory, type StateValues } from './read-fields.ts';

// The editor's decisions, as plain functions of what Slack sent and what the store knows: what
// a category switch shows, and what "Review changes" answers. The listeners only fetch and send.

/** What the editor needs to know of the app's roles: the role's name, and every role id. */
export interface RoleContext {
  roleName: string;
  roleIds: readonly string[];
}

export function roleContext(roles: readonly Role[], role: string): RoleContext {
  return {
    roleName: roles.find((r) => r.role === role)?.name || role,
    roleIds: roles.map((r) => r.role),
  };
}

export interface CategorySwitch {
  state: EditorState;
  target: string;
  known: KnownPermissions | undefined;
  values: StateValues;
  roles: RoleContext;
  /** Which app the editor is for, and how its metadata is written (signed for that app). */
  label?: AppLabel;
  /** The app's catalogue (its CometChat's definitions merged in); the shipped one by default. */
  catalogue?: Catalogue | undefined;
}

/** Whether a category-switch request names a category at all (anything else is ignored). */
export function isCategory(value: string | undefined): value is string {
  return value !== undefined && EDITOR_CATEGORIES.includes(value);
}

/**
 * The editor after a category switch: the new category with what was edited kept; or, when the
 * values on screen are out of date, the new values; or the same category with why not.
 */
export function categorySwitchView({
  state,
  target,
  known,
  values,
  roles,
  label = {},
  catalogue = SHIPPED_CATALOGUE,
}: CategorySwitch): View {
  const baseline = baselineFrom(known, catalogue);
  const read = readCategory(state, baseline, values, roles.roleIds, catalogue);
  let next: EditorState;
  let notice: string | undefined;
  if (known?.seenAt !== state.seenAt) {
    next = rebase(state, baseline);
    notice = staleNotice(state);
  } else if (!catalogue.categories.includes(state.category)) {
    next = state;
    notice = CATEGORY_UNREAD;
  } else if (Object.keys(read.errors).length > 0) {
    // Same render number, same block ids: Slack keeps what the user typed, so they can fix it.
    next = state;
    notice = `Fix these before switching: ${Object.values(read.errors).join(' ')}`;
  } else {
    const merged = mergeEdits(state, baseline, read.values, read.applyCategory, read.unset);
    next = { ...merged, category: target, render: state.render + 1 };
  }
  const shown = { baseline, ...roles, ...label, catalogue };
  const rendered = editorView({ state: next, ...shown, notice });
  if ((rendered.private_metadata ?? '').length <= METADATA_LIMIT) return rendered;
  return editorView({ state, ...shown, notice: TOO_MANY_EDITS });
}

/** Said when the category on screen is one the catalogue at hand lacks (see reviewDecision). */
const CATEGORY_UNREAD =
  "CometChat's permission definitions could not be read just now, so the fields of this category could not be read. Nothing was sent; try again in a moment.";

const TOO_MANY_EDITS =
  'There are too many pending edits to carry further: review and apply these first.';

export type ReviewOutcome =
  /** Someone applied a change meanwhile: redraw on the new values, send nothing. */
  | { kind: 'stale'; state: EditorState; known: KnownPermissions | undefined }
  /** Problems by block id, for `response_action: 'errors'`. */
  | { kind: 'errors'; errors: Record<string, string> }
  /** `scope` set when the editor is on a group's scope. */
  | { kind: 'nothing'; role: string; scope?: ScopeRef | undefined }
  | { kind: 'confirm'; meta: PermissionsChange | ScopePermissionsChange };

export interface ReviewInput {
  state: EditorState;
  known: KnownPermissions | undefined;
  values: StateValues;
  /** The editor modal's id: with the app and the change, it names the confirmation's claim. */
  viewId: string;
  /** The app's configured name. */
  app: string;
  /** How the confirmation's metadata is written (signed for the app); plain JSON by default. */
  write?: (payload: Record<string, unknown>) => string;
  /** The app's catalogue, as the editor showed it; the shipped one by default. */
  catalogue?: Catalogue | undefined;
}

/** What "Review changes" leads to. Nothing is sent to CometChat at this step. */
export function reviewDecision({
  state,
  known,
  values,
  viewId,
  app,
  write = JSON.stringify,
  catalogue = SHIPPED_CATALOGUE,
}: ReviewInput): ReviewOutcome {
  // The values on screen are not the ones the diff would be taken against: comparing them
  // would turn someone else's change into "edits" of this user.
  if (known?.seenAt !== state.seenAt) return { kind: 'stale', state, known };
  // The category on screen is one the catalogue at hand lacks ("Other", its definitions not
  // read this time): its fields cannot be read, and must not be dropped unseen.
  if (!catalogue.categories.includes(state.category)) {
    return { kind: 'errors', errors: { [blockIds.apply(state.render)]: CATEGORY_UNREAD } };
  }
  const baseline = baselineFrom(known, catalogue);
  const read = readCategory(state, baseline, values, [], catalogue);
  if (Object.keys(read.errors).length > 0) return { kind: 'errors', errors: read.errors };
  const merged = mergeEdits(state, baseline, read.values, read.applyCategory, read.unset);
  const unknown = unsetProblem(merged, catalogue);
  if (unknown) return { kind: 'errors', errors: { [blockIds.apply(state.render)]: unknown } };
  const changes = computeChanges(merged, baseline, catalogue);
  if (changes.length === 0) {
    return { kind: 'nothing', role: state.role, ...(state.scope ? { scope: state.scope } : {}) };
  }
  const fields = {
    role: state.role,
    id: changeId(viewId, app, state.role, idPayload(changes)),
    changes,
    seenAt: baseline.seenAt,
  };
  const meta: PermissionsChange | ScopePermissionsChange = state.scope
    ? { kind: 'scope-permissions', ...state.scope, ...fields }
    : { kind: 'permissions', ...fields };
  if (write(changeRecord(meta)).length > METADATA_LIMIT) {
    return {
      kind: 'errors',
      errors: {
        [blockIds.apply(state.render)]:
          'Too many changes for one confirmation: apply part of them first.',
      },
    };
  }
  return { kind: 'confirm', meta };
}

/** The error shown on the editor when the review could not be checked within Slack's deadline. */
export function lateReviewErrors(state: EditorState): Record<string, string> {
  return {
    [blockIds.apply(state.render)]:
      'The app could not check this change in time (Slack or its store was slow). Nothing was sent; press Review changes again.',
  };
}
