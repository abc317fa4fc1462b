import { describe, expect, it } from 'vitest';
import { resultView } from '../../src/changes/outcome.ts';
import { confirmView } from '../../src/changes/review.ts';
import { changeLine } from '../../src/changes/views.ts';

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
      'user-role',
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
        kind: 'permissions',
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

describe('an unset, reviewed and applied', () => {
  const unset = {
    key: 'sendMessage',
    before: 'deny',
    after: 'allow',
    explicit: false,
    unset: true as const,
  };

  it('is a line of the review: to the default, unset', () => {
    const view = confirmView(
      { kind: 'permissions', role: 'banned', id: 'c'.repeat(24), changes: [unset] },
      'Banned',
      '{}',
    );
    expect(textOf(view.blocks)).toContain(
      '*Message Sending* (`sendMessage`): deny → *the default* (allow) _(unset)_',
    );
  });

  it('shows the map the last unset answered, the key marked as back to the default', () => {
    const view = resultView(
      'banned',
      {
        permissions: { sendMessage: 'allow', editMessage: 'deny' },
        results: { sendMessage: { success: true, message: 'back to its default' } },
      },
      [unset],
    );
    const text = textOf(view.blocks);
    expect(text).toContain(
      ':white_check_mark: *Message Sending* (`sendMessage`): back to its default',
    );
    expect(text).toContain('*Message Sending* (`sendMessage`): *allow* ← back to the default');
    expect(text).toContain('*Message Editing* (`editMessage`): deny');
  });
});
