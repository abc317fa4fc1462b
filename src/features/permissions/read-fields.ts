import type { Baseline } from '../../changes/index.ts';
import {
  type Catalogue,
  type PermissionSpec,
  SHIPPED_CATALOGUE,
} from '../../cometchat/catalogue.ts';
import type { PermissionValue } from '../../cometchat/schemas.ts';
import { ACTIONS } from '../../slack/ids.ts';
import {
  displayedValue,
  type EditorState,
  fieldErrors,
  parseFreeList,
  specsOf,
  type UnsetChoice,
} from './editor-state.ts';
import { blockIds, unsetOffered } from './editor-view.ts';
import { resolveRoleOption } from './role-options.ts';

/** What one element of the form sent, for the element types the editor uses. */
interface FieldState {
  type?: string;
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: { value?: string }[] | null;
}

/** The shape of `view.state.values` for the element types the editor uses. */
export type StateValues = Record<string, Record<string, FieldState>>;

export interface ReadResult {
  values: Record<string, PermissionValue>;
  applyCategory: boolean;
  /** The keys of the category chosen to go back to the default (none offered: not read). */
  unset: UnsetChoice;
  /** Problems by block id, ready for `response_action: 'errors'`. */
  errors: Record<string, string>;
}

/**
 * Reads the fields of the category on screen, as `catalogue` (the app's) draws them. A field
 * missing from the state (it should not be) keeps its shown value rather than being read as
 * "cleared".
 */
export function readCategory(
  state: EditorState,
  baseline: Baseline,
  values: StateValues,
  knownRoleIds: readonly string[] = [],
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): ReadResult {
  const out: Record<string, PermissionValue> = {};
  const errors: Record<string, string> = {};
  const specs = specsOf(state.category, catalogue);
  const field = (blockId: string) => values[blockId]?.[ACTIONS.permissionsField];
  const unset = readUnset(state, values, specs);
  // A field of a key going back to the default is not sent, so it is neither read nor checked.
  const unsetting = new Set(unset.chosen);

  const actions = specs.filter((s) => s.kind === 'action');
  for (let chunk = 0; chunk * 10 < actions.length; chunk++) {
    const input = field(blockIds.actions(state.render, chunk));
    const group = actions.slice(chunk * 10, (chunk + 1) * 10);
    if (!input) continue;
    const checked = new Set((input.selected_options ?? []).map((o) => o.value));
    for (const spec of group) {
      if (!unsetting.has(spec.key)) out[spec.key] = checked.has(spec.key) ? 'allow' : 'deny';
    }
  }

  for (const spec of specs) {
    if (spec.kind === 'action' || unsetting.has(spec.key)) continue;
    const blockId = blockIds.field(state.render, spec.key);
    const input = field(blockId);
    if (!input) continue;
    const shown = displayedValue(state, baseline, spec.key);
    const read = readField(spec, input, shown, knownRoleIds);
    if ('error' in read) errors[blockId] = read.error;
    else out[spec.key] = read.value;
  }

  // Catalogue validation, mapped back onto the block that holds each key.
  for (const [key, message] of Object.entries(fieldErrors(out, catalogue))) {
    const spec = specs.find((s) => s.key === key);
    const blockId =
      spec?.kind === 'action'
        ? blockIds.actions(state.render, Math.floor(actions.indexOf(spec) / 10))
        : blockIds.field(state.render, key);
    errors[blockId] = message;
  }
  const apply = values[blockIds.apply(state.render)]?.[ACTIONS.permissionsApplyGroup];
  return {
    values: out,
    applyCategory: (apply?.selected_options ?? []).length > 0,
    unset,
    errors,
  };
}

/**
 * "Back to the default" as the category sent it: the keys it offered and those chosen, only ever
 * keys of the category (anything else in the form is not the editor's). Missing from the form
 * (it should not be), it offered nothing: what was chosen before stands.
 */
function readUnset(
  state: EditorState,
  values: StateValues,
  specs: readonly PermissionSpec[],
): UnsetChoice {
  const input = values[blockIds.unset(state.render)]?.[ACTIONS.permissionsUnset];
  if (!input) return { offered: [], chosen: [] };
  const offered = unsetOffered(specs).map((s) => s.key);
  const picked = new Set((input.selected_options ?? []).map((o) => o.value));
  return { offered, chosen: offered.filter((key) => picked.has(key)) };
}

/** One field as its element sent it (`shown`: what it showed), or why it cannot be read. */
function readField(
  spec: PermissionSpec,
  input: FieldState,
  shown: PermissionValue,
  knownRoleIds: readonly string[],
): { value: PermissionValue } | { error: string } {
  switch (spec.kind) {
    case 'action':
    case 'mode':
      return { value: input.selected_option?.value ?? shown };
    case 'fixedList':
      return { value: (input.selected_options ?? []).map((o) => o.value ?? '') };
    case 'roleList': {
      const candidates = [...knownRoleIds, ...(Array.isArray(shown) ? shown : [])];
      const selected = input.selected_options ?? [];
      const ids = selected
        .map((o) => resolveRoleOption(o.value ?? '', candidates))
        .filter((id) => id !== undefined);
      if (ids.length < selected.length)
        return { error: 'A selected role could not be resolved; open the editor again.' };
      return { value: ids };
    }
    case 'freeList':
      return { value: parseFreeList(input.value) };
  }
}
