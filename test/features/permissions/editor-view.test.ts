import type { Checkboxes, InputBlock, MultiStaticSelect } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { initialStateValues } from '../../../offline/slack-standin/view-state.ts';
import { baselineFrom } from '../../../src/changes/kinds/permissions.ts';
import { changeLine } from '../../../src/changes/views.ts';
import {
  FALLBACK_CATALOGUE,
  OTHER_CATEGORY,
  PERMISSIONS,
} from '../../../src/cometchat/catalogue.ts';
import { mergeCatalogue } from '../../../src/cometchat/catalogue-merge.ts';
import {
  type EditorState,
  newEditorState,
} from '../../../src/features/permissions/editor-state.ts';
import {
  blockIds,
  type EditorViewInput,
  editorView,
  NO_LONGER_DEFINED,
  SHIPPED_CATALOGUE_NOTE,
} from '../../../src/features/permissions/editor-view.ts';
import { readCategory, type StateValues } from '../../../src/features/permissions/read-fields.ts';
import { context } from '../../../src/slack/blocks.ts';
import { ACTIONS } from '../../../src/slack/ids.ts';

describe('the words people read (issue 32)', () => {
  const catalogue = mergeCatalogue(PERMISSIONS, [
    ...PERMISSIONS.filter((spec) => spec.key !== 'editProfile').map((spec) => ({
      id: spec.key,
      description: spec.key === 'listUsers.mode' ? 'Whom listing users reaches.' : undefined,
    })),
    {
      id: 'deleteReaction',
      title: 'Reaction Deleting',
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'allow',
    },
    { id: 'pinMessage', title: '<!channel> *Pinning*', dataType: 'stringArray' },
  ]);
  const view = (category: string, over: Partial<EditorViewInput> = {}) =>
    editorView({
      state: { ...newEditorState('default'), category },
      baseline: baselineFrom(undefined, catalogue),
      roleName: 'Default',
      roleIds: ['default'],
      catalogue,
      ...over,
    });
  const inputs = (v: ReturnType<typeof view>) =>
    (v.blocks ?? []).filter((b): b is InputBlock => b.type === 'input');

  it('labels each field, with the key and what CometChat says of it as its hint', () => {
    const mode = inputs(view('Users')).find((b) => b.block_id?.endsWith(':listUsers.mode'));
    expect(mode?.label.text).toBe('User Listing Mode');
    expect(mode?.hint?.text).toBe('listUsers.mode · Whom listing users reaches. · default: all');
    const actions = inputs(view('Users'))[0]?.element as Checkboxes;
    expect(actions.options[0]).toEqual({
      text: { type: 'plain_text', text: 'User Listing', emoji: true },
      value: 'listUsers',
      description: { type: 'plain_text', text: 'listUsers · default: allow', emoji: true },
    });
  });

  it('marks a key CometChat no longer defines', () => {
    const actions = inputs(view('Users'))[0]?.element as Checkboxes;
    const profile = actions.options.find((o) => o.value === 'editProfile');
    expect(profile?.text.text).toBe('Profile Editing');
    expect(profile?.description?.text).toBe(`editProfile · ${NO_LONGER_DEFINED}`);
    expect(NO_LONGER_DEFINED).toBe('CometChat no longer defines this key.');
  });

  it("shows the service's own keys under Other, labelled by its titles", () => {
    const other = view(OTHER_CATEGORY);
    const menu = JSON.stringify(other.blocks);
    expect(menu).toContain(`"value":"${OTHER_CATEGORY}"`);
    const [actions, pin] = inputs(other);
    const boxes = actions?.element as Checkboxes;
    expect(boxes.options.map((o) => [o.text.text, o.value])).toEqual([
      ['Reaction Deleting', 'deleteReaction'],
    ]);
    // Plain text: a title is shown as it is, never parsed.
    expect(pin?.label.text).toBe('<!channel> *Pinning*');
    expect(pin?.hint?.text).toMatch(/^pinMessage · /);
    expect(text(other)).not.toContain(SHIPPED_CATALOGUE_NOTE);
  });

  it('says in one context line when it shows the shipped catalogue because the read failed', () => {
    const fallback = view('Users', {
      catalogue: FALLBACK_CATALOGUE,
      baseline: baselineFrom(undefined),
    });
    const notes = (fallback.blocks ?? []).filter(
      (b) => b.type === 'context' && JSON.stringify(b).includes('permission definitions'),
    );
    expect(notes).toEqual([context([SHIPPED_CATALOGUE_NOTE])]);
    expect(JSON.stringify(fallback.blocks)).not.toContain(`"value":"${OTHER_CATEGORY}"`);
    // Only a failed read says so: the shipped catalogue by default says nothing.
    expect(text(view('Users', { catalogue: undefined }))).not.toContain(SHIPPED_CATALOGUE_NOTE);
  });

  it("names a key in a change line by its label, the service's title for its own keys, escaped", () => {
    expect(
      changeLine({ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }),
    ).toBe('*Message Sending* (`sendMessage`): allow → *deny*');
    expect(
      changeLine(
        { key: 'deleteReaction', before: 'allow', after: 'deny', explicit: false },
        undefined,
        catalogue,
      ),
    ).toBe('*Reaction Deleting* (`deleteReaction`): allow → *deny*');
    const hostile = changeLine(
      { key: 'pinMessage', before: null, after: ['x'], explicit: false },
      undefined,
      catalogue,
    );
    expect(hostile).toContain('&lt;!channel&gt;');
    expect(hostile).toContain('(`pinMessage`)');
    expect(hostile).not.toContain('<!channel>');
    // A key no catalogue names stays code alone.
    expect(
      changeLine({ key: 'flagMessage', before: 'allow', after: 'deny', explicit: false }),
    ).toBe('`flagMessage`: allow → *deny*');
  });
});

