import { describe, expect, it } from 'vitest';
import { initialStateValues } from '../../offline/slack-standin/view-state.ts';
import {
  confirm,
  confirmationOf,
  editorShown,
  openEditor,
  submitView,
  switchCategory,
  withFieldSet,
  withUnsetChosen,
} from '../../offline/stack/editor-steps.ts';
import {
  OTHER_CATEGORY,
  permissionSpec,
  permissionsInCategory,
} from '../../src/cometchat/catalogue.ts';
import { SHIPPED_CATALOGUE_NOTE } from '../../src/features/permissions/editor-view.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { type Harness, signedJson, signedTestValue, textOf } from './harness.ts';
import {
  allowedActions,
  applyChange,
  confirmationsAnswered,
  newestAudit,
  puts,
  reviewChange,
  useHarness,
  useHarnessStarter,
} from './support.ts';

describe('permission editor through the real app', () => {
  const h = useHarness();

  it('opens, switches category, sends exactly the one changed key, and shows the result', async () => {
    const editor = await openEditor(h, 'default');
    expect(textOf(editor)).toContain('documented defaults');
    const messages = await switchCategory(h, editor, 'Messages');
    expect(messages.hash).not.toBe(editor.hash);

    const review = await submitView(h, messages, withFieldSet(messages, 'sendMessage', 'deny'));
    expect(review.response_action).toBe('push');
    expect(textOf(review.view)).toMatch(/sendMessage.*allow → \*deny\*/);
    expect(puts(h)).toHaveLength(0);

    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    const { pending, outcome } = await confirm(h, confirmation);
    expect(pending.response_action).toBe('update');
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(textOf(outcome)).toContain('Permission sendMessage is mapped to the role default.');

    expect(puts(h)).toHaveLength(1);
    expect(puts(h)[0]?.path).toBe('/v3/roles/default/permissions');
    expect(puts(h)[0]?.body).toEqual({ permissions: { sendMessage: 'deny' } });
  });

  it('opens once, filled in, when its data is at hand', async () => {
    const mark = h.slack.calls.length;
    const editor = await openEditor(h, 'default');
    expect(allowedActions(editor)).toContain('listUsers');
    const modalCalls = h.slack.calls.slice(mark).filter((c) => c.method.startsWith('views.'));
    expect(modalCalls.map((c) => c.method)).toEqual(['views.open']);
  });

  it('opens on "Loading…" when its data takes a while, then fills it in', async () => {
    // A first opening asks CometChat for the role list (later ones find it cached).
    h.sandbox.setLatency(700);
    const mark = h.slack.calls.length;
    const sentAt = Date.now();
    await h.driver.command('perms default');
    const opened = await h.slack.nextCall('views.open', mark);
    expect(textOf(opened.args.view)).toContain('Loading the editor for `default`');
    expect(opened.at - sentAt).toBeLessThan(700);
    const editor = await editorShown(h, mark);
    expect(allowedActions(editor)).toContain('listUsers');
    const modalCalls = h.slack.calls.slice(mark).filter((c) => c.method.startsWith('views.'));
    expect(modalCalls.map((c) => c.method)).toEqual(['views.open', 'views.update']);
  });

  it('opens from the role list button', async () => {
    await h.driver.command('roles');
    const list = await h.slack.nextResponse(0);
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'edit_permissions',
        value: signedTestValue(h, { role: 'moderator' }),
        message: { ts: '1.1', blocks: list.body.blocks as unknown[] },
      }),
    );
    const editor = await editorShown(h, mark);
    expect(textOf(editor)).toContain('moderator');
    expect(editor.callback_id).toBe('perms_editor');
  });

  it('sends a list key as the chosen list and shows it as added items', async () => {
    const { review } = await applyChange(h, {
      key: 'sendMessage.allowedMessageTypes',
      value: ['text', 'image'],
    });
    expect(textOf(review.view)).toMatch(/\+text, \+image/);
    expect(puts(h)[0]?.body).toEqual({
      permissions: { 'sendMessage.allowedMessageTypes': ['text', 'image'] },
    });
  });

  it('keeps edits made in one category while the user visits another', async () => {
    const editor = await openEditor(h, 'default');
    const messages = await switchCategory(h, editor, 'Messages');
    const users = await switchCategory(
      h,
      messages,
      'Users',
      withFieldSet(messages, 'deleteMessage', 'deny'),
    );
    expect(textOf(users)).toContain('1 changed field');
    const back = await switchCategory(h, users, 'Messages');
    const review = await submitView(h, back, initialStateValues(back));
    expect(textOf(review.view)).toMatch(/deleteMessage.*allow → \*deny\*/);
    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    await confirm(h, confirmation);
    expect(puts(h).map((r) => r.body)).toEqual([{ permissions: { deleteMessage: 'deny' } }]);
  });

  it('sends nothing when nothing changed', async () => {
    const editor = await openEditor(h, 'default');
    const answer = await submitView(h, editor, initialStateValues(editor));
    expect(answer.response_action).toBe('update');
    expect(textOf(answer.view)).toContain('nothing was sent');
    expect(puts(h)).toHaveLength(0);
  });

  it('answers a bad value with a field error in the modal and sends nothing', async () => {
    const editor = await openEditor(h, 'default');
    const messages = await switchCategory(h, editor, 'Messages');
    const answer = await submitView(
      h,
      messages,
      withFieldSet(messages, 'sendMessage.allowedMimeTypes', 'image/png, not a mime'),
    );
    expect(answer.response_action).toBe('errors');
    const [blockId, message] = Object.entries(answer.errors ?? {})[0] ?? [];
    expect(blockId).toMatch(/sendMessage\.allowedMimeTypes$/);
    expect(message).toMatch(/not a MIME type/);
    expect(puts(h)).toHaveLength(0);
  });

  it('refuses to switch category with an invalid field, keeping the user on it', async () => {
    const editor = await openEditor(h, 'default');
    const messages = await switchCategory(h, editor, 'Messages');
    const still = await switchCategory(
      h,
      messages,
      'Groups',
      withFieldSet(messages, 'sendMessage.allowedMimeTypes', 'nope'),
    );
    expect(textOf(still)).toContain('Fix these before switching');
    expect(signedJson(still.private_metadata).c).toBe('Messages');
  });

  it('states every value of a category on purpose when asked to', async () => {
    const editor = await openEditor(h, 'default');
    const values = initialStateValues(editor);
    const applyBlock = (editor.blocks as { block_id?: string }[]).find((b) =>
      b.block_id?.startsWith('g:'),
    )?.block_id;
    if (!applyBlock) throw new Error('no apply block');
    values[applyBlock] = {
      perms_apply_group: { type: 'checkboxes', selected_options: [{ value: 'apply' }] },
    };
    const review = await submitView(h, editor, values);
    expect(textOf(review.view)).toContain('stated explicitly');
    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    await confirm(h, confirmation);
    const body = puts(h)[0]?.body as { permissions: object } | undefined;
    const sent = Object.keys(body?.permissions ?? {});
    expect(sent.sort()).toEqual(
      permissionsInCategory('Users')
        .map((s) => s.key)
        .sort(),
    );
  });

  it('applies a repeated confirmation once', async () => {
    const { confirmation } = await reviewChange(h, { key: 'editMessage', value: 'deny' });
    await Promise.all([submitView(h, confirmation, {}), submitView(h, confirmation, {})]);
    await confirmationsAnswered(h, 2);
    expect(puts(h)).toHaveLength(1);
  });

  it('shows a failure with a reference when CometChat fails during confirm, and lets a retry through', async () => {
    h.sandbox.inject({
      kind: 'status',
      status: 503,
      method: 'PUT',
      times: Number.POSITIVE_INFINITY,
    });
    const { outcome } = await applyChange(h, { key: 'sendMessage', value: 'deny' });
    const text = textOf(outcome);
    expect(text).toMatch(/not answering the permission update/);
    const ref = /Reference: `([0-9a-f]+)`/.exec(text)?.[1];
    expect(ref).toBeTruthy();
    expect(h.logs.text()).toContain(ref);
    h.sandbox.clearFaults();
    const retry = await applyChange(h, { key: 'sendMessage', value: 'deny' });
    expect(textOf(retry.outcome)).toContain('Resulting permissions');
  });

  it('pre-fills the editor with the map from the last update', async () => {
    await applyChange(h, { key: 'sendMessage', value: 'deny' });
    const again = await openEditor(h, 'default');
    expect(textOf(again)).toContain('after the last update this app made');
    const actions = allowedActions(await switchCategory(h, again, 'Messages'));
    expect(actions).not.toContain('sendMessage');
    expect(actions).toContain('editMessage');
  });

  it('says so when the role does not exist, without sending anything', async () => {
    const mark = h.slack.calls.length;
    await h.driver.command('perms nosuchrole');
    const shown = await editorShown(h, mark);
    expect(textOf(shown)).toContain('no role');
    expect(puts(h)).toHaveLength(0);
  });

  it("never turns someone else's change, applied meanwhile, into this user's edit", async () => {
    // A opens the editor on the defaults; B then denies sendMessage through an editor of their own.
    const editor = await openEditor(h, 'default');
    const mine = await switchCategory(h, editor, 'Messages');
    await applyChange(h, { key: 'sendMessage', value: 'deny' });
    const putsBefore = puts(h).length;

    // A reviews a change to editMessage on a screen that still shows sendMessage allowed.
    const mark = h.slack.calls.length;
    const answer = await submitView(h, mine, withFieldSet(mine, 'editMessage', 'deny'));
    expect(answer.response_action).toBe('update');
    const redrawn = await h.slack.nextCall('views.update', mark);
    expect(textOf(redrawn.args.view)).toContain('Someone applied a change to this role');
    const fresh = h.slack.views.get(mine.id);
    if (!fresh) throw new Error('no redrawn editor');
    expect(allowedActions(fresh)).not.toContain('sendMessage');

    // Reviewing again from the redrawn editor proposes only what A changes there.
    const review = await submitView(h, fresh, withFieldSet(fresh, 'editMessage', 'deny'));
    expect(review.response_action).toBe('push');
    expect(textOf(review.view)).toMatch(/editMessage.*allow → \*deny\*/);
    expect(textOf(review.view)).not.toContain('sendMessage');
    expect(puts(h)).toHaveLength(putsBefore);
  });
});

