import { z } from 'zod';
import { type Baseline, type KeyChange, SubmittedValueSchema } from '../../changes/index.ts';
import {
  CATEGORIES,
  type Catalogue,
  type CatalogueSpec,
  OTHER_CATEGORY,
  permissionSpec,
  SHIPPED_CATALOGUE,
  sameValue,
  validatePermissions,
} from '../../cometchat/catalogue.ts';
import { GROUP_SCOPES, type GroupScope } from '../../cometchat/group-model.ts';
import { GuidSchema, idProblem } from '../../cometchat/id-rules.ts';
import { type PermissionValue, RoleIdSchema } from '../../cometchat/schemas.ts';
import { knownScopeKey } from '../../store/store.ts';

// The editor's state lives in the modal's private_metadata between interactions: which role,
// which category is on screen, and the values the user chose that differ from what the
// modal showed them. Everything here is pure, so the rules that decide what gets sent can be
// tested without Slack.

/** A group's scope, as the editor and `/cometchat perms <guid> <scope>` name it. */
export interface ScopeRef {
  guid: string;
  scope: GroupScope;
}

export interface EditorState {
  /** The role; for a group's scope, the name its map is known under (knownScopeKey). */
  role: string;
  /** Set when the editor is on a group's scope rather than a role. */
  scope?: ScopeRef | undefined;
  category: string;
  /** Values the user set that differ from the baseline, by key. Only these are sent. */
  edits: Record<string, PermissionValue>;
  /** Categories whose every value the user chose to state explicitly. */
  apply: string[];
  /**
   * Keys the user chose to put back to the default: unset in CometChat rather than set, so the
   * role follows CometChat's default from then on. An edit of the same key gives way to it.
   */
  unset: string[];
  /** Bumped on every render, so block ids change and Slack shows the new initial values. */
  render: number;
  /**
   * When the values the editor shows were seen (undefined: the defaults). If the store has
   * newer ones, someone applied a change meanwhile and the screen is out of date.
   */
  seenAt?: number | undefined;
}

/**
 * The categories an editor may be on: the shipped catalogue's, and "Other" (the keys an app's
 * CometChat defines that the shipped catalogue lacks).
 */
export const EDITOR_CATEGORIES: readonly string[] = Object.freeze([...CATEGORIES, OTHER_CATEGORY]);

/** The most keys one editor carries back to the default (the metadata's 3000 bind first). */
const MAX_UNSET = 200;

/**
 * Whether `key` can be a key of a catalogue, as the editor's metadata carries it back: what the
 * app asks of any id (no spaces, no control characters, no dot segment, 100 characters at most).
 * Only such keys are offered to go back to the default, so every one offered can be carried.
 */
export function isCarriedKey(key: string): boolean {
  return idProblem(key, 'A permission key', 100) === undefined;
}

/**
 * The keys to put back to the default, as the metadata carries them: distinct, bounded, each one
 * a catalogue's key could be. Whether each is a key of the app's catalogue is asked where that
 * catalogue is at hand (computeChanges, unsetProblem): it is read after the metadata is opened.
 */
const UnsetKeysSchema = z
  .array(z.string().refine(isCarriedKey))
  .max(MAX_UNSET)
  .refine((keys) => new Set(keys).size === keys.length);

/** What the editor is on: a role (`r`), or a group's scope (`q`), never both. */
const EditedSchema = z.union([
  z.object({ r: RoleIdSchema, q: z.undefined().optional() }),
  z.object({
    q: z.object({ g: GuidSchema, s: z.enum(GROUP_SCOPES) }),
    r: z.undefined().optional(),
  }),
]);

/** The editor's state as it comes back in a modal's metadata (short keys: it must fit 3000). */
export const EditorStateSchema = z
  .object({
    c: z.string().refine((c) => EDITOR_CATEGORIES.includes(c)),
    e: z.record(z.string().max(100), SubmittedValueSchema),
    g: z
      .array(z.string().refine((c) => EDITOR_CATEGORIES.includes(c)))
      .max(EDITOR_CATEGORIES.length),
    // Absent when none: an editor opened before this was carried reads as choosing none.
    u: UnsetKeysSchema.optional(),
    n: z.number().int().min(0),
    s: z.number().optional(),
  })
  .and(EditedSchema)
  .transform(
    (m): EditorState => ({
      ...(m.q
        ? { role: knownScopeKey(m.q.g, m.q.s), scope: { guid: m.q.g, scope: m.q.s } }
        : { role: m.r ?? '' }),
      category: m.c,
      edits: m.e,
      apply: m.g,
      unset: m.u ?? [],
      render: m.n,
      seenAt: m.s,
    }),
  );

export function newEditorState(role: string, seenAt?: number): EditorState {
  return {
    role,
    category: CATEGORIES[0] ?? '',
    edits: {},
    apply: [],
    unset: [],
    render: 1,
    seenAt,
  };
}

/** A new editor on a group's scope, on the first category its keys have. */
export function newScopeEditorState(
  ref: ScopeRef,
  firstCategory: string | undefined,
  seenAt?: number,
): EditorState {
  const state = newEditorState(knownScopeKey(ref.guid, ref.scope), seenAt);
  return { ...state, scope: ref, category: firstCategory ?? state.category };
}

/** The state as the modal carries it (see EditorStateSchema), before it is written out. */
export function stateRecord(state: EditorState): Record<string, unknown> {
  return {
    ...(state.scope ? { q: { g: state.scope.guid, s: state.scope.scope } } : { r: state.role }),
    c: state.category,
    e: state.edits,
    g: state.apply,
    ...(state.unset.length > 0 ? { u: state.unset } : {}),
    n: state.render,
    s: state.seenAt,
  };
}

