import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps, sealFor, UNSEALED_REFUSAL } from '../../../src/apps/apps.ts';
import { SHIPPED_CATALOGUE } from '../../../src/cometchat/catalogue.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import { sendChange, subjectChangeDone } from '../../../src/features/permissions/change-subject.ts';
import type { EditorDeps } from '../../../src/features/permissions/editor-context.ts';
import {
  baselineFrom,
  type Change,
  changeId,
  computeChanges,
  decodeConfirm,
  decodeState,
  type EditorState,
  encodeConfirm,
  encodeState,
  idPayload,
  mergeEdits,
  newEditorState,
  rebase,
  stateRecord,
  unsetProblem,
  userKeyChange,
} from '../../../src/features/permissions/editor-state.ts';
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

  it('refuses it with the one sentence, and sends, claims and audits nothing', async () => {
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
      secrets: [],
      store: createMemoryStore(),
      audit: { record },
      now: () => 1_000,
      reviewDeadlineMs: 2_000,
      loadingViewAfterMs: 400,
      approvalTtlMs: 3_600_000,
    };
    const [app] = deps.apps.all;
    if (!app) throw new Error('no app');
    /** The metadata sealed as the app seals it: only its content is forged. */
    const sealed = (json: string) => sealFor(app, JSON.parse(json) as Record<string, unknown>);
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
      expect(await submit(sealed(metadata))).toContain(UNSEALED_REFUSAL);
    }
    // The change as the review writes it, but not sealed: refused the same.
    expect(await submit(forged({}))).toContain(UNSEALED_REFUSAL);
    expect(sent(client)).toBe(0);
    expect(client.getUser).not.toHaveBeenCalled();
    expect(record).not.toHaveBeenCalled();
    // The same listener, given the change as the review writes it, sends it.
    await submit(sealed(forged({})));
    expect(client.setUserRole).toHaveBeenCalledTimes(1);
    expect(record).toHaveBeenCalledTimes(1);
  });
});

// Issue 32, item 3: a key put back to the default is carried in the editor's metadata, kept
// across categories, and sent as CometChat's unset (not set), to the catalogue's default.