describe("the editor on the app's own catalogue (its CometChat's definitions)", () => {
  const h = useHarness();

  /** The stand-in defines this key; the shipped catalogue does not. */
  const SERVICE_ONLY = 'removeReaction';

  it('shows a key only the service defines under Other, by its title, and sends it', async () => {
    const editor = await openEditor(h, 'default');
    expect(textOf(editor)).not.toContain(SHIPPED_CATALOGUE_NOTE);
    // Labels, with the key as a hint.
    expect(textOf(editor)).toContain('User Listing Mode');
    expect(textOf(editor)).toContain('listUsers.mode · ');
    const other = await switchCategory(h, editor, OTHER_CATEGORY);
    expect(allowedActions(other)).toEqual([SERVICE_ONLY]);
    expect(textOf(other)).toContain('Allows/Denies removing reactions from messages');
    expect(textOf(other)).toContain(`${SERVICE_ONLY} · default: allow`);
    expect(permissionSpec(SERVICE_ONLY)).toBeUndefined();

    const review = await submitView(h, other, withFieldSet(other, SERVICE_ONLY, 'deny'));
    expect(review.response_action).toBe('push');
    expect(textOf(review.view)).toContain(
      `*Allows/Denies removing reactions from messages* (\`${SERVICE_ONLY}\`): allow → *deny*`,
    );
    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    await confirm(h, confirmation);
    expect(puts(h).map((r) => r.body)).toEqual([{ permissions: { [SERVICE_ONLY]: 'deny' } }]);
  });

  it('opens on the shipped catalogue when the definitions cannot be read, and says so', async () => {
    h.sandbox.inject({
      kind: 'status',
      status: 500,
      method: 'GET',
      pathIncludes: '/permissions',
      times: 10,
    });
    const editor = await openEditor(h, 'default');
    expect(textOf(editor)).toContain(SHIPPED_CATALOGUE_NOTE);
    expect(textOf(editor)).toContain('User Listing');
    expect(allowedActions(editor)).toContain('listUsers');
    expect(JSON.stringify(editor.blocks)).not.toContain(`"value":"${OTHER_CATEGORY}"`);
    // For half a minute after a failed read, an opening does not wait on CometChat again (an
    // outage would cost every opening its whole budget); it says so again. The read after that
    // while is the reader's unit test.
    const asked = () =>
      h.sandbox.requests.filter((r) => r.path === '/v3/roles/default/permissions').length;
    const before = asked();
    h.sandbox.clearFaults();
    const again = await openEditor(h, 'default');
    expect(textOf(again)).toContain(SHIPPED_CATALOGUE_NOTE);
    expect(asked()).toBe(before);
  });
});

