import { describe, expect, it } from 'vitest';
import {
  changeId,
  decodeChange,
  encodeChange,
  idPayload,
  type KeyChange,
} from '../../../src/changes/change.ts';
import { baselineFrom } from '../../../src/changes/kinds/permissions.ts';
import { SHIPPED_CATALOGUE } from '../../../src/cometchat/catalogue.ts';
import {
  computeChanges,
  decodeState,
  type EditorState,
  encodeState,
  mergeEdits,
  newEditorState,
  rebase,
  stateRecord,
  unsetProblem,
} from '../../../src/features/permissions/editor-state.ts';

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
    const set: KeyChange[] = [
      { key: 'sendMessage', before: 'deny', after: 'allow', explicit: false },
    ];
    const id = (changes: KeyChange[]) => changeId('V1', 'default', 'default', idPayload(changes));
    expect(id(unset)).not.toBe(id(set));
    const meta = { kind: 'permissions' as const, role: 'default', id: id(unset), changes: unset };
    expect(decodeChange(encodeChange(meta))).toEqual({ ...meta, seenAt: undefined });
  });
});
