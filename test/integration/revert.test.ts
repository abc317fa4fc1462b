import { describe, expect, it } from 'vitest';
import { dmChannelIdFor } from '../../offline/slack-standin/ids.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { modalShown } from '../../offline/stack/editor-steps.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  type Button,
  commandReply,
  type Harness,
  tableRecords,
  textOf,
} from './harness.ts';
import {
  applied,
  apply,
  auditList,
  clickRevert,
  EDITORS,
  homeOf,
  LEAD,
  newest,
  OPERATOR,
  revertIn,
  revertReview,
  reviewOf,
  writes,
} from './revert-steps.ts';
import { applyChange, driverAs, reviewChange, useHarnessStarter } from './support.ts';

// Revert through the real app, against the stand-ins: for each kind of change, _Revert_ on its
// audit record opens the review of the change that puts it back; "Apply" sends it once, as any
// change; its record names the one it reverts. What cannot be put back is said in the review.

const UID = 'cometchat-uid-4';

describe('Revert, for each kind of change', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...EDITORS, ...env } });
  };
  const roleOf = (h: Harness, uid: string) => h.sandbox.state.users.get(uid)?.role;

  it("puts a user's role back, and a revert of that revert puts it forward again", async () => {
    const h = await withEditors();
    const was = roleOf(h, UID);
    const moved = await applied(h, store, `user ${UID} role vip`);
    expect(roleOf(h, UID)).toBe('vip');

    const review = await revertReview(h, moved.ref);
    expect(textOf(review)).toContain(`Revert the change \`${moved.ref}\``);
    expect(textOf(review)).toContain(`give \`${UID}\` the role \`${was}\` again`);
    expect(textOf(review)).toContain(`\`role\`: \`vip\` → *\`${was}\`*`);
    const outcome = await apply(h, review);
    expect(outcome).toContain(`Applied to user \`${UID}\`: role is now \`${was}\``);
    expect(roleOf(h, UID)).toBe(was);
    const revert = await newest(store);
    expect(revert).toMatchObject({ outcome: 'applied', reverts: moved.ref, userId: OPERATOR });
    expect(revert.changes).toEqual([{ key: 'role', before: 'vip', after: was, explicit: false }]);

    // The revert is an applied record too: reverting it moves the user forward again.
    const again = await revertReview(h, revert.ref);
    expect(textOf(again)).toContain(`give \`${UID}\` the role \`vip\` again`);
    expect(await apply(h, again)).toContain('role is now `vip`');
    expect(roleOf(h, UID)).toBe('vip');
    expect(await newest(store)).toMatchObject({ outcome: 'applied', reverts: revert.ref });
    expect(writes(h)).toEqual(Array(3).fill(`PUT /v3/users/${UID}`));
  });

  it("reactivates a deactivated user's account", async () => {
    const h = await withEditors();
    const card = await commandReply(h, `user ${UID}`);
    const button = actionButtons(card).find((b) => b.action_id === ACTIONS.userAccount);
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({ actionId: ACTIONS.userAccount, value: button?.value ?? '' }),
    );
    expect(await apply(h, await modalShown(h, mark))).toContain('the account is now deactivated');
    const deactivated = await newest(store);
    expect(h.sandbox.state.users.get(UID)?.deactivatedAt).toBeDefined();

    const review = await revertReview(h, deactivated.ref);
    expect(textOf(review)).toContain(`reactivate \`${UID}\` again`);
    expect(await apply(h, review)).toContain('the account is now active');
    expect(h.sandbox.state.users.get(UID)?.deactivatedAt).toBeUndefined();
    expect(await newest(store)).toMatchObject({ reverts: deactivated.ref, outcome: 'applied' });
  });

  it("sets a role's permission back to the value it had before", async () => {
    const h = await withEditors();
    await applyChange(h, { role: 'vip', key: 'sendMessage', value: 'deny' });
    await applyChange(h, { role: 'vip', key: 'sendMessage', value: 'allow' });
    const allowed = await newest(store);
    expect(allowed.beforeSource).toBe('last-update');
    const puts = h.sandbox.requests.length;

    const review = await revertReview(h, allowed.ref);
    expect(textOf(review)).toContain('set 1 key of `vip` back');
    expect(textOf(review)).toContain('(`sendMessage`): allow → *deny*');
    expect(textOf(review)).not.toContain('What cannot be put back');
    expect(await apply(h, review)).toContain('Applied 1 change to `vip`');
    const sent = h.sandbox.requests.slice(puts).filter((r) => r.method !== 'GET');
    expect(sent.map((r) => [r.method, r.path, r.body])).toEqual([
      ['PUT', '/v3/roles/vip/permissions', { permissions: { sendMessage: 'deny' } }],
    ]);
    expect(await newest(store)).toMatchObject({ reverts: allowed.ref, outcome: 'applied' });
  });

  it('says what cannot be put back of a "before" that was only the documented default', async () => {
    const h = await withEditors();
    // The first change of a role: the app has not seen its map, so "before" is the default.
    await applyChange(h, { role: 'vip', key: 'sendMessage', value: 'deny' });
    const first = await newest(store);
    expect(first.beforeSource).toBe('defaults');

    const review = await revertReview(h, first.ref);
    const text = textOf(review);
    expect(text).toContain('What cannot be put back');
    expect(text).toContain('its value before this change was never read from CometChat');
    expect(text).toContain('any other value it had cannot be put back');
    expect(text).toContain('(`sendMessage`): deny → *the default* (allow) _(unset)_');
    expect(await apply(h, review)).toContain('Applied 1 change to `vip`');
    expect(writes(h).at(-1)).toBe('DELETE /v3/roles/vip/permissions/sendMessage');
    expect(await newest(store)).toMatchObject({ reverts: first.ref, outcome: 'applied' });
  });

  it('deletes a role it created, then creates it again from that deletion', async () => {
    const h = await withEditors();
    const created = await applied(h, store, 'role create night preset no-calls Night');
    const review = await revertReview(h, created.ref);
    expect(textOf(review)).toContain('delete role `night`, which it created');
    expect(textOf(review)).toContain('No user holds it');
    expect(await apply(h, review)).toContain('Applied to role `night`: deleted');
    expect(h.sandbox.state.roles.some((r) => r.role === 'night')).toBe(false);
    const deletion = await newest(store);
    expect(deletion).toMatchObject({ reverts: created.ref, subject: { action: 'delete' } });
    // The app had seen the map it set when it created the role: the deletion keeps it.
    expect(deletion.deletedRole).toMatchObject({ name: 'Night' });
    expect(deletion.deletedRole?.permissions).toMatchObject({ initiateCall: 'deny' });

    const back = await revertReview(h, deletion.ref);
    const text = textOf(back);
    expect(text).toContain('create role `night` again');
    expect(text).toContain('name: _none_ → *Night*');
    expect(text).toContain('(`initiateCall`): deny');
    expect(text).toContain('put back as this app last saw them');
    expect(text).toContain('No user held the role when it was deleted');
    expect(await apply(h, back)).toContain('Applied to role `night` (new)');
    expect(h.sandbox.state.roles.find((r) => r.role === 'night')?.name).toBe('Night');
    expect(writes(h).slice(-2)).toEqual(['POST /v3/roles', 'PUT /v3/roles/night/permissions']);
    expect(await newest(store)).toMatchObject({ reverts: deletion.ref, outcome: 'applied' });
  });

  it('renames and describes a role back', async () => {
    const h = await withEditors();
    const vip = () => h.sandbox.state.roles.find((r) => r.role === 'vip');
    const name = vip()?.name;
    const description = vip()?.description;
    const renamed = await applied(h, store, 'role rename vip Gold');
    const described = await applied(h, store, 'role describe vip For paying customers');
    expect(vip()).toMatchObject({ name: 'Gold', description: 'For paying customers' });

    expect(await apply(h, await revertReview(h, described.ref))).toContain('Applied to role');
    expect(vip()).toMatchObject({ name: 'Gold', description });
    const review = await revertReview(h, renamed.ref);
    expect(textOf(review)).toContain('put back the name or description of `vip`');
    expect(await apply(h, review)).toContain('Applied to role');
    expect(vip()).toMatchObject({ name, description });
    expect(await newest(store)).toMatchObject({ reverts: renamed.ref, outcome: 'applied' });
  });

  it('creates a deleted role again, and names the users to move back', async () => {
    const h = await withEditors();
    const vip = h.sandbox.state.roles.find((r) => r.role === 'vip');
    const holders = [...h.sandbox.state.users.values()].filter((u) => u.role === 'vip');
    expect(holders.length).toBeGreaterThan(0);
    const deletion = await applied(h, store, 'role delete vip');
    expect(deletion.movedToDefault?.total).toBe(holders.length);

    const review = await revertReview(h, deletion.ref);
    const text = textOf(review);
    expect(text).toContain('create role `vip` again');
    // This app never saw vip's permissions: said, not guessed.
    expect(text).toContain('This app never saw the permissions of `vip`');
    expect(text).toContain(`The deletion left ${holders.length} user`);
    for (const user of holders.slice(0, 5)) expect(text).toContain(`\`${user.uid}\``);
    expect(await apply(h, review)).toContain('Applied to role `vip` (new)');
    expect(h.sandbox.state.roles.find((r) => r.role === 'vip')).toMatchObject({
      name: vip?.name,
      description: vip?.description,
    });
    expect(await newest(store)).toMatchObject({ reverts: deletion.ref, outcome: 'applied' });
  });

  it('shows what a user has now when their role changed again since the record', async () => {
    const h = await withEditors();
    const was = roleOf(h, UID);
    const first = await applied(h, store, `user ${UID} role vip`);
    await applied(h, store, `user ${UID} role moderator`);

    const review = await revertReview(h, first.ref);
    expect(textOf(review)).toContain('Changed since this record');
    expect(textOf(review)).toContain(
      `\`role\`: this change set \`vip\`; it is \`moderator\` now. The revert sets \`${was}\`.`,
    );
    expect(await apply(h, review)).toContain(`role is now \`${was}\``);
    expect(roleOf(h, UID)).toBe(was);
  });

  it('refuses anyone but an editor with the one sentence, and opens nothing', async () => {
    const h = await withEditors();
    const moved = await applied(h, store, `user ${UID} role vip`);
    const list = await auditList(h, 'U0VIEWER');
    const responses = h.slack.responses.length;
    const calls = h.slack.calls.length;
    await clickRevert(h, list, moved.ref, 'U0VIEWER');
    const reply = await h.slack.nextResponse(responses);
    expect(textOf(reply.body)).toContain('Only the people listed in');
    expect(h.slack.calls.slice(calls).some((c) => c.method === 'views.open')).toBe(false);
    expect(roleOf(h, UID)).toBe('vip');
  });

  it('offers no Revert on a change that failed, and none to a forged value', async () => {
    const h = await withEditors();
    h.sandbox.inject({ kind: 'status', status: 400, method: 'PUT', pathIncludes: '/users' });
    await apply(h, await reviewOf(h, `user ${UID} role vip`));
    const failed = await newest(store);
    expect(failed.outcome).toBe('failed');
    const list = await auditList(h);
    expect(tableRecords(list).map((r) => r.Reference)).toContain(failed.ref);
    expect(revertIn(list, failed.ref)).toBeUndefined();

    // A value made by hand (an applied change's ref, unsigned) is refused before anything.
    const mark = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: `${ACTIONS.revertChange}:${failed.ref}`,
        value: JSON.stringify({ revert: failed.ref, app: 'default' }),
        responseUrl: h.slack.responseUrl(),
      }),
    );
    expect(textOf((await h.slack.nextResponse(mark)).body)).toContain('was not made by this app');
  });

  it('carries Revert in the audit channel post and on the Home tab, for editors', async () => {
    const h = await withEditors({ AUDIT_CHANNEL: 'C0AUDIT' });
    const moved = await applied(h, store, `user ${UID} role vip`);
    const post = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0AUDIT'),
    );
    const button = revertIn(post.args, moved.ref);
    expect(button?.text.text).toBe('Revert');

    // Clicked in the channel: the review opens, as from the list.
    const mark = h.slack.calls.length;
    await clickRevert(h, post.args, moved.ref);
    const review = await modalShown(h, mark);
    expect(textOf(review)).toContain(`Revert the change \`${moved.ref}\``);

    // On the Home tab: the change with its Revert for an editor, which opens the same review.
    const home = await homeOf(h, OPERATOR, 'Recent permission changes');
    const onHome = revertIn(home, moved.ref) ?? accessoryOf(home, moved.ref);
    expect(onHome?.text.text).toBe('Revert');
    const opened = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: onHome?.action_id ?? '',
        value: onHome?.value ?? '',
        view: home,
      }),
    );
    expect(textOf(await modalShown(h, opened))).toContain(`Revert the change \`${moved.ref}\``);
    // Someone who may not change the app sees the change, without the button.
    const theirs = await homeOf(h, 'U0VIEWER', 'Recent permission changes');
    expect(textOf(theirs)).toContain(`user \`${UID}\``);
    expect(JSON.stringify(theirs)).not.toContain(ACTIONS.revertChange);
  });
});

