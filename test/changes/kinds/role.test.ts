import { describe, expect, it } from 'vitest';
import {
  decodeChange,
  type RoleChange,
  roleChangesProblem,
  subjectOf,
} from '../../../src/changes/change.ts';
import type { ChangeClient } from '../../../src/changes/kinds/index.ts';
import { roleHasChange, roleKind, roleStaleness } from '../../../src/changes/kinds/role.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import type { Role } from '../../../src/cometchat/schemas.ts';
import { ChangeNotTaken } from '../../../src/replies/failure.ts';

const role = (id: string, name = id, description = ''): Role => ({ role: id, name, description });

describe('a change to a role itself', () => {
  it('is exactly what the app makes: a deletion is `role` to nothing, an update names or describes', () => {
    expect(roleChangesProblem('delete', [{ key: 'role', before: 'vip', after: null }])).toBe(
      undefined,
    );
    expect(roleChangesProblem('delete', [{ key: 'sendMessage', after: 'deny' }])).toBeDefined();
    expect(roleChangesProblem('update', [{ key: 'name', before: 'A', after: 'B' }])).toBe(
      undefined,
    );
    expect(roleChangesProblem('update', [{ key: 'sendMessage', after: 'deny' }])).toBeDefined();
    expect(roleChangesProblem('create', [{ key: 'sendMessage', after: 'deny' }])).toBeDefined();
    expect(roleChangesProblem('create', [{ key: 'name', after: ' ' }])).toBeDefined();
  });

  it('refuses forged confirmation metadata that is not one', () => {
    const base = { role: 'vip', id: 'a'.repeat(24) };
    const forged = {
      ...base,
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'sendMessage', after: 'deny', explicit: false }],
    };
    expect(decodeChange(JSON.stringify(forged))).toBeUndefined();
    const real = {
      ...base,
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
    };
    const decoded = decodeChange(JSON.stringify(real));
    expect(decoded && subjectOf(decoded)).toEqual({
      kind: 'role',
      action: 'delete',
    });
  });

  it('is stale when the role is gone, renamed meanwhile, or exists already to create', () => {
    const rename = {
      role: 'vip',
      action: 'update' as const,
      changes: [{ key: 'name', before: 'VIP', after: 'Gold' }],
    };
    expect(roleStaleness([role('vip', 'VIP')], rename)).toBeUndefined();
    expect(roleStaleness([role('vip', 'Platinum')], rename)).toContain('since the review');
    expect(roleStaleness([], rename)).toContain('no role `vip` any more');
    const create = {
      role: 'vip',
      action: 'create' as const,
      changes: [{ key: 'name', after: 'V' }],
    };
    expect(roleStaleness([role('vip')], create)).toContain('exists now');
    const full = Array.from({ length: 25 }, (_, i) => role(`r${i}`));
    expect(roleStaleness(full, create)).toContain('at most 25');
  });

  it('finds an unknown outcome applied when CometChat has the change', () => {
    const remove = {
      role: 'vip',
      action: 'delete' as const,
      changes: [{ key: 'role', after: null }],
    };
    expect(roleHasChange([], remove)).toBe(true);
    expect(roleHasChange([role('vip')], remove)).toBe(false);
    const rename = {
      role: 'vip',
      action: 'update' as const,
      changes: [{ key: 'name', after: 'Gold' }],
    };
    expect(roleHasChange([role('vip', 'Gold')], rename)).toBe(true);
  });

  it('never takes a forged deletion of `default`', () => {
    const forged = {
      role: 'default',
      id: 'b'.repeat(24),
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'default', after: null, explicit: false }],
    };
    expect(decodeChange(JSON.stringify(forged))).toBeUndefined();
  });

  it('does not call a new role with permissions done because a role of its id exists', () => {
    const create = {
      role: 'night',
      action: 'create' as const,
      changes: [
        { key: 'name', after: 'Night' },
        { key: 'initiateCall', after: 'deny' },
      ],
    };
    expect(roleHasChange([role('night', 'Night')], create)).toBe(false);
    expect(roleStaleness([role('night', 'Night')], create)).toContain(
      'its permissions may not be set',
    );
  });
});

