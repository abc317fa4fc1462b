import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../offline/cometchat-standin/server.ts';
import {
  confirm,
  confirmationOf,
  editorShown,
  openEditor,
  promote,
  promotionsOf,
  submitView,
  withFieldSet,
  withUnsetChosen,
} from '../../offline/stack/editor-steps.ts';
import { NOT_A_SCOPE } from '../../src/features/permissions/scope-editor.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { createMemoryStore, knownScopeKey, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  commandReply,
  commandText,
  type Harness,
  sandboxOf,
  textOf,
} from './harness.ts';
import { newest, revertReview } from './revert-steps.ts';
import { driverAs, useHarness, useHarnessStarter } from './support.ts';

// The permission editor on a group's scope (issue 48, Deliver 2), through the real app against
// the stand-in: only the changed keys reach `/v3/groups/{guid}/scopes/{scope}/permissions`, an
// unset is its DELETE, each audited; compare and promotion across two apps; bad input.

const SCOPE_PATH = '/v3/groups/hiking/scopes/moderator/permissions';

/** What reached a sandbox's scope permissions (a method other than GET: a write). */
function scopeWrites(sandbox: Sandbox) {
  return sandbox.requests.filter(
    (r) => r.method !== 'GET' && r.path.startsWith('/v3/groups/') && r.path.includes('/scopes/'),
  );
}

/** Opens the scope's editor, sets `key` to `value`, reviews and applies it. */
async function applyToScope(h: Harness, key: string, value: string, app?: string) {
  const editor = await openEditor(h, 'hiking moderator', app);
  const review = await submitView(h, editor, withFieldSet(editor, key, value));
  expect(review.response_action).toBe('push');
  const confirmation = confirmationOf(h, editor);
  if (!confirmation) throw new Error('no confirmation view');
  return { editor, review, ...(await confirm(h, confirmation)) };
}

describe('the scope editor through the real app', () => {
  const store = createMemoryStore();
  const h = useHarness({ store });

  it('sends only the changed key to the scope, audits it, then unsets it by its DELETE', async () => {
    const editor = await openEditor(h, 'hiking moderator');
    const text = textOf(editor);
    expect(text).toContain('*Group:* Hiking');
    expect(text).toContain('*Scope:* `moderator`');
    expect(text).toContain("CometChat cannot be asked for a scope's current permissions");
    expect(text).not.toContain("CometChat's permission definitions could not be read");

    const review = await submitView(h, editor, withFieldSet(editor, 'sendMessage', 'deny'));
    expect(review.response_action).toBe('push');
    expect(textOf(review.view)).toContain('the scope `moderator` of group `hiking`');
    expect(textOf(review.view)).toMatch(/sendMessage.*allow → \*deny\*/);
    expect(scopeWrites(h.sandbox)).toEqual([]);

    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(
      scopeWrites(h.sandbox).map(({ method, path, body }) => ({ method, path, body })),
    ).toEqual([
      { method: 'PUT', path: SCOPE_PATH, body: { permissions: { sendMessage: 'deny' } } },
    ]);
    // The stand-in keeps it on the scope, and the app knows the answer under the scope's key.
    expect(h.sandbox.state.accounts.scopePermissions.get('hiking')?.get('moderator')).toEqual({
      sendMessage: 'deny',
    });
    const known = await store.getKnownPermissions('default', knownScopeKey('hiking', 'moderator'));
    expect(known?.permissions.sendMessage).toBe('deny');

    // Audited, and listed by `/cometchat audit`.
    const [record] = (await store.listAudit({ app: 'default', offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      role: 'group:hiking:moderator',
      subject: { kind: 'scope', guid: 'hiking', scope: 'moderator' },
      changes: [{ key: 'sendMessage', before: 'allow', after: 'deny' }],
    });
    const listed = await commandText(h, 'audit');
    expect(listed).toContain('group:hiking:moderator');
    expect(listed).toContain(record?.ref ?? 'no record');

    // Opened again on what the app last saw; the key chosen to go back to its default.
    const again = await openEditor(h, 'hiking moderator');
    expect(textOf(again)).toContain('after the last update this app made');
    const unset = await submitView(h, again, withUnsetChosen(again, ['sendMessage']));
    expect(unset.response_action).toBe('push');
    const unsetConfirmation = confirmationOf(h, again);
    if (!unsetConfirmation) throw new Error('no confirmation view');
    await confirm(h, unsetConfirmation);
    expect(scopeWrites(h.sandbox).map(({ method, path }) => `${method} ${path}`)).toEqual([
      `PUT ${SCOPE_PATH}`,
      `DELETE ${SCOPE_PATH}/sendMessage`,
    ]);
    expect(h.sandbox.state.accounts.scopePermissions.get('hiking')?.get('moderator') ?? {}).toEqual(
      {},
    );
    const [newest] = (await store.listAudit({ app: 'default', offset: 0, limit: 1 })).records;
    expect(newest).toMatchObject({
      outcome: 'applied',
      changes: [{ key: 'sendMessage', before: 'deny', after: 'allow', unset: true }],
    });
  });

  it('opens from the group card’s button, its value signed for the app', async () => {
    const card = await commandReply(h, 'group hiking');
    const id = `${ACTIONS.editScopePermissions}:participant`;
    const button = actionButtons(card).find((b) => b.action_id === id);
    if (!button?.value) throw new Error('no Participant permissions on the card');
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: id,
        value: button.value,
        message: { ts: '1.1', blocks: card.blocks as unknown[] },
      }),
    );
    const editor = await editorShown(h, mark);
    expect(textOf(editor)).toContain('*Scope:* `participant`');
  });

  it.each([
    [
      'perms hik!ng admin',
      'A guid is lower-case letters, digits, `-` and `_` only, as CometChat stores it.',
    ],
    ['perms hiking owner', NOT_A_SCOPE],
  ])('refuses `%s` in one sentence, asking CometChat nothing', async (command, sentence) => {
    const asked = h.sandbox.requests.length;
    const reply = await commandReply(h, command);
    expect(textOf(reply)).toContain(sentence);
    expect(h.sandbox.requests).toHaveLength(asked);
  });

  it('says so when the group does not exist, sending nothing', async () => {
    const mark = h.slack.calls.length;
    await h.driver.command('perms no-such-group admin');
    const shown = await editorShown(h, mark);
    expect(textOf(shown)).toContain('CometChat has no group `no-such-group`.');
    expect(scopeWrites(h.sandbox)).toEqual([]);
  });
});

