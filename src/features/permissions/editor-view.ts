import type { Checkboxes, InputBlock, KnownBlock, PlainTextOption, View } from '@slack/types';
import { type AppLabel, type Baseline, messageView } from '../../changes/index.ts';
import {
  type Catalogue,
  type CatalogueSpec,
  SHIPPED_CATALOGUE,
  valueInWords,
} from '../../cometchat/catalogue.ts';
import type { PermissionValue } from '../../cometchat/schemas.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { context, plain, section } from '../../slack/blocks.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate } from '../../slack/mrkdwn.ts';
import {
  displayedValue,
  type EditorState,
  isCarriedKey,
  specsOf,
  stateRecord,
} from './editor-state.ts';
import { roleOptionValue } from './role-options.ts';

// The permission editor's views, built by pure functions from the editor state. Block ids
// carry the render number so each render's initial values take effect (Slack keeps what the
// user typed in a block whose id did not change).

const CHECKBOX_LIMIT = 10;

export const blockIds = {
  actions: (render: number, chunk: number) => `a:${render}:${chunk}`,
  field: (render: number, key: string) => `f:${render}:${key}`,
  apply: (render: number) => `g:${render}`,
  unset: (render: number) => `u:${render}`,
};

export interface EditorViewInput extends AppLabel {
  state: EditorState;
  baseline: Baseline;
  roleName: string;
  /** Role ids of the app, for role-list fields. */
  roleIds: readonly string[];
  /** A problem to show above the fields (e.g. why a category switch was refused). */
  notice?: string | undefined;
  /** The app's catalogue (its CometChat's definitions merged in); the shipped one by default. */
  catalogue?: Catalogue | undefined;
}

/** Said in the editor when the app's CometChat did not give its permission definitions. */
export const SHIPPED_CATALOGUE_NOTE =
  ":information_source: CometChat's permission definitions could not be read just now: the editor shows the keys this app ships with.";

/** Said of a key this app ships with that the app's CometChat no longer defines. */
export const NO_LONGER_DEFINED = 'CometChat no longer defines this key.';

export function editorView(input: EditorViewInput): View {
  const { state, baseline } = input;
  const catalogue = input.catalogue ?? SHIPPED_CATALOGUE;
  // A category the catalogue lacks (Other, when the definitions could not be read again) stays
  // selectable: Slack refuses a menu whose initial option is not among its options.
  const categories = catalogue.categories.includes(state.category)
    ? catalogue.categories
    : [...catalogue.categories, state.category];
  const option = categoryOption(state, catalogue);
  const app = input.appName ? `*App:* ${escapeMrkdwn(input.appName)} · ` : '';
  // On a group's scope, `roleName` is the group's name.
  const edited = state.scope
    ? `*Group:* ${escapeMrkdwn(input.roleName)} ${code(state.scope.guid)} · *Scope:* ${code(state.scope.scope)}`
    : `*Role:* ${escapeMrkdwn(input.roleName)} ${code(state.role)}`;
  const blocks: KnownBlock[] = [
    section(`${app}${edited}`),
    context([knownNote(baseline, state.scope ? 'scope' : 'role')]),
    ...(catalogue.source === 'fallback' ? [context([SHIPPED_CATALOGUE_NOTE])] : []),
    {
      type: 'actions',
      block_id: `c:${state.render}`,
      elements: [
        {
          type: 'static_select',
          action_id: ACTIONS.permissionsCategory,
          options: categories.map(option),
          initial_option: option(state.category),
        },
      ],
    },
  ];
  if (input.notice) blocks.push(section(`:warning: ${escapeMrkdwn(input.notice)}`));
  blocks.push(...categoryFields({ ...input, catalogue }));
  blocks.push(
    ...unsetInput(state, specsOf(state.category, catalogue)),
    {
      type: 'input',
      block_id: blockIds.apply(state.render),
      optional: true,
      label: plain('Send every value in this category', 2000),
      element: checkboxes(
        ACTIONS.permissionsApplyGroup,
        [applyOption],
        state.apply.includes(state.category) ? [applyOption] : [],
      ),
      hint: plain(
        'Use this to state values on purpose even where the box already shows them: the shown value may be a default, not the live one.',
        2000,
      ),
    },
    context([pendingSummary(state)]),
  );
  return {
    type: 'modal',
    callback_id: CALLBACKS.permissionsEditor,
    title: plain('Edit permissions', 24),
    submit: plain('Review changes', 24),
    close: plain('Cancel', 24),
    private_metadata: (input.write ?? JSON.stringify)(stateRecord(state)),
    blocks,
  };
}

const applyOption: PlainTextOption = {
  text: plain('Send all values in this category'),
  value: 'apply',
};

function categoryOption(state: EditorState, catalogue: Catalogue) {
  return (category: string): PlainTextOption => {
    const changed = specsOf(category, catalogue).filter(
      (s) => s.key in state.edits || state.unset.includes(s.key),
    ).length;
    const label = changed > 0 ? `${category} (${changed} changed)` : category;
    return { text: plain(label), value: category };
  };
}