describe('sending a change to a role itself', () => {
  const refused = new CometChatError({
    kind: 'bad_request',
    ref: 'r1',
    operation: 'setRolePermissions',
    status: 400,
    serviceCode: 'ERR_BAD_REQUEST',
    serviceMessage: 'Value *bold* <!here> not allowed',
  });
  const keys = (...changes: { key: string; before?: string; after: string | null }[]) =>
    changes.map(({ key, before, after }) => ({ key, before, after, explicit: false }));
  const create: RoleChange = {
    kind: 'role',
    id: 'c'.repeat(24),
    role: 'night',
    action: 'create',
    changes: keys({ key: 'name', after: 'Night' }, { key: 'initiateCall', after: 'deny' }),
  };
  /** Sends `change` as its kind does, to a client that asks only what a role change asks. */
  const sendRoleChange = (client: ChangeClient, change: RoleChange) =>
    roleKind(change).send(client);
  const notAsked = () => Promise.reject(new Error('not asked'));
  function client(deleted: Promise<{ success: boolean; message: string }>): ChangeClient {
    return {
      createRole: async () => ({ role: 'night', name: 'Night', description: '' }),
      setRolePermissions: () => Promise.reject(refused),
      deleteRole: () => deleted,
      updateRole: notAsked,
      listAllRoles: notAsked,
      getMessage: notAsked,
      deleteMessage: notAsked,
      unsetRolePermission: notAsked,
      setUserRole: notAsked,
      deactivateUsers: notAsked,
      reactivateUsers: notAsked,
      getUser: notAsked,
      listUsers: notAsked,
      decideFlaggedMessage: notAsked,
      decideBlockedMessage: notAsked,
      listFlaggedMessages: notAsked,
      listBlockedMessages: notAsked,
      revokeAllSessions: notAsked,
      banGroupMember: notAsked,
      unbanGroupMember: notAsked,
      listMessages: notAsked,
      getRule: notAsked,
      updateRule: notAsked,
      listSessions: notAsked,
      setMemberScope: notAsked,
      kickGroupMember: notAsked,
      listGroupMembers: notAsked,
      listBannedMembers: notAsked,
      revokeSession: notAsked,
      setScopePermissions: notAsked,
      unsetScopePermission: notAsked,
    };
  }

  it('removes a new role whose permissions were refused, and escapes what CometChat said', async () => {
    const error = await sendRoleChange(
      client(Promise.resolve({ success: true, message: 'ok' })),
      create,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangeNotTaken);
    const taken = error as ChangeNotTaken;
    expect(taken.partial).toBe(false);
    expect(taken.sentence).toContain('the role was removed again');
    expect(taken.sentence).toContain('&lt;!here&gt;');
    expect(taken.sentence).not.toContain('<!here>');
  });

  it('calls it partly taken when the new role cannot be removed either', async () => {
    const error = (await sendRoleChange(client(Promise.reject(new Error('down'))), create).catch(
      (e: unknown) => e,
    )) as ChangeNotTaken;
    expect(error.partial).toBe(true);
    expect(error.sentence).toContain('it exists with the default permissions');
  });

  it('does not call a deletion done when CometChat answers that it was not', async () => {
    const remove: RoleChange = {
      ...create,
      role: 'vip',
      action: 'delete',
      changes: keys({ key: 'role', before: 'vip', after: null }),
    };
    const error = await sendRoleChange(
      client(Promise.resolve({ success: false, message: 'role in use' })),
      remove,
    ).catch((e: unknown) => e);
    expect((error as ChangeNotTaken).sentence).toContain('the role was not deleted (role in use)');
  });
});