describe('reverting a change of a scope', () => {
  const start = useHarnessStarter();

  it('puts the record’s "before" back on the same scope, through its own review', async () => {
    const store = createMemoryStore();
    const h = await start({ store });
    await applyToScope(h, 'sendMessage', 'deny');
    const record = await newest(store);
    const review = await revertReview(h, record.ref);
    const text = textOf(review);
    expect(text).toContain(`Revert the change \`${record.ref}\``);
    expect(text).toContain('the scope `moderator` of group `hiking` back');
    await confirm(h, review);
    // "Before" was the documented default (the app had not seen the scope): unset, back to it.
    expect(scopeWrites(h.sandbox).map(({ method, path }) => `${method} ${path}`)).toEqual([
      `PUT ${SCOPE_PATH}`,
      `DELETE ${SCOPE_PATH}/sendMessage`,
    ]);
    expect(await newest(store)).toMatchObject({
      outcome: 'applied',
      reverts: record.ref,
      subject: { kind: 'scope', guid: 'hiking', scope: 'moderator' },
    });
  });
});

describe('a change of a scope where the app asks for approvals', () => {
  const start = useHarnessStarter();

  it('is posted for approval, and sent once when another editor approves it', async () => {
    const store = createMemoryStore();
    const h = await start({
      store,
      env: { APPROVAL_CHANNEL: 'C0APPROVE', EDITORS: 'U0OPERATOR,U0LEAD' },
    });
    const editor = await openEditor(h, 'hiking moderator');
    await submitView(h, editor, withFieldSet(editor, 'sendMessage', 'deny'));
    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation view');
    expect(textOf(confirmation)).toContain('Request approval');
    const mark = h.slack.calls.length;
    await submitView(h, confirmation, {
      approval_reason: { reason: { type: 'plain_text_input', value: 'ticket 48' } },
    });
    const post = await h.slack.nextCall('chat.postMessage', mark);
    expect(post.args.channel).toBe('C0APPROVE');
    expect(textOf(post.args)).toContain('scope `moderator` of group `hiking`');
    await h.slack.nextCall('views.update', mark);
    expect(scopeWrites(h.sandbox)).toEqual([]);

    const blocks = post.args.blocks as unknown[];
    const approve = actionButtons({ blocks }).find((b) => b.action_id === ACTIONS.approveChange);
    if (!approve?.value) throw new Error('no Approve button');
    const lead = driverAs(h, 'U0LEAD');
    const decided = h.slack.calls.length;
    await lead.interaction(
      lead.blockAction({
        actionId: ACTIONS.approveChange,
        value: approve.value,
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000300', blocks },
      }),
    );
    const update = await h.slack.nextCall('chat.update', decided);
    expect(textOf(update.args)).toContain('Approved by <@U0LEAD> and applied');
    expect(
      scopeWrites(h.sandbox).map(({ method, path, body }) => ({ method, path, body })),
    ).toEqual([
      { method: 'PUT', path: SCOPE_PATH, body: { permissions: { sendMessage: 'deny' } } },
    ]);
    expect(await newest(store)).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      approval: { approvedBy: 'U0LEAD', reason: 'ticket 48' },
      subject: { kind: 'scope', guid: 'hiking', scope: 'moderator' },
    });
  });
});

