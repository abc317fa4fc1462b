import { describe, expect, it } from 'vitest';
import { decodeChange, encodeChange } from '../../src/changes/change.ts';
import { type Now, type Revert, revertOf } from '../../src/changes/revert.ts';
import { defaultPermissions } from '../../src/cometchat/catalogue.ts';
import type { User } from '../../src/cometchat/model.ts';
import type { PermissionMap, Role } from '../../src/cometchat/schemas.ts';
import type { AuditRecord } from '../../src/store/store.ts';

// The inverse of an applied record, worked out from the record and what is there now, both
// injected: pure, no Slack, no service.

const DEFAULTS = defaultPermissions();

const roleOf = (role: string, name = role, description = ''): Role => ({ role, name, description });
const ROLES = [roleOf('default'), roleOf('vip', 'VIP', 'Paying'), roleOf('premium')];

function record(fields: Partial<AuditRecord>): AuditRecord {
  return {
    ref: 'ref0000001',
    at: 1_700_000_000_000,
    app: 'default',
    teamId: 'T1',
    userId: 'U0OPERATOR',
    role: 'default',
    changes: [],
    beforeSource: 'service',
    outcome: 'applied',
    ...fields,
  };
}

const user = (role: string, deactivated = false): User => ({
  uid: 'ana',
  name: 'Ana',
  role,
  status: 'offline',
  ...(deactivated ? { deactivatedAt: 1 } : {}),
});

const now = (fields: Partial<Now> = {}): Now => ({ roles: ROLES, defaults: DEFAULTS, ...fields });

/** The revert, failing the test when there is none. */
function reverting(revert: Revert) {
  if (revert.kind !== 'revert') throw new Error(`no revert: ${revert.sentence}`);
  // Whatever it is, the review can carry it and "Apply" read it back as the same change.
  expect(decodeChange(encodeChange(revert.change))).toEqual(revert.change);
  return revert;
}

const sentenceOf = (revert: Revert) => (revert.kind === 'none' ? revert.sentence : '');

const moved = record({
  role: 'premium',
  subject: { kind: 'user', uid: 'ana' },
  changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
});

describe("revertOf a user's role", () => {
  it('gives the user their role before, naming the record it reverts', () => {
    const revert = reverting(revertOf(moved, now({ user: user('vip') })));
    expect(revert.change).toMatchObject({
      kind: 'user-role',
      uid: 'ana',
      role: 'vip',
      reverts: 'ref0000001',
      changes: [{ key: 'role', before: 'vip', after: 'premium', explicit: false }],
    });
    expect(revert.since).toEqual([]);
    expect(revert.gaps).toEqual([]);
  });

  it('says what the user has now when it changed since, and what the revert sets', () => {
    const revert = reverting(revertOf(moved, now({ user: user('default') })));
    expect(revert.since).toEqual([{ key: 'role', set: 'vip', now: 'default' }]);
    expect(revert.change.changes).toEqual([
      { key: 'role', before: 'default', after: 'premium', explicit: false },
    ]);
  });

  it('has the same id however often it is worked out, and another for another record', () => {
    const first = reverting(revertOf(moved, now({ user: user('vip') })));
    const again = reverting(revertOf(moved, now({ user: user('vip') })));
    const other = reverting(revertOf({ ...moved, ref: 'ref0000002' }, now({ user: user('vip') })));
    expect(again.change.id).toBe(first.change.id);
    expect(other.change.id).not.toBe(first.change.id);
  });

  it('has none when the user has that role already, is gone, or the role is', () => {
    expect(sentenceOf(revertOf(moved, now({ user: user('premium') })))).toContain(
      'has role `premium` already',
    );
    expect(sentenceOf(revertOf(moved, now()))).toContain('CometChat has no user `ana` now');
    const gone = now({ user: user('vip'), roles: [roleOf('default'), roleOf('vip')] });
    expect(sentenceOf(revertOf(moved, gone))).toContain('There is no role `premium` now');
  });
});

describe("revertOf a user's account", () => {
  const deactivation = record({
    subject: { kind: 'user', uid: 'ana' },
    changes: [{ key: 'status', before: 'active', after: 'deactivated', explicit: false }],
  });

  it('reactivates a deactivated user, and deactivates a reactivated one', () => {
    const back = reverting(revertOf(deactivation, now({ user: user('default', true) })));
    expect(back.change).toMatchObject({
      kind: 'account',
      changes: [{ key: 'status', before: 'deactivated', after: 'active' }],
    });
    const reactivation = record({
      subject: { kind: 'user', uid: 'ana' },
      reverts: back.change.reverts,
      changes: [{ key: 'status', before: 'deactivated', after: 'active', explicit: false }],
    });
    const again = reverting(revertOf(reactivation, now({ user: user('default') })));
    expect(again.change.changes[0]).toMatchObject({ before: 'active', after: 'deactivated' });
  });

  it('has none when the account is as it was before already', () => {
    expect(sentenceOf(revertOf(deactivation, now({ user: user('default') })))).toContain(
      'has an active account already',
    );
  });
});