export function encodeState(state: EditorState): string {
  return JSON.stringify(stateRecord(state));
}

/** Parses plain (unsigned) metadata that came back from Slack; undefined when it is not ours. */
export function decodeState(raw: string | undefined): EditorState | undefined {
  const parsed = EditorStateSchema.safeParse(safeJson(raw));
  return parsed.success ? parsed.data : undefined;
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

export function displayedValue(
  state: EditorState,
  baseline: Baseline,
  key: string,
): PermissionValue {
  return key in state.edits ? (state.edits[key] ?? null) : (baseline.values[key] ?? null);
}

/** What the category on screen said of going back to the default: its keys, and those chosen. */
export interface UnsetChoice {
  /** The keys the category offered (a key of another category keeps its choice). */
  offered: readonly string[];
  chosen: readonly string[];
}

/**
 * Folds the values read from the category on screen into the edits: a value equal to the
 * baseline is not an edit (the user may have changed it and changed it back). A key chosen to go
 * back to the default drops its edit (the unset wins); one no longer chosen is no longer unset.
 */
export function mergeEdits(
  state: EditorState,
  baseline: Baseline,
  values: Record<string, PermissionValue>,
  applyCategory: boolean,
  unsetChoice: UnsetChoice = { offered: [], chosen: [] },
): EditorState {
  const offered = new Set(unsetChoice.offered);
  const unset = state.unset.filter((key) => !offered.has(key));
  for (const key of unsetChoice.chosen) if (!unset.includes(key)) unset.push(key);
  const edits = { ...state.edits };
  for (const [key, value] of Object.entries(values)) {
    if (sameValue(value, baseline.values[key])) delete edits[key];
    else edits[key] = value;
  }
  for (const key of unset) delete edits[key];
  const apply = state.apply.filter((c) => c !== state.category);
  if (applyCategory) apply.push(state.category);
  return { ...state, edits, apply, unset };
}

/**
 * Why the keys chosen to go back to the default cannot be sent as the app's catalogue has them,
 * or undefined: a key the catalogue lacks has no default to go back to (its CometChat's
 * definitions were not read this time, or the metadata was not the editor's). Pure.
 */
export function unsetProblem(state: EditorState, catalogue: Catalogue): string | undefined {
  const unknown = state.unset.filter((key) => !catalogue.spec(key));
  if (unknown.length === 0) return undefined;
  const named =
    unknown.length > 3 ? `${unknown.slice(0, 3).join(', ')} and others` : unknown.join(', ');
  return `${named} cannot be put back to the default: CometChat's permission definitions do not name ${unknown.length === 1 ? 'it' : 'them'} just now. Nothing was sent; try again in a moment.`;
}

/**
 * Exactly what will be sent, in catalogue order: the edits, every key of the categories the user
 * chose to state in full, and the keys chosen to go back to the default, each unset (to the
 * catalogue's default) whatever else was said of it. A key the catalogue lacks has no default to
 * go back to, and is not unset (see unsetProblem).
 */
export function computeChanges(
  state: EditorState,
  baseline: Baseline,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): KeyChange[] {
  const keys = new Set(Object.keys(state.edits));
  for (const category of state.apply) {
    for (const spec of catalogue.inCategory(category)) keys.add(spec.key);
  }
  const defaults = new Map<string, PermissionValue>();
  for (const key of state.unset) {
    const spec = catalogue.spec(key);
    if (!spec) continue;
    defaults.set(key, spec.default);
    keys.add(key);
  }
  return [...keys]
    .sort((a, b) => catalogue.order(a) - catalogue.order(b) || a.localeCompare(b))
    .map((key): KeyChange => {
      const before = baseline.values[key];
      const fallback = defaults.get(key);
      if (fallback !== undefined) {
        return { key, before, after: fallback, explicit: false, unset: true };
      }
      const after = displayedValue(state, baseline, key);
      return { key, before, after, explicit: sameValue(before, after) };
    });
}

/** Free-text list input (comma or newline separated) as a list. */
export function parseFreeList(text: string | null | undefined): string[] {
  return [
    ...new Set(
      (text ?? '')
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** Problems with `values` by key, checked against the app's catalogue (the shipped one by default). */
export function fieldErrors(
  values: Record<string, PermissionValue>,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): Record<string, string> {
  const result = validatePermissions(values, { catalogue });
  return result.ok ? {} : result.errors;
}

export function specsOf(
  category: string,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): readonly CatalogueSpec[] {
  return catalogue.inCategory(category);
}

export { CATEGORIES, permissionSpec };

/**
 * The editor redrawn on newer values after someone else applied a change: what is on screen
 * is dropped (it was read against the old values), edits made in other categories are kept
 * unless they now equal the new value.
 */
export function rebase(state: EditorState, baseline: Baseline): EditorState {
  const edits = Object.fromEntries(
    Object.entries(state.edits).filter(([key, value]) => !sameValue(value, baseline.values[key])),
  );
  return { ...state, edits, render: state.render + 1, seenAt: baseline.seenAt };
}

export const STALE_NOTICE =
  'Someone applied a change to this role while you were editing. The editor now shows the new values; check this category again (your edits in other categories are kept).';

/** STALE_NOTICE, said of a group's scope where the editor is on one. Pure. */
export function staleNotice(state: Pick<EditorState, 'scope'>): string {
  return state.scope ? STALE_NOTICE.replace('this role', 'this scope') : STALE_NOTICE;
}