describe('a scope in two apps', () => {
  const start = useHarnessStarter();
  const twoApps = (store: Store) => start({ apps: ['staging', 'prod'], store }) as Promise<Harness>;

  /** Gives prod a group `hiking` too (its seed has no groups). */
  function hikingInProd(h: Harness): void {
    const { accounts } = sandboxOf(h, 'prod').state;
    accounts.groups.set('hiking', {
      guid: 'hiking',
      name: 'Hiking (prod)',
      type: 'public',
      owner: 'prod-owner',
      createdAt: 1_700_000_000,
    });
    accounts.members.set('hiking', new Map());
  }

  it('compares the scope between the apps, from what each app was sent', async () => {
    const h = await twoApps(createMemoryStore());
    hikingInProd(h);
    await applyToScope(h, 'sendMessage', 'deny', 'staging');
    const text = await commandText(h, 'compare hiking moderator staging prod');
    expect(text).toContain(
      'Compare the scope `moderator` of group `hiking` in *staging* and *prod*',
    );
    expect(text).toContain('1 key differs');
    expect(text).toContain('sendMessage');
    // Read from the app's own record: CometChat was not asked.
    expect(scopeWrites(sandboxOf(h, 'prod'))).toEqual([]);
  });

  it('offers an applied change to the same group in the other app, through its own review', async () => {
    const store = createMemoryStore();
    const h = await twoApps(store);
    hikingInProd(h);
    const staging = sandboxOf(h, 'staging');
    const prod = sandboxOf(h, 'prod');
    const { outcome } = await applyToScope(h, 'sendMessage', 'deny', 'staging');
    expect([...promotionsOf(outcome).keys()]).toEqual(['prod']);

    const review = await promote(h, outcome, 'prod');
    expect(textOf(review)).toContain('Promoted from *staging*');
    expect(textOf(review)).toContain('the scope `moderator` of group `hiking` in *prod*');
    expect(scopeWrites(prod)).toEqual([]);

    await confirm(h, review);
    expect(scopeWrites(prod).map(({ method, path, body }) => ({ method, path, body }))).toEqual(
      scopeWrites(staging).map(({ method, path, body }) => ({ method, path, body })),
    );
    const stagingRef = (await store.listAudit({ app: 'staging', offset: 0, limit: 1 })).records[0]
      ?.ref;
    const [prodRecord] = (await store.listAudit({ app: 'prod', offset: 0, limit: 1 })).records;
    expect(prodRecord?.promotedFrom).toBe(stagingRef);
    expect(prodRecord?.subject).toEqual({ kind: 'scope', guid: 'hiking', scope: 'moderator' });
  });

  it('offers no promotion to an app without the group', async () => {
    const h = await twoApps(createMemoryStore());
    const { outcome } = await applyToScope(h, 'sendMessage', 'deny', 'staging');
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(promotionsOf(outcome).size).toBe(0);
  });
});
