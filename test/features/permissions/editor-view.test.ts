import type { Checkboxes, InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  FALLBACK_CATALOGUE,
  OTHER_CATEGORY,
  PERMISSIONS,
} from '../../../src/cometchat/catalogue.ts';
import { mergeCatalogue } from '../../../src/cometchat/catalogue-merge.ts';
import { baselineFrom, newEditorState } from '../../../src/features/permissions/editor-state.ts';
import {
  changeLine,
  confirmView,
  type EditorViewInput,
  editorView,
  NO_LONGER_DEFINED,
  resultView,
  SHIPPED_CATALOGUE_NOTE,
} from '../../../src/features/permissions/editor-view.ts';
import { context } from '../../../src/slack/blocks.ts';

// Role ids in a change line are code spans, so what a reader copies from Slack is the id itself;
// names and free text stay escaped (issue 30, item 4).

const ZWSP = '\u200B';
const textOf = (blocks: readonly unknown[] = []) => JSON.stringify(blocks);

describe('changeLine', () => {
  it('shows the role ids of a role list as code, one span each, with no zero-width space', () => {
    const line = changeLine({
      key: 'sendMessage.allowedReceiverRoles',
      before: ['admin'],
      after: ['admin', 'beta_tester'],
      explicit: false,
    });
    expect(line).toBe(
      '*Message Receiver Roles* (`sendMessage.allowedReceiverRoles`): +`beta_tester` _(now `admin`, `beta_tester`)_',
    );
    expect(line).not.toContain(ZWSP);
  });

  it('shows removed role ids and an explicitly stated role list as code too', () => {
    expect(
      changeLine({
        key: 'listUsers.allowedRoles',
        before: ['beta_tester', 'vip_1'],
        after: ['vip_1'],
        explicit: false,
      }),
    ).toBe('*User Listing Role Filter* (`listUsers.allowedRoles`): −`beta_tester` _(now `vip_1`)_');
    expect(
      changeLine({
        key: 'listUsers.allowedRoles',
        before: ['beta_tester'],
        after: ['beta_tester'],
        explicit: true,
      }),
    ).toBe(
      '*User Listing Role Filter* (`listUsers.allowedRoles`): `beta_tester` _(unchanged, stated explicitly)_',
    );
  });

  it('says "no restriction" in words when a role list is emptied', () => {
    expect(
      changeLine({
        key: 'listUsers.allowedRoles',
        before: ['beta_tester'],
        after: [],
        explicit: false,
      }),
    ).toBe(
      '*User Listing Role Filter* (`listUsers.allowedRoles`): −`beta_tester` _(now no restriction)_',
    );
  });

  it("shows a user's role before and after as code", () => {
    const line = changeLine(
      { key: 'role', before: 'beta_tester', after: 'super_admin', explicit: false },
      { kind: 'user', uid: 'cometchat-uid_1' },
    );
    expect(line).toBe('`role`: `beta_tester` → *`super_admin`*');
    expect(line).not.toContain(ZWSP);
  });

  it('still escapes values that are not role ids', () => {
    expect(
      changeLine({
        key: 'sendMessage.allowedCustomTypes',
        before: [],
        after: ['*loud_type*'],
        explicit: false,
      }),
    ).toBe(
      `*Message Sending Custom Types* (\`sendMessage.allowedCustomTypes\`): +${ZWSP}*${ZWSP}loud${ZWSP}_${ZWSP}type${ZWSP}*${ZWSP} _(now ${ZWSP}*${ZWSP}loud${ZWSP}_${ZWSP}type${ZWSP}*${ZWSP})_`,
    );
    // A role's own `role` key is not a user's role: without a user subject it is not an id.
    expect(changeLine({ key: 'role', before: 'a_b', after: 'c', explicit: false })).toContain(
      `a${ZWSP}_${ZWSP}b`,
    );
  });
});

describe('confirmView', () => {
  it('shows role ids as code and still escapes the role name', () => {
    const view = confirmView(
      {
        role: 'beta_tester',
        id: 'c'.repeat(24),
        changes: [
          {
            key: 'listUsers.allowedRoles',
            before: undefined,
            after: ['beta_tester'],
            explicit: false,
          },
        ],
      },
      '*Beta_Testers*',
      '{}',
    );
    const text = textOf(view.blocks);
    expect(text).toContain('+`beta_tester` _(now `beta_tester`)_');
    expect(text).toContain(
      `${ZWSP}*${ZWSP}Beta${ZWSP}_${ZWSP}Testers${ZWSP}*${ZWSP} \`beta_tester\``,
    );
    expect(text).not.toMatch(/\u200B_\u200Btester/);
  });
});

describe('resultView', () => {
  it("shows a role list's ids in the resulting permissions as code", () => {
    const view = resultView(
      'beta_tester',
      {
        permissions: {
          'listUsers.allowedRoles': ['admin', 'beta_tester'],
          'sendMessage.allowedCustomTypes': ['x_y'],
        },
        results: {},
      },
      [
        {
          key: 'listUsers.allowedRoles',
          before: ['admin'],
          after: ['admin', 'beta_tester'],
          explicit: false,
        },
      ],
    );
    const text = textOf(view.blocks);
    expect(text).toContain(
      '*User Listing Role Filter* (`listUsers.allowedRoles`): *`admin`, `beta_tester`* ← changed',
    );
    expect(text).toContain(
      `*Message Sending Custom Types* (\`sendMessage.allowedCustomTypes\`): x${ZWSP}_${ZWSP}y`,
    );
  });
});

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