describe('the keys chosen to go back to the default', () => {
  const chosen = (unset: string[], over: Partial<EditorState> = {}): EditorState => ({
    ...newEditorState('default'),
    category: 'Messages',
    unset,
    ...over,
  });
  const defaults = baselineFrom(undefined);

  it('go through the metadata and back, in short, and are absent when there are none', () => {
    const state = chosen(['sendMessage', 'listUsers.mode'], { edits: { editMessage: 'deny' } });
    expect(stateRecord(state).u).toEqual(['sendMessage', 'listUsers.mode']);
    expect(decodeState(encodeState(state))).toEqual(state);
    expect(stateRecord(newEditorState('default'))).not.toHaveProperty('u');
    // Metadata an editor wrote before keys could go back to the default: none chosen.
    const before = { r: 'default', c: 'Messages', e: {}, g: [], n: 3 };
    expect(decodeState(JSON.stringify(before))?.unset).toEqual([]);
  });

  it('refuse metadata whose keys no catalogue could hold, repeated, or too many', () => {
    const forged = (u: unknown) =>
      decodeState(JSON.stringify({ r: 'default', c: 'Messages', e: {}, g: [], n: 1, u }));
    for (const u of [
      [''],
      ['a b'],
      ['..'],
      ['x'.repeat(101)],
      ['send\u0000Message'],
      [7],
      [null],
      ['sendMessage', 'sendMessage'],
      Array.from({ length: 201 }, (_, i) => `key${i}`),
      'sendMessage',
      { sendMessage: true },
      null,
    ]) {
      expect(forged(u)).toBeUndefined();
    }
    expect(forged(['sendMessage'])?.unset).toEqual(['sendMessage']);
  });

  it('send a key-shaped key the app catalogue lacks nowhere, and say why', () => {
    // The metadata can hold it (the app's catalogue is read after the metadata is opened)...
    const state = chosen(['noSuchKey', 'sendMessage']);
    expect(decodeState(encodeState(state))?.unset).toEqual(['noSuchKey', 'sendMessage']);
    // ...but it is never a change, and the review refuses it (editor-flow's reviewDecision).
    expect(computeChanges(state, defaults).map((c) => c.key)).toEqual(['sendMessage']);
    expect(unsetProblem(state, SHIPPED_CATALOGUE)).toMatch(
      /^noSuchKey cannot be put back to the default: .* Nothing was sent/,
    );
    expect(unsetProblem(chosen(['sendMessage']), SHIPPED_CATALOGUE)).toBeUndefined();
  });

  it('are each an unset to the default, in catalogue order with the edits', () => {
    const known = {
      app: 'default',
      role: 'default',
      permissions: { sendMessage: 'deny', 'listUsers.mode': 'friends' },
      seenAt: 5_000,
    };
    const state = chosen(['sendMessage', 'listUsers.mode'], {
      edits: { editMessage: 'deny' },
      seenAt: 5_000,
    });
    expect(computeChanges(state, baselineFrom(known))).toEqual([
      { key: 'listUsers.mode', before: 'friends', after: 'all', explicit: false, unset: true },
      { key: 'sendMessage', before: 'deny', after: 'allow', explicit: false, unset: true },
      { key: 'editMessage', before: 'allow', after: 'deny', explicit: false },
    ]);
    // A key already showing its default is unset all the same: it is to follow the default.
    expect(computeChanges(chosen(['sendMessage']), defaults)).toEqual([
      { key: 'sendMessage', before: 'allow', after: 'allow', explicit: false, unset: true },
    ]);
  });

  it('win over an edit of the same key and over a category stated in full', () => {
    const state = chosen(['sendMessage'], {
      edits: { sendMessage: 'deny' },
      apply: ['Messages'],
    });
    const changes = computeChanges(state, defaults);
    expect(changes.filter((c) => c.key === 'sendMessage')).toEqual([
      { key: 'sendMessage', before: 'allow', after: 'allow', explicit: false, unset: true },
    ]);
    expect(changes.filter((c) => c.unset)).toHaveLength(1);
  });

  it('are read from the category on screen: chosen drops the edit, unchosen is no longer unset', () => {
    const messageKeys = ['sendMessage', 'editMessage'];
    // sendMessage chosen while its box was unticked: the unset wins.
    const picked = mergeEdits(chosen([]), defaults, { sendMessage: 'deny' }, false, {
      offered: messageKeys,
      chosen: ['sendMessage'],
    });
    expect(picked.unset).toEqual(['sendMessage']);
    expect(picked.edits).toEqual({});
    // A key of another category keeps its choice; one of this category left out is dropped.
    const again = mergeEdits(
      { ...picked, unset: ['sendMessage', 'listUsers.mode'] },
      defaults,
      { editMessage: 'deny' },
      false,
      { offered: messageKeys, chosen: [] },
    );
    expect(again.unset).toEqual(['listUsers.mode']);
    expect(again.edits).toEqual({ editMessage: 'deny' });
    // An edit made before the key was chosen, on another screen, gives way too.
    const later = mergeEdits(chosen([], { edits: { sendMessage: 'deny' } }), defaults, {}, false, {
      offered: messageKeys,
      chosen: ['sendMessage'],
    });
    expect(later.edits).toEqual({});
    // Without the menu in the form, what was chosen stands.
    expect(mergeEdits(chosen(['sendMessage']), defaults, {}, false).unset).toEqual(['sendMessage']);
  });

  it('are kept when the editor is redrawn on newer values', () => {
    const known = { app: 'default', role: 'default', permissions: {}, seenAt: 9_000 };
    expect(rebase(chosen(['sendMessage']), baselineFrom(known)).unset).toEqual(['sendMessage']);
  });

  it('make a confirmation of their own, read back as unsets', () => {
    const unset = computeChanges(chosen(['sendMessage']), defaults);
    const set: Change[] = [{ key: 'sendMessage', before: 'deny', after: 'allow', explicit: false }];
    const id = (changes: Change[]) => changeId('V1', 'default', 'default', idPayload(changes));
    expect(id(unset)).not.toBe(id(set));
    const meta = { role: 'default', id: id(unset), changes: unset };
    expect(decodeConfirm(encodeConfirm(meta))).toEqual({ ...meta, seenAt: undefined });
  });
});

describe('sendChange, for keys going back to the default', () => {
  const request = { ref: 'ref0000002', logger: pino({ level: 'silent' }) };
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
    const sent = await sendChange(client as never, { role: 'banned', changes }, request);
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
    const change = { role: 'default', changes: [unset('sendMessage')] };
    const sent = await sendChange(client as never, change, request);
    expect(sent.permissions).toBeUndefined();
    expect(sent.results.sendMessage?.message).toBe('was not set: at its default already');
    expect(subjectChangeDone(change)).toBe(
      '*Message Sending* (`sendMessage`) was not set in CometChat: it was at its default already',
    );
  });
});
