import { describe, expect, it } from 'vitest';
import { initialStateValues } from '../../../offline/slack-standin/view-state.ts';
import { decodeChange, encodeChange } from '../../../src/changes/change.ts';
import { baselineFrom } from '../../../src/changes/kinds/permissions.ts';
import {
  FALLBACK_CATALOGUE,
  OTHER_CATEGORY,
  PERMISSIONS,
} from '../../../src/cometchat/catalogue.ts';
import { mergeCatalogue } from '../../../src/cometchat/catalogue-merge.ts';
import {
  categorySwitchView,
  isCategory,
  lateReviewErrors,
  reviewDecision,
  roleContext,
} from '../../../src/features/permissions/editor-flow.ts';
import {
  decodeState,
  type EditorState,
  newEditorState,
  STALE_NOTICE,
} from '../../../src/features/permissions/editor-state.ts';
import { blockIds, editorView } from '../../../src/features/permissions/editor-view.ts';
import type { StateValues } from '../../../src/features/permissions/read-fields.ts';
import type { KnownPermissions } from '../../../src/store/store.ts';

// The editor's decisions without Slack: the form values are what Slack would send for the
// rendered view, changed the way a person would change them.

const roles = roleContext(
  [
    { role: 'default', name: 'Default', description: '' },
    { role: 'moderator', name: 'Moderator', description: '' },
  ],
  'default',
);

function onScreen(state: EditorState, known?: KnownPermissions) {
  const view = editorView({ state, baseline: baselineFrom(known), ...roles });
  return initialStateValues(view) as StateValues;
}

/** The form with one allow/deny checkbox of the category on screen unticked. */
function untick(values: StateValues, key: string): StateValues {
  const copy = structuredClone(values);
  for (const block of Object.values(copy)) {
    for (const field of Object.values(block)) {
      if (field.selected_options?.some((o) => o.value === key)) {
        field.selected_options = field.selected_options.filter((o) => o.value !== key);
      }
    }
  }
  return copy;
}

const messages = (seenAt?: number): EditorState => ({
  ...newEditorState('default', seenAt),
  category: 'Messages',
});

