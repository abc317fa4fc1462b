import { describe, expect, it, vi } from 'vitest';
import type { AccountChange, KeyChange, UserRoleChange } from '../../../src/changes/change.ts';
import { userKind } from '../../../src/changes/kinds/user.ts';

// A change to a user sends exactly its one change, and nothing of changes that are not one.

const roleChange = { key: 'role', before: 'default', after: 'vip', explicit: false };
const statusChange = { key: 'status', before: 'active', after: 'deactivated', explicit: false };

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

const sent = (client: ReturnType<typeof writes>) =>
  [client.setUserRole, client.deactivateUsers, client.reactivateUsers, client.setRolePermissions]
    .map((spy) => spy.mock.calls.length)
    .reduce((a, b) => a + b, 0);

describe('sending a change to a user', () => {
  const uid = 'cometchat-uid-4';
  const id = 'c'.repeat(24);
  /** Sends `changes` to the user as their kind does. */
  const sendChange = (client: ReturnType<typeof writes>, role: string, changes: KeyChange[]) => {
    const account = changes[0]?.key === 'status';
    const change: UserRoleChange | AccountChange = account
      ? { kind: 'account', uid, id, role, changes }
      : { kind: 'user-role', uid, id, role, changes };
    return userKind(change).send(client as never);
  };

  it('sends the one change: the role, or the account', async () => {
    const client = writes();
    await sendChange(client, 'default', [roleChange]);
    expect(client.setUserRole).toHaveBeenCalledWith('cometchat-uid-4', 'vip');
    await sendChange(client, 'vip', [statusChange]);
    expect(client.deactivateUsers).toHaveBeenCalledWith(['cometchat-uid-4']);
    expect(sent(client)).toBe(2);
  });

  it('sends nothing of changes that are not exactly one the app sends', async () => {
    const client = writes();
    for (const changes of [
      [roleChange, statusChange],
      [{ ...statusChange, after: 'suspended' }],
      [{ ...roleChange, key: 'name' }],
    ]) {
      await expect(sendChange(client, 'default', changes)).rejects.toThrow('exactly one');
    }
    expect(sent(client)).toBe(0);
  });
});
