import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { sendChange } from '../../../src/features/permissions/change-subject.ts';
import type { EditorDeps } from '../../../src/features/permissions/editor-context.ts';
import { decodeConfirm, userKeyChange } from '../../../src/features/permissions/editor-state.ts';
import { createApplySubmission } from '../../../src/features/permissions/permission-editor.ts';
import { userChangeMeta } from '../../../src/features/permissions/user-change.ts';
import { createMemoryStore } from '../../../src/store/store.ts';

// A confirmation of a change to a user is read exactly: one change, of the role (to a role id) or
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

describe('decodeConfirm, for a change to a user', () => {
  it('reads one change of the role or of the account, as the review writes it', () => {
    const user = { uid: 'cometchat-uid-4', name: 'A', role: 'default' };
    const role = userChangeMeta(
      'default',
      { ...user, key: 'role', before: 'default', after: 'vip' },
      'V1',
    );
    const account = userChangeMeta(
      'default',
      { ...user, uid: 'u_1', key: 'status', before: 'deactivated', after: 'active' },
      'V1',
    );
    for (const meta of [role, account]) {
      expect(decodeConfirm(JSON.stringify(meta))).toEqual({ ...meta, seenAt: undefined });
    }
  });

  it('refuses several changes, or none, even when each is one the app sends', () => {
    for (const changes of [[roleChange, statusChange], [roleChange, roleChange], []]) {
      expect(decodeConfirm(forged({ changes }))).toBeUndefined();
    }
  });

  it('refuses a key other than role or status (once read as an account change)', () => {
    for (const key of ['name', 'Role', 'account', 'sendMessage', '']) {
      expect(decodeConfirm(forged({ changes: [{ ...roleChange, key }] }))).toBeUndefined();
    }
  });

  it('refuses a role that is no role id', () => {
    for (const after of ['VIP', '', 'a b', 'x'.repeat(101), ['vip'], null]) {
      expect(decodeConfirm(forged({ changes: [{ ...roleChange, after }] }))).toBeUndefined();
    }
  });

  it('refuses an account other than active or deactivated (once read as reactivating)', () => {
    for (const after of ['suspended', 'deleted', 'Active', '', ['deactivated'], null]) {
      expect(decodeConfirm(forged({ changes: [{ ...statusChange, after }] }))).toBeUndefined();
    }
  });

  it('refuses a subject whose uid uidProblem refuses, or that is not a user', () => {
    for (const uid of ['', 'a b', 'x'.repeat(101), 'name@example.com', '..', 'a\u0000b', 7]) {
      expect(decodeConfirm(forged({ subject: { kind: 'user', uid } }))).toBeUndefined();
    }
    expect(decodeConfirm(forged({ subject: { kind: 'group', uid: 'u1' } }))).toBeUndefined();
    expect(decodeConfirm(forged({ subject: null }))).toBeUndefined();
  });

  it("still reads a role's permission changes, several keys and any values, with no subject", () => {
    const meta = {
      role: 'default',
      id: 'd'.repeat(24),
      changes: [
        { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
        { key: 'role', before: null, after: ['a', 'b'], explicit: false },
      ],
    };
    expect(decodeConfirm(JSON.stringify(meta))).toEqual({ ...meta, seenAt: undefined });
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

describe('sendChange, for a change to a user', () => {
  const request = { ref: 'ref0000001', logger: pino({ level: 'silent' }) };
  const subject = { kind: 'user' as const, uid: 'cometchat-uid-4' };

  it('sends the one change: the role, or the account', async () => {
    const client = writes();
    await sendChange(client as never, { role: 'default', subject, changes: [roleChange] }, request);
    expect(client.setUserRole).toHaveBeenCalledWith('cometchat-uid-4', 'vip', request);
    await sendChange(client as never, { role: 'vip', subject, changes: [statusChange] }, request);
    expect(client.deactivateUsers).toHaveBeenCalledWith(['cometchat-uid-4'], request);
    expect(sent(client)).toBe(2);
  });

  it('sends nothing of changes that are not exactly one the app sends', async () => {
    const client = writes();
    for (const changes of [
      [roleChange, statusChange],
      [{ ...statusChange, after: 'suspended' }],
      [{ ...roleChange, key: 'name' }],
    ]) {
      const change = { role: 'default', subject, changes };
      await expect(sendChange(client as never, change, request)).rejects.toThrow('exactly one');
    }
    expect(sent(client)).toBe(0);
  });
});

describe('the Apply listener, given a forged change to a user', () => {
  const allowAll: Access = {
    canEdit: async () => true,
    canView: async () => true,
    editRefusal: async () => undefined,
    viewRefusal: async () => undefined,
  };

  it('calls it out of date, and sends, claims and audits nothing', async () => {
    const client = writes();
    const record = vi.fn(async () => ({ stored: true }));
    const deps: EditorDeps = {
      apps: createApps([
        {
          name: 'default',
          appId: 'a',
          region: 'us',
          apiKey: 'k',
          cometchat: client as unknown as CometChatClient,
          access: allowAll,
        },
      ]),
      deliver: async () => 'dm',
      views: { update: vi.fn(), open: vi.fn(), push: vi.fn(), publish: vi.fn() },
      budgetSeconds: 8,
      store: createMemoryStore(),
      audit: { record },
      now: () => 1_000,
      reviewDeadlineMs: 2_000,
      loadingViewAfterMs: 400,
      approvalTtlMs: 3_600_000,
    };
    const submit = async (metadata: string) => {
      const acks: unknown[] = [];
      const args = {
        ack: async (response: unknown) => {
          acks.push(response);
        },
        view: { id: 'V9', private_metadata: metadata, state: { values: {} } },
        body: { type: 'view_submission', user: { id: 'U0EDITOR' }, team: { id: 'T1' } },
        context: { scope: { ref: 'ref0000003', log: pino({ level: 'silent' }) } },
      } as unknown as Parameters<ReturnType<typeof createApplySubmission>>[0];
      await createApplySubmission(deps)(args);
      return JSON.stringify(acks);
    };
    for (const metadata of [
      forged({ changes: [roleChange, statusChange] }),
      forged({ changes: [{ ...roleChange, key: 'name' }] }),
      forged({ changes: [{ ...statusChange, after: 'suspended' }] }),
      forged({ changes: [{ ...roleChange, after: 'Not A Role' }] }),
      forged({ subject: { kind: 'user', uid: 'a b' } }),
    ]) {
      expect(await submit(metadata)).toContain('This confirmation is out of date.');
    }
    expect(sent(client)).toBe(0);
    expect(client.getUser).not.toHaveBeenCalled();
    expect(record).not.toHaveBeenCalled();
    // The same listener, given the change as the review writes it, sends it.
    await submit(forged({}));
    expect(client.setUserRole).toHaveBeenCalledTimes(1);
    expect(record).toHaveBeenCalledTimes(1);
  });
});