describe('reviewDecision', () => {
  it('turns one unticked box into exactly one change, ready to confirm', () => {
    const state = messages();
    const outcome = reviewDecision({
      state,
      known: undefined,
      values: untick(onScreen(state), 'sendMessage'),
      viewId: 'V1',
      app: 'default',
    });
    if (outcome.kind !== 'confirm') throw new Error(`expected confirm, got ${outcome.kind}`);
    expect(outcome.meta.changes).toEqual([
      { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
    ]);
    expect(outcome.meta.role).toBe('default');
    expect(decodeChange(encodeChange(outcome.meta))).toEqual(outcome.meta);
  });

  it('gives the same confirmation the same id, and another modal another id', () => {
    const state = messages();
    const values = untick(onScreen(state), 'sendMessage');
    const id = (viewId: string, app = 'default') => {
      const outcome = reviewDecision({ state, known: undefined, values, viewId, app });
      return outcome.kind === 'confirm' ? outcome.meta.id : undefined;
    };
    expect(id('V1')).toBe(id('V1'));
    expect(id('V1')).not.toBe(id('V2'));
    // The claims of every app share one store: the same change for another app is another claim.
    expect(id('V1', 'staging')).not.toBe(id('V1', 'prod'));
  });

  it('sends nothing when every field still shows its value', () => {
    const state = messages();
    expect(
      reviewDecision({
        state,
        known: undefined,
        values: onScreen(state),
        viewId: 'V1',
        app: 'default',
      }),
    ).toEqual({ kind: 'nothing', role: 'default' });
  });

  it('redraws instead of diffing against values someone else changed meanwhile', () => {
    const state = messages(1_000);
    const known = {
      app: 'default',
      role: 'default',
      permissions: { sendMessage: 'deny' },
      seenAt: 2_000,
    };
    const outcome = reviewDecision({
      state,
      known,
      values: onScreen(state),
      viewId: 'V1',
      app: 'default',
    });
    expect(outcome.kind).toBe('stale');
  });

  it('puts a bad free-list value back on its field', () => {
    const state = { ...newEditorState('default'), category: 'Messages' };
    const values = onScreen(state);
    const blockId = blockIds.field(state.render, 'sendMessage.allowedMimeTypes');
    const field = values[blockId]?.perms_field;
    if (!field) throw new Error('no MIME type field in the Messages category');
    field.value = 'not a mime type';
    const outcome = reviewDecision({
      state,
      known: undefined,
      values,
      viewId: 'V1',
      app: 'default',
    });
    expect(outcome.kind).toBe('errors');
    expect(outcome.kind === 'errors' && Object.keys(outcome.errors)).toEqual([blockId]);
  });
});

describe('categorySwitchView', () => {
  it('switches and carries the edit made on screen', () => {
    const state = messages();
    const view = categorySwitchView({
      state,
      target: 'Groups',
      known: undefined,
      values: untick(onScreen(state), 'sendMessage'),
      roles,
    });
    const next = decodeState(view.private_metadata);
    expect(next?.category).toBe('Groups');
    expect(next?.edits).toEqual({ sendMessage: 'deny' });
    expect(next?.render).toBe(state.render + 1);
  });

  it('stays on the category with a notice when the values on screen are out of date', () => {
    const state = messages(1_000);
    const known = { app: 'default', role: 'default', permissions: {}, seenAt: 2_000 };
    const view = categorySwitchView({
      state,
      target: 'Groups',
      known,
      values: onScreen(state),
      roles,
    });
    expect(decodeState(view.private_metadata)?.category).toBe('Messages');
    expect(decodeState(view.private_metadata)?.seenAt).toBe(2_000);
    expect(JSON.stringify(view.blocks)).toContain(STALE_NOTICE.slice(0, 40));
  });
});

describe('small rules', () => {
  it('knows the categories and nothing else', () => {
    expect(isCategory('Messages')).toBe(true);
    expect(isCategory('messages')).toBe(false);
    expect(isCategory(undefined)).toBe(false);
  });

  it('puts a late review on an input block of the editor on screen', () => {
    const state = messages();
    const view = editorView({ state, baseline: baselineFrom(undefined), ...roles });
    const inputIds = (view.blocks ?? []).filter((b) => b.type === 'input').map((b) => b.block_id);
    expect(inputIds).toContain(Object.keys(lateReviewErrors(state))[0]);
  });

  it('names a role by its name, or by its id when it has none', () => {
    expect(roleContext([{ role: 'a', name: '', description: '' }], 'a').roleName).toBe('a');
    expect(roles).toEqual({ roleName: 'Default', roleIds: ['default', 'moderator'] });
  });
});

describe('the editor on an app catalogue (its CometChat defines a key of its own)', () => {
  const catalogue = mergeCatalogue(PERMISSIONS, [
    ...PERMISSIONS.map((spec) => ({ id: spec.key })),
    {
      id: 'deleteReaction',
      title: 'Reaction Deleting',
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'allow',
    },
  ]);
  const other: EditorState = { ...newEditorState('default'), category: OTHER_CATEGORY };
  const screen = (state: EditorState) =>
    initialStateValues(
      editorView({ state, baseline: baselineFrom(undefined, catalogue), ...roles, catalogue }),
    ) as StateValues;

  it('carries Other in its metadata as a category, and no made-up one', () => {
    const back = decodeState(
      JSON.stringify({ r: 'default', c: OTHER_CATEGORY, e: {}, g: [OTHER_CATEGORY], n: 1 }),
    );
    expect(back).toMatchObject({ category: OTHER_CATEGORY, apply: [OTHER_CATEGORY] });
    expect(
      decodeState(JSON.stringify({ r: 'default', c: 'Made up', e: {}, g: [], n: 1 })),
    ).toBeUndefined();
  });

  it('switches to Other, and reads and sends its key', () => {
    expect(isCategory(OTHER_CATEGORY)).toBe(true);
    const state = { ...newEditorState('default') };
    const view = categorySwitchView({
      state,
      target: OTHER_CATEGORY,
      known: undefined,
      values: screen(state),
      roles,
      catalogue,
    });
    const next = decodeState(view.private_metadata);
    expect(next?.category).toBe(OTHER_CATEGORY);
    const outcome = reviewDecision({
      state: other,
      known: undefined,
      values: untick(screen(other), 'deleteReaction'),
      viewId: 'V1',
      app: 'default',
      catalogue,
    });
    if (outcome.kind !== 'confirm') throw new Error(`expected confirm, got ${outcome.kind}`);
    expect(outcome.meta.changes).toEqual([
      { key: 'deleteReaction', before: 'allow', after: 'deny', explicit: false },
    ]);
  });

  it('sends nothing from Other when the catalogue at hand lacks it, and says why', () => {
    const outcome = reviewDecision({
      state: other,
      known: undefined,
      values: untick(screen(other), 'deleteReaction'),
      viewId: 'V1',
      app: 'default',
      catalogue: FALLBACK_CATALOGUE,
    });
    expect(outcome.kind).toBe('errors');
    expect(JSON.stringify(outcome)).toContain('permission definitions could not be read');
  });
});

describe('going back to the default through the form (issue 32, item 3)', () => {
  /** The form of `state` with these keys chosen in "Back to the default". */
  function choose(state: EditorState, keys: string[]): StateValues {
    const values = onScreen(state);
    const field = values[blockIds.unset(state.render)]?.perms_unset;
    if (!field) throw new Error('no "Back to the default" on screen');
    field.selected_options = keys.map((value) => ({ value }));
    return values;
  }

  it('reviews a change of nothing but unsets', () => {
    const state = messages();
    const outcome = reviewDecision({
      state,
      known: undefined,
      values: choose(state, ['sendMessage']),
      viewId: 'V1',
      app: 'default',
    });
    if (outcome.kind !== 'confirm') throw new Error(`expected confirm, got ${outcome.kind}`);
    expect(outcome.meta.changes).toEqual([
      { key: 'sendMessage', before: 'allow', after: 'allow', explicit: false, unset: true },
    ]);
    expect(decodeChange(encodeChange(outcome.meta))).toEqual(outcome.meta);
  });

  it('keeps the keys chosen across a category switch, and drops one unchosen', () => {
    const state = messages();
    const switched = categorySwitchView({
      state,
      target: 'Users',
      known: undefined,
      values: choose(state, ['sendMessage', 'editMessage']),
      roles,
    });
    const users = decodeState(switched.private_metadata);
    expect(users?.unset).toEqual(['sendMessage', 'editMessage']);
    if (!users) throw new Error('no state');
    const back = decodeState(
      categorySwitchView({
        state: users,
        target: 'Messages',
        known: undefined,
        values: onScreen(users),
        roles,
      }).private_metadata,
    );
    if (!back) throw new Error('no state');
    expect(back.unset).toEqual(['sendMessage', 'editMessage']);
    const outcome = reviewDecision({
      state: back,
      known: undefined,
      values: choose(back, ['editMessage']),
      viewId: 'V1',
      app: 'default',
    });
    expect(outcome.kind === 'confirm' && outcome.meta.changes.map((c) => c.key)).toEqual([
      'editMessage',
    ]);
  });

  it('refuses a key the catalogue lacks, naming it, and sends nothing', () => {
    const state = { ...messages(), unset: ['noSuchKey'] };
    const outcome = reviewDecision({
      state,
      known: undefined,
      values: onScreen(state),
      viewId: 'V1',
      app: 'default',
    });
    expect(outcome.kind).toBe('errors');
    expect(outcome.kind === 'errors' && outcome.errors).toEqual({
      [blockIds.apply(state.render)]: expect.stringMatching(/^noSuchKey cannot be put back/),
    });
  });
});
