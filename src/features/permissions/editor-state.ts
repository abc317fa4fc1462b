import { createHash } from 'node:crypto';
import { z } from 'zod';
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
import { idProblem, UidSchema } from '../../cometchat/id-rules.ts';
import { AccountSchema } from '../../cometchat/model.ts';
import { type PermissionMap, type PermissionValue, RoleIdSchema } from '../../cometchat/schemas.ts';
import type { ChangeSubject, KnownPermissions } from '../../store/store.ts';
import { type RoleAction, RoleActionSchema, roleChangesProblem } from './role-definition.ts';

// The editor's state lives in the modal's private_metadata between interactions: which role,
// which category is on screen, and the values the user chose that differ from what the
// modal showed them. Everything here is pure, so the rules that decide what gets sent can be
// tested without Slack.

export const METADATA_LIMIT = 3000;

export interface EditorState {
  role: string;
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

/** A permission value as it comes back from Slack in metadata: bounded, like all such input. */
const SubmittedValueSchema = z.union([
  z.string().max(200),
  z.array(z.string().max(200)).max(200),
  z.null(),
]);

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

/** The editor's state as it comes back in a modal's metadata (short keys: it must fit 3000). */
export const EditorStateSchema = z
  .object({
    r: RoleIdSchema,
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
  .transform(
    (m): EditorState => ({
      role: m.r,
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

/** The state as the modal carries it (see EditorStateSchema), before it is written out. */
export function stateRecord(state: EditorState): Record<string, unknown> {
  return {
    r: state.role,
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

/** Parses plain (unsealed) metadata that came back from Slack; undefined when it is not ours. */
export function decodeState(raw: string | undefined): EditorState | undefined {
  const parsed = EditorStateSchema.safeParse(safeJson(raw));
  return parsed.success ? parsed.data : undefined;
}

/** Where a promoted change came from: the app it was applied to, and that attempt's ref. */
export interface PromotedFrom {
  app: string;
  ref: string;
}

const PromotedFromSchema = z.object({
  app: z.string().max(32),
  ref: z.string().min(1).max(64),
});

/**
 * What the confirmation modal carries: the exact change, and when its "before" was seen. With a
 * `subject`, the change is to that CometChat user (its `role` or account `status`; `role` is then
 * the user's role when it was reviewed), not to the role's permissions.
 */
export interface ConfirmMetadata {
  role: string;
  subject?: ChangeSubject | undefined;
  /** The change's id (see changeId): the claim that makes it apply once. */
  id: string;
  changes: Change[];
  seenAt?: number | undefined;
  /** Set when this is another app's applied change, offered again for this app. */
  promotedFrom?: PromotedFrom | undefined;
}

const ChangeSchema = z.object({
  key: z.string().min(1).max(100),
  before: SubmittedValueSchema.optional(),
  after: SubmittedValueSchema,
  explicit: z.boolean(),
  unset: z.literal(true).optional(),
});

/** A role's name or description, as a change to the role carries them (see roleChangesProblem). */
const RoleTextSchema = z.string().max(255);

/**
 * What a change to a role itself is: its creation (a name, perhaps a description, and the
 * permissions set right after), a new name or description, or its deletion. Anything else is not
 * the app's (roleChangesProblem says why), so it is refused where it is read.
 */
const RoleChangesSchema = z
  .array(ChangeSchema.extend({ after: z.union([SubmittedValueSchema, RoleTextSchema]) }))
  .min(1)
  .max(200);

/**
 * What a change to a user is: exactly one change, of its role (to a role id) or of its account.
 * Nothing else is ever sent to a user, so nothing else is read back as one.
 */
const UserChangesSchema = z.tuple([
  z.discriminatedUnion('key', [
    ChangeSchema.extend({ key: z.literal('role'), after: RoleIdSchema }),
    ChangeSchema.extend({ key: z.literal('status'), after: AccountSchema }),
  ]),
]);

/** The one change a change to a user makes (see UserChangesSchema). */
export type UserKeyChange = z.infer<typeof UserChangesSchema>[0];

/** A change's changes read as a change to a user's, or undefined when they are not one. Pure. */
export function userKeyChange(changes: readonly Change[]): UserKeyChange | undefined {
  const parsed = UserChangesSchema.safeParse(changes);
  return parsed.success ? parsed.data[0] : undefined;
}

const ConfirmFields = z.object({
  role: RoleIdSchema,
  id: z.string().regex(/^[0-9a-f]{24}$/),
  seenAt: z.number().optional(),
  promotedFrom: PromotedFromSchema.optional(),
});

/**
 * A confirmation's metadata as it comes back from Slack: a role's changed keys, or, with a
 * `subject` (a uid the app could have sent), exactly one change to that user. Anything else is
 * not the app's, and is refused where it is read.
 */
export const ConfirmSchema = z
  .union([
    ConfirmFields.extend({
      subject: z.undefined().optional(),
      changes: z.array(ChangeSchema).min(1),
    }),
    ConfirmFields.extend({
      subject: z.object({ kind: z.literal('user'), uid: UidSchema }),
      changes: UserChangesSchema,
    }),
    ConfirmFields.extend({
      subject: z.object({ kind: z.literal('role'), action: RoleActionSchema }),
      changes: RoleChangesSchema,
    }).refine((m) => roleChangesProblem(m.subject.action, m.changes, m.role) === undefined),
  ])
  .transform(
    ({ role, id, changes, seenAt, promotedFrom, subject }): ConfirmMetadata => ({
      role,
      ...(subject ? { subject } : {}),
      id,
      changes: changes.map((c) => ({
        key: c.key,
        before: c.before,
        after: c.after,
        explicit: c.explicit,
        ...(c.unset ? { unset: true as const } : {}),
      })),
      seenAt,
      ...(promotedFrom ? { promotedFrom } : {}),
    }),
  );

/** The confirmation as the modal carries it, before it is written out. */
export function confirmRecord(meta: ConfirmMetadata): Record<string, unknown> {
  return { ...meta };
}

export function encodeConfirm(meta: ConfirmMetadata): string {
  return JSON.stringify(confirmRecord(meta));
}

/** Parses plain (unsealed) confirmation metadata; undefined when it is not ours. */
export function decodeConfirm(raw: string | undefined): ConfirmMetadata | undefined {
  const parsed = ConfirmSchema.safeParse(safeJson(raw));
  return parsed.success ? parsed.data : undefined;
}

/**
 * What an applied change's result carries so that it can be offered to another app: the role,
 * the keys and the values sent (no "before": each app's own is read when it is reviewed), and
 * the ref of the attempt, which the promoted change's audit record names.
 */
export interface AppliedChange {
  role: string;
  ref: string;
  changes: { key: string; after: PermissionValue; unset?: true | undefined }[];
  /** For a change to the role itself (created, renamed, deleted); absent for its permissions. */
  subject?: { kind: 'role'; action: RoleAction } | undefined;
}

export const AppliedChangeSchema = z.object({
  role: RoleIdSchema,
  ref: z.string().min(1).max(64),
  changes: z
    .array(
      z.object({
        key: z.string().min(1).max(100),
        after: z.union([SubmittedValueSchema, z.string().max(255)]),
        unset: z.literal(true).optional(),
      }),
    )
    .min(1)
    .max(200),
  subject: z.object({ kind: z.literal('role'), action: RoleActionSchema }).optional(),
});

/**
 * A change applied to one app, made into a confirmation for another: the same keys and values,
 * each "before" taken from that app's own baseline. A key already at the value there is still
 * sent (marked as stated explicitly): a promotion sends exactly the promoted keys.
 */
export function promotedChange(input: {
  applied: AppliedChange;
  from: string;
  to: string;
  baseline: Baseline;
}): ConfirmMetadata {
  const { applied, baseline } = input;
  const changes = applied.changes.map(({ key, after, unset }) => {
    const before = baseline.values[key];
    // An unset is sent whatever the value there: that app's role is to follow the default too.
    if (unset) return { key, before, after, explicit: false, unset };
    return { key, before, after, explicit: sameValue(before, after) };
  });
  return {
    role: applied.role,
    id: changeId(`promoted ${applied.ref}`, input.to, applied.role, idPayload(changes)),
    changes,
    seenAt: baseline.seenAt,
    promotedFrom: { app: input.from, ref: applied.ref },
  };
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

/** What the editor shows when the user has not touched a field. */
export interface Baseline {
  values: PermissionMap;
  /** When the values come from an update response; undefined means documented defaults. */
  seenAt?: number | undefined;
}

/** What the editor shows before any edit: the last known values over `catalogue`'s defaults. */
export function baselineFrom(
  known: KnownPermissions | undefined,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): Baseline {
  return known
    ? { values: { ...catalogue.defaults(), ...known.permissions }, seenAt: known.seenAt }
    : { values: catalogue.defaults() };
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

export interface Change {
  key: string;
  before: PermissionValue | undefined;
  after: PermissionValue;
  /** True when the value equals what was shown and is sent only because the user asked. */
  explicit: boolean;
  /**
   * Unset rather than set: the key goes back to its default (`after` is that default), by
   * CometChat's own unset, so the role follows the default from then on.
   */
  unset?: true | undefined;
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
): Change[] {
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
    .map((key): Change => {
      const before = baseline.values[key];
      const fallback = defaults.get(key);
      if (fallback !== undefined) {
        return { key, before, after: fallback, explicit: false, unset: true };
      }
      const after = displayedValue(state, baseline, key);
      return { key, before, after, explicit: sameValue(before, after) };
    });
}

/**
 * The same changes with each "before" (and so whether it is sent only explicitly) taken from
 * `baseline`, the server's last known values, whatever the submitted metadata said of them.
 */
export function withBeforeFrom(changes: readonly Change[], baseline: Baseline): Change[] {
  return changes.map(({ key, after, unset }) => {
    const before = baseline.values[key];
    // An unset is sent whatever the value shows: the key is to follow the default from now on.
    return unset
      ? { key, before, after, explicit: false, unset }
      : { key, before, after, explicit: sameValue(before, after) };
  });
}

export function changePayload(changes: readonly Change[]): PermissionMap {
  return Object.fromEntries(changes.map((c) => [c.key, c.after]));
}

/**
 * What a change's id is made of: its keys and values, an unset told apart from setting the same
 * key to its default value (they are two changes).
 */
export function idPayload(changes: readonly Change[]): PermissionMap {
  return Object.fromEntries(changes.map((c) => [c.unset ? `${c.key} (unset)` : c.key, c.after]));
}

/**
 * The same confirmation, however often it is submitted, gets the same id; the same change for
 * another app gets another (the claims of every app share one store).
 */
export function changeId(
  origin: string,
  app: string,
  role: string,
  payload: PermissionMap,
): string {
  const canonical = JSON.stringify(Object.entries(payload).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256')
    .update(`${app}\n${origin}\n${role}\n${canonical}`)
    .digest('hex')
    .slice(0, 24);
}

/** Items added and removed between two list values. */
export function listDelta(before: PermissionValue | undefined, after: PermissionValue) {
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  return { added: a.filter((x) => !b.includes(x)), removed: b.filter((x) => !a.includes(x)) };
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
