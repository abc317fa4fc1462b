import { describe, expect, it } from 'vitest';
import { decodeChange, encodeChange, userKeyChange } from '../../src/changes/change.ts';
import { userChangeOf } from '../../src/changes/review.ts';

// A review of a change to a user is read back exactly: one change, of the role (to a role id) or
// of the account (active or deactivated), to a uid the app could have sent. Metadata that says
// anything else is refused where it is read, as a forged or damaged value, and nothing is sent.

const roleChange = { key: 'role', before: 'default', after: 'vip', explicit: false };
const statusChange = { key: 'status', before: 'active', after: 'deactivated', explicit: false };

/** A user change's metadata as the confirmation carries it, with `fields` forged into it. */
const forged = (fields: Record<string, unknown>) =>
  JSON.stringify({
    role: 'default',
    id: 'c'.repeat(24),
    subject: { kind: 'user', uid: 'cometchat-uid-4' },
    changes: [roleChange],
    ...fields,
  });

describe('decodeChange, for a change to a user', () => {
  it('reads one change of the role or of the account, as the review writes it', () => {
    const user = { uid: 'cometchat-uid-4', name: 'A', role: 'default' };
    const role = userChangeOf(
      'default',
      { ...user, key: 'role', before: 'default', after: 'vip' },
      'V1',
    );
    const account = userChangeOf(
      'default',
      { ...user, uid: 'u_1', key: 'status', before: 'deactivated', after: 'active' },
      'V1',
    );
    for (const meta of [role, account]) {
      expect(decodeChange(encodeChange(meta))).toEqual({ ...meta, seenAt: undefined });
    }
  });

  it('refuses several changes, or none, even when each is one the app sends', () => {
    for (const changes of [[roleChange, statusChange], [roleChange, roleChange], []]) {
      expect(decodeChange(forged({ changes }))).toBeUndefined();
    }
  });

  it('refuses a key other than role or status (once read as an account change)', () => {
    for (const key of ['name', 'Role', 'account', 'sendMessage', '']) {
      expect(decodeChange(forged({ changes: [{ ...roleChange, key }] }))).toBeUndefined();
    }
  });

  it('refuses a role that is no role id', () => {
    for (const after of ['VIP', '', 'a b', 'x'.repeat(101), ['vip'], null]) {
      expect(decodeChange(forged({ changes: [{ ...roleChange, after }] }))).toBeUndefined();
    }
  });

  it('refuses an account other than active or deactivated (once read as reactivating)', () => {
    for (const after of ['suspended', 'deleted', 'Active', '', ['deactivated'], null]) {
      expect(decodeChange(forged({ changes: [{ ...statusChange, after }] }))).toBeUndefined();
    }
  });

  it('refuses a subject whose uid uidProblem refuses, or that is not a user', () => {
    for (const uid of ['', 'a b', 'x'.repeat(101), 'name@example.com', '..', 'a\u0000b', 7]) {
      expect(decodeChange(forged({ subject: { kind: 'user', uid } }))).toBeUndefined();
    }
    expect(decodeChange(forged({ subject: { kind: 'group', uid: 'u1' } }))).toBeUndefined();
    expect(decodeChange(forged({ subject: null }))).toBeUndefined();
  });

  it("still reads a role's permission changes, several keys and any values, with no subject", () => {
    const meta = {
      kind: 'permissions',
      role: 'default',
      id: 'd'.repeat(24),
      changes: [
        { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
        { key: 'role', before: null, after: ['a', 'b'], explicit: false },
      ],
    };
    expect(decodeChange(JSON.stringify(meta))).toEqual({ ...meta, seenAt: undefined });
  });
});

describe('userKeyChange', () => {
  it('is the one change of a role or an account, and nothing else', () => {
    expect(userKeyChange([roleChange])).toEqual(roleChange);
    expect(userKeyChange([statusChange])).toEqual(statusChange);
    expect(userKeyChange([roleChange, statusChange])).toBeUndefined();
    expect(userKeyChange([{ ...statusChange, after: 'suspended' }])).toBeUndefined();
    expect(userKeyChange([{ ...roleChange, key: 'name' }])).toBeUndefined();
    expect(userKeyChange([])).toBeUndefined();
  });
});
