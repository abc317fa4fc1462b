import { describe, expect, it } from 'vitest';
import { userChangeProblem } from '../../../src/features/users/user-changes.ts';

// Whether a change to a user has anything to review: one rule, and one sentence a case, for the
// role picker, the Deactivate / Reactivate buttons and `/cometchat user <uid> role <role>`.

const active = { uid: 'cometchat-uid-4', role: 'premium' };
const deactivated = { ...active, deactivatedAt: 1_700_000_000 };
const roles = [{ role: 'default' }, { role: 'premium' }, { role: 'vip' }];

describe('userChangeProblem', () => {
  it('lets a role the user does not have through, from the roles read or without them', () => {
    expect(userChangeProblem(active, roles, { key: 'role', to: 'vip' })).toBeUndefined();
    expect(userChangeProblem(active, undefined, { key: 'role', to: 'vip' })).toBeUndefined();
  });

  it('says when the user has that role already', () => {
    const already = '`cometchat-uid-4` has role `premium` already; nothing to change.';
    expect(userChangeProblem(active, roles, { key: 'role', to: 'premium' })).toBe(already);
    expect(userChangeProblem(active, undefined, { key: 'role', to: 'premium' })).toBe(already);
  });

  it('says there is no such role, with the app when several are configured, and where to look', () => {
    expect(userChangeProblem(active, roles, { key: 'role', to: 'nope' })).toBe(
      'There is no role `nope`; see `/cometchat roles`.',
    );
    expect(userChangeProblem(active, roles, { key: 'role', to: 'nope' }, 'prod')).toBe(
      'There is no role `nope` in *prod*; see `/cometchat roles`.',
    );
    // The role's existence comes before whether the user has it: a role read as gone is gone.
    expect(userChangeProblem(active, [{ role: 'vip' }], { key: 'role', to: 'premium' })).toBe(
      'There is no role `premium`; see `/cometchat roles`.',
    );
  });

  it('refuses what is no role id by the role id rule, roles read or not', () => {
    for (const to of ['', 'Not A Role', 'x'.repeat(101)]) {
      expect(userChangeProblem(active, undefined, { key: 'role', to })).toBe(
        'A role id is 1 to 100 characters of a-z, 0-9, `-` and `_` (see `/cometchat roles`).',
      );
    }
  });

  it('says when the account is already active or deactivated', () => {
    expect(userChangeProblem(active, undefined, { key: 'status', to: 'active' })).toBe(
      '`cometchat-uid-4` is active already; nothing to change.',
    );
    expect(userChangeProblem(deactivated, undefined, { key: 'status', to: 'deactivated' })).toBe(
      '`cometchat-uid-4` is deactivated already; nothing to change.',
    );
    expect(userChangeProblem(active, roles, { key: 'status', to: 'deactivated' })).toBeUndefined();
    expect(userChangeProblem(deactivated, roles, { key: 'status', to: 'active' })).toBeUndefined();
  });
});