describe('revertOf a role itself', () => {
  const created = record({
    role: 'night',
    subject: { kind: 'role', action: 'create' },
    changes: [
      { key: 'name', before: null, after: 'Night', explicit: false },
      { key: 'sendMessage', before: null, after: 'deny', explicit: false },
    ],
  });

  it('deletes a role it created, saying who holds it and what changed since', () => {
    const roles = [...ROLES, roleOf('night', 'Nightly')];
    const revert = reverting(revertOf(created, now({ roles, holders: 3 })));
    expect(revert.change).toMatchObject({
      kind: 'role',
      action: 'delete',
      role: 'night',
      changes: [{ key: 'role', before: 'night', after: null }],
    });
    expect(revert.holders).toBe(3);
    expect(revert.since).toEqual([{ key: 'name', set: 'Night', now: 'Nightly' }]);
    expect(sentenceOf(revertOf(created, now()))).toContain('There is no role `night` now');
  });

  it('renames and describes a role back, leaving out what is as before already', () => {
    const renamed = record({
      role: 'vip',
      subject: { kind: 'role', action: 'update' },
      changes: [
        { key: 'name', before: 'Gold', after: 'VIP', explicit: false },
        { key: 'description', before: 'Paying', after: 'Paying customers', explicit: false },
      ],
    });
    const revert = reverting(revertOf(renamed, now()));
    expect(revert.change).toMatchObject({ kind: 'role', action: 'update' });
    expect(revert.change.changes).toEqual([
      { key: 'name', before: 'VIP', after: 'Gold', explicit: false },
    ]);
    expect(revert.since).toEqual([{ key: 'description', set: 'Paying customers', now: 'Paying' }]);
    const done = [roleOf('vip', 'Gold', 'Paying')];
    expect(sentenceOf(revertOf(renamed, now({ roles: done })))).toContain(
      'has that name and description already',
    );
  });

  const deleted = record({
    role: 'vip',
    subject: { kind: 'role', action: 'delete' },
    changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
    movedToDefault: { uids: ['ana', 'bob'], total: 2 },
    deletedRole: {
      name: 'VIP',
      description: 'Paying',
      permissions: { ...DEFAULTS, sendMessage: 'deny', 'listUsers.mode': 'friends' },
      seenAt: 1_699_000_000_000,
    },
  });
  const withoutVip = ROLES.filter((r) => r.role !== 'vip');

  it('creates a deleted role again: its name, description, and the permissions last seen', () => {
    const revert = reverting(revertOf(deleted, now({ roles: withoutVip })));
    expect(revert.change).toMatchObject({ kind: 'role', action: 'create', role: 'vip' });
    // Only what differs from the defaults: the rest is the default on a new role anyway.
    expect(revert.change.changes.map((c) => [c.key, c.after])).toEqual([
      ['name', 'VIP'],
      ['description', 'Paying'],
      ['listUsers.mode', 'friends'],
      ['sendMessage', 'deny'],
    ]);
    expect(revert.gaps).toEqual([{ kind: 'permissions-seen', seenAt: 1_699_000_000_000 }]);
    expect(revert.moveBack).toEqual({ uids: ['ana', 'bob'], total: 2 });
  });

  it('says what it cannot know: permissions never seen, a name never kept', () => {
    const unseen = { ...deleted, deletedRole: { name: 'VIP' } };
    const revert = reverting(revertOf(unseen, now({ roles: withoutVip })));
    expect(revert.change.changes.map((c) => c.key)).toEqual(['name']);
    expect(revert.gaps).toEqual([{ kind: 'permissions-unseen' }]);
    const { deletedRole: _, ...older } = deleted;
    const unnamed = reverting(revertOf(older, now({ roles: withoutVip })));
    expect(unnamed.change.changes).toEqual([
      { key: 'name', before: null, after: 'vip', explicit: false },
    ]);
    expect(unnamed.gaps).toEqual([{ kind: 'unnamed' }, { kind: 'permissions-unseen' }]);
  });

  it('has none when the role exists again, or CometChat keeps no more roles', () => {
    expect(sentenceOf(revertOf(deleted, now()))).toContain('There is a role `vip` again');
    const full = Array.from({ length: 25 }, (_, i) => roleOf(`role-${i}`));
    expect(sentenceOf(revertOf(deleted, now({ roles: full })))).toContain('at most 25');
  });

  it('reverts a revert: a role created again is deleted again, naming that record', () => {
    const recreate = reverting(revertOf(deleted, now({ roles: withoutVip })));
    const recreated = record({
      ref: 'ref0000009',
      role: 'vip',
      subject: { kind: 'role', action: 'create' },
      reverts: deleted.ref,
      changes: recreate.change.changes.map((c) => ({ ...c, before: c.before ?? null })),
    });
    const again = reverting(revertOf(recreated, now()));
    expect(again.change).toMatchObject({ kind: 'role', action: 'delete', reverts: 'ref0000009' });
  });
});