function knownNote(baseline: Baseline, what: 'role' | 'scope'): string {
  return baseline.seenAt !== undefined
    ? `Values as CometChat returned them after the last update this app made (${slackDate(Math.floor(baseline.seenAt / 1000))}). Only the fields you change are sent.`
    : `:information_source: CometChat cannot be asked for a ${what}'s current permissions, and this app has not updated this ${what} yet: the boxes show the *documented defaults*, not live values. Only the fields you change are sent.`;
}

function pendingSummary(state: EditorState): string {
  const count = Object.keys(state.edits).length;
  const applied =
    state.apply.length > 0 ? ` · all values of ${state.apply.map(escapeMrkdwn).join(', ')}` : '';
  const unset =
    state.unset.length > 0 ? ` · ${counted(state.unset.length, 'key')} back to the default` : '';
  return count === 0 && applied === '' && unset === ''
    ? 'No changes yet.'
    : `${counted(count, 'changed field')} pending${applied}${unset}. Review shows the exact change before anything is sent.`;
}

/** Slack's most options in a multi-select. */
const MULTI_SELECT_OPTIONS = 100;

/**
 * The keys of a category "Back to the default" offers: those the editor's metadata can carry
 * (every key a catalogue has, in practice), as many as one menu holds.
 */
export function unsetOffered(specs: readonly CatalogueSpec[]): readonly CatalogueSpec[] {
  return specs.filter((spec) => isCarriedKey(spec.key)).slice(0, MULTI_SELECT_OPTIONS);
}

/** Slack's longest option text. */
const OPTION_TEXT = 75;

/**
 * "Back to the default": the category's keys, each by its label and its key (the label alone
 * when both do not fit; a menu's options show no description), those chosen already selected.
 * None when the category has no key (Slack refuses a menu without options).
 */
function unsetInput(state: EditorState, specs: readonly CatalogueSpec[]): InputBlock[] {
  const options = unsetOffered(specs).map((spec) => {
    const both = `${spec.label} (${spec.key})`;
    return option(spec.key, undefined, both.length <= OPTION_TEXT ? both : spec.label);
  });
  if (options.length === 0) return [];
  // The very same objects as in `options`, as Slack requires.
  const initial = options.filter((o) => state.unset.includes(o.value ?? ''));
  return [
    {
      type: 'input',
      block_id: blockIds.unset(state.render),
      optional: true,
      label: plain('Back to the default', 2000),
      element: {
        type: 'multi_static_select',
        action_id: ACTIONS.permissionsUnset,
        placeholder: plain('Keys to unset'),
        options,
        ...(initial.length > 0 ? { initial_options: initial } : {}),
      },
      hint: plain(
        `Unsets each chosen key in CometChat, so this ${state.scope ? 'scope' : 'role'} follows CometChat's default for it from then on. A key chosen here is not set from its field above: the unset wins.`,
        2000,
      ),
    },
  ];
}

function categoryFields({
  state,
  baseline,
  roleIds,
  catalogue,
}: EditorViewInput & { catalogue: Catalogue }): KnownBlock[] {
  const specs = specsOf(state.category, catalogue);
  const blocks: KnownBlock[] = [];
  const actions = specs.filter((s) => s.kind === 'action');
  for (let chunk = 0; chunk * CHECKBOX_LIMIT < actions.length; chunk++) {
    const group = actions.slice(chunk * CHECKBOX_LIMIT, (chunk + 1) * CHECKBOX_LIMIT);
    const options = group.map((spec) => actionOption(spec, describe(state, baseline, spec)));
    const allowed = options.filter(
      (o) => displayedValue(state, baseline, o.value ?? '') === 'allow',
    );
    blocks.push({
      type: 'input',
      block_id: blockIds.actions(state.render, chunk),
      optional: true,
      label: plain(chunk === 0 ? 'Allowed actions' : 'More allowed actions', 2000),
      hint: plain('Checked = allow, unchecked = deny.', 2000),
      element: checkboxes(ACTIONS.permissionsField, options, allowed),
    });
  }
  for (const spec of specs) {
    if (spec.kind !== 'action') blocks.push(fieldBlock(state, baseline, spec, roleIds));
  }
  return blocks;
}

/**
 * An action as a checkbox: its label, and under it the key (the label's `value` too, which the
 * review reads) and what the box showed, or that CometChat no longer defines the key.
 */
function actionOption(spec: CatalogueSpec, described: string): PlainTextOption {
  return option(
    spec.key,
    `${spec.key} · ${spec.undefinedByService ? NO_LONGER_DEFINED : described}`,
    spec.label,
  );
}

/** Labels are short; one from an app's CometChat (its title) is cut here. */
const LABEL_SHOWN = 150;

