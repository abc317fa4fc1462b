import { describe, expect, it, vi } from 'vitest';
import type { KeyChange, PermissionsChange } from '../../../src/changes/change.ts';
import { permissionsKind } from '../../../src/changes/kinds/permissions.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';

// Keys going back to the default are sent as CometChat's unset (issue 32, item 3), to the
// catalogue's default, one request a key; the last answer holds the role's map.

/** A CometChat client whose every write is a spy that answers as if it took. */
function writes() {
  return {
    setRolePermissions: vi.fn(async () => ({ permissions: {}, results: {} })),
    setUserRole: vi.fn(async (uid: string, role: string) => ({ uid, role })),
    deactivateUsers: vi.fn(async (uids: string[]) => uids),
    reactivateUsers: vi.fn(async (uids: string[]) => uids),
    getUser: vi.fn(async (uid: string) => ({ uid, name: uid, role: 'default', status: 'offline' })),
  };
}

describe('sending keys back to the default', () => {
  /** A change of the role's permissions, as the editor's review makes it. */
  const change = (role: string, changes: KeyChange[]): PermissionsChange => ({
    kind: 'permissions',
    id: 'e'.repeat(24),
    role,
    changes,
  });
  const unset = (key: string) => ({
    key,
    before: 'deny',
    after: 'allow',
    explicit: false,
    unset: true as const,
  });

  it('unsets each key, sets none, and answers the last map', async () => {
    const client = {
      ...writes(),
      unsetRolePermission: vi.fn(async (_role: string, key: string) => ({
        permissions: { [key]: 'allow', last: key },
        results: {},
      })),
    };
    const changes = [unset('sendMessage'), unset('editMessage')];
    const sent = await permissionsKind(change('banned', changes)).send(client as never);
    expect(client.setRolePermissions).not.toHaveBeenCalled();
    expect(client.unsetRolePermission.mock.calls.map((c) => c.slice(0, 2))).toEqual([
      ['banned', 'sendMessage'],
      ['banned', 'editMessage'],
    ]);
    expect(sent.permissions).toEqual({ editMessage: 'allow', last: 'editMessage' });
    expect(sent.results.sendMessage).toEqual({ success: true, message: 'back to its default' });
  });

  it('counts a key that was not set as at its default already, and says so without a map', async () => {
    const client = {
      ...writes(),
      unsetRolePermission: vi.fn(async () => {
        throw new CometChatError({
          kind: 'not_found',
          ref: 'ref0000002',
          operation: 'unsetRolePermission',
          serviceCode: 'ERR_PERMISSION_NOT_FOUND',
        });
      }),
    };
    const kind = permissionsKind(change('default', [unset('sendMessage')]));
    const sent = await kind.send(client as never);
    expect(sent.permissions).toBeUndefined();
    expect(sent.results.sendMessage?.message).toBe('was not set: at its default already');
    expect(kind.done).toBe(
      '*Message Sending* (`sendMessage`) was not set in CometChat: it was at its default already',
    );
  });
});