describe("revertOf a role's permissions", () => {
  const changed = record({
    role: 'vip',
    beforeSource: 'last-update',
    changes: [
      { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
      { key: 'listUsers.mode', before: 'friends', after: 'all', explicit: false },
      { key: 'joinGroup', before: 'allow', after: 'allow', explicit: true },
    ],
  });
  const known = (permissions: PermissionMap) => ({
    app: 'default',
    role: 'vip',
    permissions: { ...DEFAULTS, ...permissions },
    seenAt: 42,
    ref: 'ref0000001',
  });

  it('sets a key back to its value, and unsets one whose value before was the default', () => {
    const revert = reverting(
      revertOf(changed, now({ known: known({ sendMessage: 'deny', 'listUsers.mode': 'all' }) })),
    );
    expect(revert.change).toMatchObject({ kind: 'permissions', role: 'vip', seenAt: 42 });
    expect(revert.change.changes).toEqual([
      { key: 'sendMessage', before: 'deny', after: 'allow', explicit: false, unset: true },
      { key: 'listUsers.mode', before: 'all', after: 'friends', explicit: false },
    ]);
    expect(revert.since).toEqual([]);
    expect(revert.gaps).toEqual([]);
  });

  it('sets a key that was unset back to its value before', () => {
    const reset = record({
      role: 'vip',
      beforeSource: 'last-update',
      changes: [
        { key: 'listUsers.mode', before: 'friends', after: 'all', explicit: false, unset: true },
      ],
    });
    const revert = reverting(revertOf(reset, now({ known: known({}) })));
    expect(revert.change.changes).toEqual([
      { key: 'listUsers.mode', before: 'all', after: 'friends', explicit: false },
    ]);
  });

  it('leaves out a key that has its value from before already, and says which changed since', () => {
    const later = { ...known({ sendMessage: 'deny', 'listUsers.mode': 'friends' }), seenAt: 50 };
    const revert = reverting(revertOf(changed, now({ known: later })));
    // listUsers.mode is back already; sendMessage is still as the change set it.
    expect(revert.change.changes.map((c) => c.key)).toEqual(['sendMessage']);
    expect(revert.change.seenAt).toBe(50);
    expect(revert.since).toEqual([]);

    const lists = record({
      role: 'vip',
      beforeSource: 'last-update',
      changes: [
        {
          key: 'listUsers.allowedRoles',
          before: ['gold'],
          after: ['gold', 'vip'],
          explicit: false,
        },
      ],
    });
    const drifted = reverting(
      revertOf(lists, now({ known: known({ 'listUsers.allowedRoles': ['premium'] }) })),
    );
    expect(drifted.since).toEqual([
      { key: 'listUsers.allowedRoles', set: ['gold', 'vip'], now: ['premium'] },
    ]);
    expect(drifted.change.changes).toEqual([
      { key: 'listUsers.allowedRoles', before: ['premium'], after: ['gold'], explicit: false },
    ]);
  });

  it('says a "before" that was only the documented default cannot be known: it is unset', () => {
    const guessed = record({
      role: 'vip',
      beforeSource: 'defaults',
      changes: [
        { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
        { key: 'listUsers.mode', before: 'all', after: 'friends', explicit: false },
      ],
    });
    const as = known({ sendMessage: 'deny', 'listUsers.mode': 'friends' });
    const revert = reverting(revertOf(guessed, now({ known: as })));
    expect(revert.change.changes).toEqual([
      { key: 'sendMessage', before: 'deny', after: 'allow', explicit: false, unset: true },
      { key: 'listUsers.mode', before: 'friends', after: 'all', explicit: false, unset: true },
    ]);
    expect(revert.gaps).toEqual([
      { kind: 'default-before', key: 'sendMessage', value: 'allow' },
      { kind: 'default-before', key: 'listUsers.mode', value: 'all' },
    ]);
  });

  it('says a key with no documented default, not set before, cannot be put back', () => {
    const custom = record({
      role: 'vip',
      beforeSource: 'last-update',
      changes: [{ key: 'custom.flag', before: null, after: 'on', explicit: false }],
    });
    expect(sentenceOf(revertOf(custom, now({ known: known({ 'custom.flag': 'on' }) })))).toContain(
      'No key of this change can be put back',
    );
    const mixed = { ...custom, changes: [...custom.changes, ...changed.changes] };
    const revert = reverting(revertOf(mixed, now({ known: known({ sendMessage: 'deny' }) })));
    expect(revert.gaps).toEqual([{ kind: 'no-default', key: 'custom.flag' }]);
    expect(revert.change.changes.map((c) => c.key)).toEqual(['sendMessage', 'listUsers.mode']);
  });

  it('has none when every key is back already, or the role is gone, or it was not applied', () => {
    expect(
      sentenceOf(revertOf(changed, now({ known: known({ 'listUsers.mode': 'friends' }) }))),
    ).toContain('has its value from before already');
    const gone = now({ roles: [roleOf('default')] });
    expect(sentenceOf(revertOf(changed, gone))).toContain('There is no role `vip` now');
    expect(sentenceOf(revertOf({ ...changed, outcome: 'failed' }, now()))).toContain(
      'Only an applied change can be reverted: this one failed',
    );
    expect(sentenceOf(revertOf({ ...changed, outcome: 'unknown' }, now()))).toContain(
      'has an unknown outcome',
    );
  });
});