const text = (v: { blocks?: unknown[] }) => JSON.stringify(v.blocks ?? []);

// Issue 32, item 3: "Back to the default", one more optional input in each category.

describe('"Back to the default"', () => {
  const catalogue = mergeCatalogue(PERMISSIONS, [
    ...PERMISSIONS.map((spec) => ({ id: spec.key })),
    {
      id: 'deleteReaction',
      title: `Reaction Deleting ${'and more '.repeat(10)}`,
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'deny',
    },
  ]);
  const state = (over: Partial<EditorState> = {}): EditorState => ({
    ...newEditorState('default'),
    category: 'Messages',
    ...over,
  });
  const render = (s: EditorState) =>
    editorView({
      state: s,
      baseline: baselineFrom(undefined, catalogue),
      roleName: 'Default',
      roleIds: ['default'],
      catalogue,
    });
  /** The menu's block id in `view`: it carries the render number, as every input's does. */
  const menuId = (view: ReturnType<typeof render>) =>
    blockIds.unset(JSON.parse(view.private_metadata ?? '{}').n as number);
  const menuOf = (view: ReturnType<typeof render>) => {
    const block = (view.blocks ?? []).find(
      (b): b is InputBlock => b.type === 'input' && b.block_id === menuId(view),
    );
    return { block, menu: block?.element as MultiStaticSelect | undefined };
  };

  it("lists the category's keys by label, the key and its default under each, none chosen", () => {
    const { block, menu } = menuOf(render(state()));
    expect(block?.optional).toBe(true);
    expect(block?.label.text).toBe('Back to the default');
    expect(block?.hint?.text).toMatch(
      /^Unsets each chosen key in CometChat, so this role follows CometChat's default/,
    );
    expect(block?.hint?.text).toContain('the unset wins');
    expect(menu?.type).toBe('multi_static_select');
    expect(menu?.action_id).toBe(ACTIONS.permissionsUnset);
    expect(menu?.options?.map((o) => o.value)).toEqual(
      catalogue.inCategory('Messages').map((s) => s.key),
    );
    expect(menu?.options?.find((o) => o.value === 'sendMessage')).toEqual({
      text: { type: 'plain_text', text: 'Message Sending (sendMessage)', emoji: true },
      value: 'sendMessage',
    });
    expect(menu?.initial_options).toBeUndefined();
  });

  it('starts with the keys chosen already, the very options it lists', () => {
    const { menu } = menuOf(render(state({ unset: ['editMessage', 'listUsers.mode'] })));
    expect(menu?.initial_options?.map((o) => o.value)).toEqual(['editMessage']);
    const listed = menu?.options?.find((o) => o.value === 'editMessage');
    expect(menu?.initial_options?.[0]).toBe(listed);
  });

  it("keeps within Slack's limits: 100 options, option text of 75 characters", () => {
    const { menu } = menuOf(render(state({ category: OTHER_CATEGORY })));
    expect(menu?.options?.map((o) => o.value)).toEqual(['deleteReaction']);
    // A label too long to show with its key is shown alone, cut to fit.
    expect(menu?.options?.[0]?.text.text).toMatch(/^Reaction Deleting and more .*…$/);
    expect(menu?.options?.[0]?.text.text.length).toBeLessThanOrEqual(75);
    for (const category of catalogue.categories) {
      const options = menuOf(render(state({ category }))).menu?.options ?? [];
      expect(options.length).toBeGreaterThan(0);
      expect(options.length).toBeLessThanOrEqual(100);
    }
  });

  it('is read back as the keys chosen on screen, and only keys of the category', () => {
    const view = render(state());
    const values = initialStateValues(view) as StateValues;
    const field = values[menuId(view)]?.[ACTIONS.permissionsUnset];
    if (!field) throw new Error('no "Back to the default" in the form');
    field.selected_options = [{ value: 'sendMessage' }, { value: 'listUsers.mode' }];
    const read = readCategory(state(), baselineFrom(undefined, catalogue), values, [], catalogue);
    expect(read.unset.chosen).toEqual(['sendMessage']);
    expect(read.unset.offered).toContain('editMessage');
    expect(read.unset.offered).not.toContain('listUsers.mode');
    // The field of a key going back to the default is not read: the unset wins.
    expect(read.values).not.toHaveProperty('sendMessage');
  });

  it('counts the chosen keys as pending, and marks them in their category and field', () => {
    const view = render(state({ unset: ['sendMessage', 'listUsers.mode'] }));
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('0 changed fields pending · 2 keys back to the default.');
    expect(text).toContain('"text":"Messages (1 changed)"');
    expect(text).toContain('"text":"Users (1 changed)"');
    expect(text).toContain('sendMessage · Back to the default chosen (default: allow)');
  });
});