function fieldBlock(
  state: EditorState,
  baseline: Baseline,
  spec: CatalogueSpec,
  roleIds: readonly string[],
): InputBlock {
  const value = displayedValue(state, baseline, spec.key);
  const base = {
    type: 'input' as const,
    block_id: blockIds.field(state.render, spec.key),
    optional: true,
    label: plain(spec.label, LABEL_SHOWN),
  };
  const described = describe(state, baseline, spec);
  const list = Array.isArray(value) ? value : [];
  const field = (): Field => {
    switch (spec.kind) {
      case 'action':
      case 'mode':
        return selectField(spec.values, value, described);
      case 'fixedList':
        return fixedListField(spec.values, list, described);
      case 'roleList':
        return roleListField(roleIds, list, described);
      case 'freeList':
        return freeListField(spec.key, list, described);
    }
  };
  const { hint, element } = field();
  return { ...base, element, hint: plain(`${fieldNotes(spec)} · ${hint?.text ?? ''}`, 2000) };
}

/**
 * What a field's hint says before how to fill it in: the key (which copies exactly), what the
 * app's CometChat says of it where that adds to the label, and when CometChat no longer defines
 * the key.
 */
function fieldNotes(spec: CatalogueSpec): string {
  const said =
    spec.description && !sameWords(spec.description, spec.label) ? [spec.description] : [];
  const defined = spec.undefinedByService ? [NO_LONGER_DEFINED] : [];
  return [spec.key, ...said, ...defined].join(' · ');
}

/** Whether two texts say the same words, case and punctuation aside. */
function sameWords(a: string, b: string): boolean {
  const words = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return words(a) === words(b);
}

/** A field's hint and element, under the label its block gives it. */
type Field = Pick<InputBlock, 'hint' | 'element'>;

/** One value of a few: a menu. */
function selectField(
  values: readonly string[],
  value: PermissionValue | undefined,
  described: string,
): Field {
  const options = values.map((v) => option(v));
  const initial = options.find((o) => o.value === value);
  return {
    hint: plain(described, 2000),
    element: {
      type: 'static_select',
      action_id: ACTIONS.permissionsField,
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

/** Some of a few values: checkboxes. */
function fixedListField(
  values: readonly string[],
  list: readonly string[],
  described: string,
): Field {
  const options = values.map((v) => option(v));
  return {
    hint: plain(`None checked means no restriction. ${described}`, 2000),
    element: checkboxes(
      ACTIONS.permissionsField,
      options,
      options.filter((o) => list.includes(o.value ?? '')),
    ),
  };
}

/** Some of the app's roles: a multi-select of their ids. */
function roleListField(
  roleIds: readonly string[],
  list: readonly string[],
  described: string,
): Field {
  // A role that no longer exists stays selectable, so it is never dropped silently.
  const ids = [...new Set([...roleIds, ...list])].slice(0, 100);
  const options = ids.map((id) => ({ text: plain(id), value: roleOptionValue(id) }));
  const initial = options.filter((_option, i) => list.includes(ids[i] ?? ''));
  return {
    hint: plain(`None selected means no restriction. ${described}`, 2000),
    element: {
      type: 'multi_static_select',
      action_id: ACTIONS.permissionsField,
      placeholder: plain('Any role'),
      options,
      ...(initial.length > 0 ? { initial_options: initial } : {}),
    },
  };
}

/** Any values: typed, separated by commas. */
function freeListField(key: string, list: readonly string[], described: string): Field {
  return {
    hint: plain(
      `${key.endsWith('MimeTypes') ? 'MIME types like image/png' : 'Values'}, separated by commas; empty means no restriction. ${described}`,
      2000,
    ),
    element: {
      type: 'plain_text_input',
      action_id: ACTIONS.permissionsField,
      ...(list.length > 0 ? { initial_value: list.join(', ') } : {}),
    },
  };
}

function describe(state: EditorState, baseline: Baseline, spec: CatalogueSpec): string {
  const before = baseline.values[spec.key] ?? null;
  const source = baseline.seenAt !== undefined ? 'last seen' : 'default';
  if (state.unset.includes(spec.key)) {
    return `Back to the default chosen (${source}: ${valueInWords(before)})`;
  }
  return spec.key in state.edits
    ? `Changed (${source}: ${valueInWords(before)})`
    : `${source}: ${valueInWords(before)}`;
}

/** An option showing `text` (the value itself by default), with a description under it. */
function option(value: string, description?: string, text = value): PlainTextOption {
  return { text: plain(text), value, ...(description ? { description: plain(description) } : {}) };
}

function checkboxes(
  actionId: string,
  options: PlainTextOption[],
  initial: PlainTextOption[],
): Checkboxes {
  // Slack requires initial options to be the very same objects as in `options`, and refuses
  // an empty list.
  return {
    type: 'checkboxes',
    action_id: actionId,
    options,
    ...(initial.length > 0 ? { initial_options: initial } : {}),
  };
}

/**
 * Shown the moment the editor opens, while the role list and the last known values load; `name`
 * (mrkdwn) is what it is for: "`vip`", or a group's scope.
 */
export function loadingView(name: string, appName?: string): View {
  return {
    ...messageView(
      'Edit permissions',
      `:hourglass_flowing_sand: Loading the editor for ${name}${inApp(appName)}…`,
      false,
    ),
    callback_id: CALLBACKS.permissionsEditor,
  };
}