/** A section's button (the Home tab's recent changes) whose id names `ref`. */
function accessoryOf(view: StoredView, ref: string): Button | undefined {
  const blocks = (view.blocks ?? []) as { accessory?: Button }[];
  return blocks
    .map((b) => b.accessory)
    .find((a) => a?.action_id === `${ACTIONS.revertChange}:${ref}`);
}

describe('Revert with approvals on', () => {
  const start = useHarnessStarter();
  const CHANNEL = 'C0APPROVE';

  /** "Request approval" on `review` as the operator, then "Approve" as the lead: the request. */
  async function approved(h: Harness, store: Store, review: StoredView, reason: string) {
    expect(textOf(review)).toContain(`<#${CHANNEL}>`);
    expect(textOf(review)).toContain('Nothing is sent until another person approves');
    const mark = h.slack.calls.length;
    const driver = driverAs(h, OPERATOR);
    await driver.interaction(
      driver.viewSubmission({
        view: review,
        values: { approval_reason: { reason: { type: 'plain_text_input', value: reason } } },
      }),
    );
    const post = await h.slack.nextCall('chat.postMessage', mark);
    expect(post.args.channel).toBe(CHANNEL);
    // The request is stored once posted: the review says so then.
    await h.slack.nextCall('views.update', mark);
    const [request] = await store.listOpenApprovals();
    const approve = actionButtons(post.args).find((b) => b.action_id === ACTIONS.approveChange);
    const lead = driverAs(h, LEAD);
    const clicked = h.slack.calls.length;
    await lead.interaction(
      lead.blockAction({
        actionId: ACTIONS.approveChange,
        value: approve?.value ?? '',
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000300', blocks: post.args.blocks as unknown[] },
      }),
    );
    await h.slack.nextCall('chat.update', clicked, 15_000);
    await h.slack.waitFor(() =>
      h.slack.calls
        .slice(clicked)
        .find(
          (c) => c.method === 'chat.postMessage' && c.args.channel === dmChannelIdFor(OPERATOR),
        ),
    );
    return request;
  }

  /** A kind of change: how its review is opened, and what it changes, as a snapshot. */
  interface Kind {
    name: string;
    review(h: Harness): Promise<StoredView>;
    state(h: Harness): unknown;
  }
  const user = (h: Harness) => h.sandbox.state.users.get(UID);
  const role = (h: Harness, id: string) => {
    const found = h.sandbox.state.roles.find((r) => r.role === id);
    return found && { name: found.name, description: found.description ?? '' };
  };
  const KINDS: Kind[] = [
    {
      name: "a user's role",
      review: (h) => reviewOf(h, `user ${UID} role vip`),
      state: (h) => user(h)?.role,
    },
    {
      name: "a user's account",
      async review(h) {
        const card = await commandReply(h, `user ${UID}`);
        const button = actionButtons(card).find((b) => b.action_id === ACTIONS.userAccount);
        const mark = h.slack.calls.length;
        const value = button?.value ?? '';
        await h.driver.interaction(h.driver.blockAction({ actionId: ACTIONS.userAccount, value }));
        return modalShown(h, mark);
      },
      state: (h) => user(h)?.deactivatedAt === undefined,
    },
    {
      name: "a role's permissions",
      review: async (h) =>
        (await reviewChange(h, { role: 'vip', key: 'sendMessage', value: 'deny' })).confirmation,
      state: (h) => h.sandbox.state.permissions.get('vip')?.sendMessage ?? 'allow',
    },
    {
      name: 'a role created',
      review: (h) => reviewOf(h, 'role create night Night'),
      state: (h) => role(h, 'night'),
    },
    {
      name: 'a role renamed',
      review: (h) => reviewOf(h, 'role rename vip Gold'),
      state: (h) => role(h, 'vip'),
    },
    {
      name: 'a role described',
      review: (h) => reviewOf(h, 'role describe vip For paying customers'),
      state: (h) => role(h, 'vip'),
    },
    {
      name: 'a role deleted',
      review: (h) => reviewOf(h, 'role delete premium'),
      state: (h) => role(h, 'premium'),
    },
  ];

  it.each(KINDS)('reverts $name: requested, approved, then applied once', async (kind) => {
    const store = createMemoryStore();
    const h = await start({ store, env: { ...EDITORS, APPROVAL_CHANNEL: CHANNEL } });
    const before = kind.state(h);
    await approved(h, store, await kind.review(h), 'change');
    const change = await newest(store);
    expect(change).toMatchObject({ outcome: 'applied', approval: { approvedBy: LEAD } });
    expect(kind.state(h)).not.toEqual(before);
    const sent = writes(h).length;

    const review = await revertReview(h, change.ref);
    expect(textOf(review)).toContain(`Revert the change \`${change.ref}\``);
    const request = await approved(h, store, review, 'undo');
    // Nothing was sent before the approval; the request names the record it reverts.
    expect(request?.reverts).toBe(change.ref);
    expect(kind.state(h)).toEqual(before);
    expect(writes(h).length).toBeGreaterThan(sent);
    expect(await newest(store)).toMatchObject({
      outcome: 'applied',
      reverts: change.ref,
      userId: OPERATOR,
      approval: { approvedBy: LEAD, reason: 'undo' },
    });
  });
});