describe('"Back to the default" through the real app (issue 32, item 3)', () => {
  const start = useHarnessStarter();
  let store: Store;
  const started = () => {
    store = createMemoryStore();
    return start({ store });
  };

  /** What CometChat was asked to change, in order. */
  const writes = (h: Harness) =>
    h.sandbox.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

  /** Opens `role`'s Messages, chooses `keys` in "Back to the default" (and `values`), reviews. */
  async function reviewUnset(h: Harness, role: string, keys: string[], key?: string) {
    const editor = await openEditor(h, role);
    const messages = await switchCategory(h, editor, 'Messages');
    const values = key ? withFieldSet(messages, key, 'deny') : undefined;
    const review = await submitView(h, messages, withUnsetChosen(messages, keys, values));
    expect(review.response_action).toBe('push');
    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    return { review, confirmation };
  }

  it('unsets a key the role has set: one DELETE, no PUT, the default back, audited', async () => {
    const h = await started();
    // The seed sets sendMessage explicitly for banned (deny).
    expect(h.sandbox.state.permissions.get('banned')?.sendMessage).toBe('deny');
    const { review, confirmation } = await reviewUnset(h, 'banned', ['sendMessage']);
    expect(textOf(review.view)).toContain(
      '*Message Sending* (`sendMessage`): allow → *the default* (allow) _(unset)_',
    );
    expect(writes(h)).toEqual([]);

    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(textOf(outcome)).toContain('(`sendMessage`): back to its default');
    expect(textOf(outcome)).toContain('(`sendMessage`): *allow* ← back to the default');
    expect(writes(h)).toEqual(['DELETE /v3/roles/banned/permissions/sendMessage']);
    expect(h.sandbox.state.permissions.get('banned')?.sendMessage).toBe('allow');
    expect(h.sandbox.state.explicitPermissionKeys.get('banned')?.has('sendMessage')).toBe(false);
    // The map the DELETE answered is the editor's next "before": the rest of the role as it is.
    const known = await store.getKnownPermissions('default', 'banned');
    expect(known?.permissions).toMatchObject({ sendMessage: 'allow', editMessage: 'deny' });

    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      role: 'banned',
      changes: [
        { key: 'sendMessage', before: 'allow', after: 'allow', explicit: false, unset: true },
      ],
    });
    expect((await newestAudit(h, 'banned')).Changes).toContain(
      'Message Sending (sendMessage): allow → allow (back to the default)',
    );
  });

  it('sets and unsets in one change: the PUT, then the DELETE, whose map the result shows', async () => {
    const h = await started();
    const { review, confirmation } = await reviewUnset(h, 'banned', ['sendMessage'], 'editMessage');
    expect(textOf(review.view)).toContain('2 changes');
    const { outcome } = await confirm(h, confirmation);
    expect(writes(h)).toEqual([
      'PUT /v3/roles/banned/permissions',
      'DELETE /v3/roles/banned/permissions/sendMessage',
    ]);
    expect(puts(h)[0]?.body).toEqual({ permissions: { editMessage: 'deny' } });
    expect(textOf(outcome)).toContain('(`sendMessage`): *allow* ← back to the default');
    expect(textOf(outcome)).toContain('(`editMessage`): *deny* ← changed');
  });

  it('takes a key that was not set as at its default already, and says so', async () => {
    const h = await started();
    // The seed sets nothing for default: sendMessage follows the default already.
    const { confirmation } = await reviewUnset(h, 'default', ['sendMessage']);
    const { outcome } = await confirm(h, confirmation);
    expect(writes(h)).toEqual(['DELETE /v3/roles/default/permissions/sendMessage']);
    expect(textOf(outcome)).toContain(
      'Applied to `default`: *Message Sending* (`sendMessage`) was not set in CometChat: it was at its default already.',
    );
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      changes: [{ key: 'sendMessage', unset: true }],
    });
  });
});
