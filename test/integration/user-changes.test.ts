import { describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../offline/slack-standin/driver.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import {
  confirm,
  currentView,
  promotionsOf,
  submitView,
} from '../../offline/stack/editor-steps.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  commandReply,
  type Harness,
  interactionReply,
  tableRecords,
  textOf,
} from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// Changing a user through the real app: the card's buttons, the review, the same rules as a
// permission change (editors only, approval, at most once, audited), against the stand-in.

const EDITORS = { EDITORS: 'U0OPERATOR,U0LEAD,U0LEAD2' };
const CHANNEL = 'C0APPROVE';

/** What CometChat was asked to change about users. */
function userWrites(h: Harness) {
  return h.sandbox.requests.filter(
    (r) => r.path.startsWith('/v3/users') && (r.method === 'PUT' || r.method === 'DELETE'),
  );
}

/** Clicks a card's button as `user`; resolves with the modal it filled (after "Asking…"). */
async function clickIntoModal(
  h: Harness,
  card: Record<string, unknown>,
  actionId: string,
  user = 'U0OPERATOR',
) {
  const button = actionButtons(card).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} on the card`);
  const mark = h.slack.calls.length;
  const driver = driverAs(h, user);
  await driver.interaction(driver.blockAction({ actionId, value: button.value }));
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

/** Picks `role` in the role picker: resolves with the review it is replaced by. */
async function pick(h: Harness, picker: StoredView, role: string): Promise<StoredView> {
  expect(picker.callback_id).toBe(CALLBACKS.userRolePick);
  const answer = await submitView(h, picker, {
    user_role: { role: { type: 'static_select', selected_option: { value: role } } },
  });
  expect(answer.response_action).toBe('update');
  return currentView(h, picker.id);
}

describe('changing a user', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...EDITORS, ...env } });
  };

  it('offers an editor Change role and Deactivate, and nobody else; a forged click changes nothing', async () => {
    const h = await withEditors();
    const editorCard = await commandReply(h, 'user cometchat-uid-4');
    expect(actionButtons(editorCard).map((b) => b.action_id)).toEqual([
      ACTIONS.userChangeRole,
      ACTIONS.userAccount,
      ACTIONS.editPermissions,
      ACTIONS.userCalls,
      ACTIONS.openInCometChat,
    ]);
    const viewer = driverAs(h, 'U0VIEWER');
    const viewerCard = await commandReply(h, 'user cometchat-uid-4', viewer);
    expect(actionButtons(viewerCard).map((b) => b.action_id)).toEqual([
      ACTIONS.editPermissions,
      ACTIONS.userCalls,
      ACTIONS.openInCometChat,
    ]);
    const forged = actionButtons(editorCard).find((b) => b.action_id === ACTIONS.userAccount);
    const refused = await interactionReply(
      h,
      viewer.blockAction({ actionId: ACTIONS.userAccount, value: forged?.value ?? '' }),
    );
    expect(textOf(refused)).toMatch(/may (edit|change)/);
    const forgedRole = actionButtons(editorCard).find(
      (b) => b.action_id === ACTIONS.userChangeRole,
    );
    const refusedRole = await interactionReply(
      h,
      viewer.blockAction({ actionId: ACTIONS.userChangeRole, value: forgedRole?.value ?? '' }),
    );
    expect(textOf(refusedRole)).toMatch(/may (edit|change)/);
    const typed = await commandReply(h, 'user cometchat-uid-4 role vip', viewer);
    expect(textOf(typed)).toMatch(/may (edit|change)/);
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toEqual([]);
    expect(userWrites(h)).toEqual([]);
  });

  it('offers no promotion of a user change to another app: users differ between apps', async () => {
    store = createMemoryStore();
    const h = await start({ apps: ['staging', 'prod'], store, env: EDITORS });
    const card = await commandReply(h, 'staging user cometchat-uid-5');
    const review = await pick(
      h,
      await clickIntoModal(h, card, ACTIONS.userChangeRole),
      'moderator',
    );
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to user `cometchat-uid-5` in *staging*');
    // `moderator` is a role of prod too; a role change there would have been offered.
    expect(promotionsOf(outcome).size).toBe(0);
  });

  it("changes a user's role after the review, once, and audits it with the user", async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user cometchat-uid-4');
    const picker = await clickIntoModal(h, card, ACTIONS.userChangeRole);
    expect(textOf(picker)).toContain('has role `premium`');
    const review = await pick(h, picker, 'vip');
    expect(textOf(review)).toContain('from `premium` to `vip`');
    expect(textOf(review)).toContain('Permissions that differ');
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to user `cometchat-uid-4`: role is now `vip`');
    expect(userWrites(h).map((r) => [r.method, r.path, r.body])).toEqual([
      ['PUT', '/v3/users/cometchat-uid-4', { role: 'vip' }],
    ]);
    expect(h.sandbox.state.users.get('cometchat-uid-4')?.role).toBe('vip');
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      role: 'premium',
      subject: { kind: 'user', uid: 'cometchat-uid-4' },
      beforeSource: 'service',
      changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
    });
    // Submitted again (a double click, a replay): not sent again.
    await submitView(h, review, {});
    expect(userWrites(h)).toHaveLength(1);
  });

  it('lists an applied role change in `/cometchat audit` as a change to the user', async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user cometchat-uid-4');
    const review = await pick(h, await clickIntoModal(h, card, ACTIONS.userChangeRole), 'vip');
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to user `cometchat-uid-4`: role is now `vip`');
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    const trail = await commandReply(h, 'audit');
    // The list's table: the user's uid in its own column, beside the role they had.
    expect(tableRecords(trail)).toEqual([
      expect.objectContaining({
        Who: '@U0OPERATOR',
        Role: 'premium',
        User: 'cometchat-uid-4',
        Changes: expect.stringMatching(/^role: premium → vip$/m),
        Outcome: expect.stringContaining('applied'),
        Reference: record?.ref,
      }),
    ]);
  });

  it("finds a user's move from `premium` to `vip` in `/cometchat audit` of either role", async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user cometchat-uid-4');
    const review = await pick(h, await clickIntoModal(h, card, ACTIONS.userChangeRole), 'vip');
    await confirm(h, review);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    for (const role of ['vip', 'premium']) {
      const trail = await commandReply(h, `audit ${role}`);
      expect(textOf(trail)).toContain(`1 record for \`${role}\``);
      expect(tableRecords(trail)).toEqual([
        expect.objectContaining({ User: 'cometchat-uid-4', Reference: record?.ref }),
      ]);
    }
    expect(textOf(await commandReply(h, 'audit default'))).toContain(
      'No change has been recorded for `default` yet.',
    );
  });

  it('a role change CometChat refuses is audited as failed, and the modal shows what CometChat has now', async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user cometchat-uid-4');
    const review = await pick(h, await clickIntoModal(h, card, ACTIONS.userChangeRole), 'vip');
    h.sandbox.inject({ kind: 'status', status: 400, method: 'PUT', pathIncludes: '/users/' });
    const { outcome } = await confirm(h, review);
    expect(outcome.title).toMatchObject({ text: 'Change a user' });
    expect(textOf(outcome)).toContain("CometChat refused the user's role change");
    expect(textOf(outcome)).toContain('CometChat has now: role `premium`, account active.');
    expect(textOf(outcome)).toMatch(/Reference: `[0-9a-f]+`/);
    expect(h.sandbox.state.users.get('cometchat-uid-4')?.role).toBe('premium');
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'failed',
      errorKind: 'bad_request',
      subject: { kind: 'user', uid: 'cometchat-uid-4' },
      changes: [{ key: 'role', before: 'premium', after: 'vip' }],
    });
  });

  it('sends nothing when the user changed in CometChat between the review and Apply', async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user cometchat-uid-4');
    const review = await pick(h, await clickIntoModal(h, card, ACTIONS.userChangeRole), 'vip');
    // Someone else (another editor, CometChat's dashboard) makes the user an admin meanwhile.
    const user = h.sandbox.state.users.get('cometchat-uid-4');
    if (user) user.role = 'admin';
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('The user changed in CometChat since the review');
    expect(userWrites(h)).toEqual([]);
    expect(h.sandbox.state.users.get('cometchat-uid-4')?.role).toBe('admin');
    expect((await store.listAudit({ offset: 0, limit: 5 })).records).toEqual([]);
    // The claim was let go: a new review of the same change can be applied.
    if (user) user.role = 'premium';
    const again = await confirm(h, review);
    expect(textOf(again.outcome)).toContain('role is now `vip`');
    expect(userWrites(h)).toHaveLength(1);
  });

  it('a role change CometChat answers with another role did not take: failed, never "applied"', async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user cometchat-uid-4');
    const review = await pick(h, await clickIntoModal(h, card, ACTIONS.userChangeRole), 'vip');
    h.sandbox.inject({
      kind: 'schema',
      method: 'PUT',
      pathIncludes: '/users/',
      body: { data: { uid: 'cometchat-uid-4', name: 'Dana', role: 'premium' } },
    });
    const { outcome } = await confirm(h, review);
    expect(outcome.title).toMatchObject({ text: 'Change a user' });
    expect(textOf(outcome)).toContain(
      'CometChat answered with role `premium`, not `vip`, for user `cometchat-uid-4`: the change did not take.',
    );
    expect(textOf(outcome)).not.toContain('Applied');
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'failed',
      errorKind: 'not_taken',
      serviceMessage: 'CometChat answered with role premium, not vip',
    });
  });

  it('opens the same review from `/cometchat user <uid> role <role>`', async () => {
    const h = await withEditors();
    const mark = h.slack.calls.length;
    await h.driver.command('user cometchat-uid-5 role moderator');
    const update = await h.slack.nextCall('views.update', mark);
    const review = currentView(h, String(update.args.view_id));
    expect(textOf(review)).toContain('from `default` to `moderator`');
    const unknown = h.slack.calls.length;
    await h.driver.command('user cometchat-uid-5 role no-such-role');
    const refused = await h.slack.nextCall('views.update', unknown);
    expect(textOf(refused.args.view)).toContain('There is no role `no-such-role`');
  });

  it('deactivates with a confirmation that names the user, and reactivates; never deletes', async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user customer-1001');
    const review = await clickIntoModal(h, card, ACTIONS.userAccount);
    expect(textOf(review)).toContain("Deactivate *Liam O'Brien* `customer-1001`?");
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('account is now deactivated');
    expect(h.sandbox.state.users.get('customer-1001')?.deactivatedAt).toBeDefined();
    const again = await commandReply(h, 'user customer-1001');
    const reactivate = actionButtons(again).find((b) => b.action_id === ACTIONS.userAccount);
    expect(reactivate?.text.text).toBe('Reactivate');
    const back = await clickIntoModal(h, again, ACTIONS.userAccount);
    await confirm(h, back);
    expect(h.sandbox.state.users.get('customer-1001')?.deactivatedAt).toBeUndefined();
    expect(userWrites(h).map((r) => [r.method, r.path, r.body])).toEqual([
      ['DELETE', '/v3/users', { uidsToDeactivate: ['customer-1001'] }],
      ['PUT', '/v3/users', { uidsToActivate: ['customer-1001'] }],
    ]);
    const audit = (await store.listAudit({ offset: 0, limit: 5 })).records;
    expect(audit.map((r) => r.changes[0]?.after)).toEqual(['active', 'deactivated']);
  });

  it('a deactivation CometChat does not list is read back: still active, so it failed', async () => {
    const h = await withEditors();
    const card = await commandReply(h, 'user customer-1001');
    const review = await clickIntoModal(h, card, ACTIONS.userAccount);
    h.sandbox.inject({
      kind: 'schema',
      method: 'DELETE',
      pathIncludes: '/users',
      body: { data: { success: true, deactivatedUids: [] } },
    });
    const mark = h.sandbox.requests.length;
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('did not list the user as deactivated');
    expect(textOf(outcome)).toContain('CometChat has now: role');
    expect(textOf(outcome)).toContain('account active');
    // The answer, then the user read back to check it, then read again for the modal.
    const after = h.sandbox.requests.slice(mark).map((r) => `${r.method} ${r.path}`);
    expect(after.filter((r) => r === 'GET /v3/users/customer-1001').length).toBeGreaterThan(1);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({ outcome: 'failed', errorKind: 'not_taken' });
  });

  describe('with approvals', () => {
    async function requested(h: Harness) {
      const card = await commandReply(h, 'user cometchat-uid-4');
      const picker = await clickIntoModal(h, card, ACTIONS.userChangeRole);
      const review = await pick(h, picker, 'vip');
      expect(textOf(review)).toContain('Request approval');
      const mark = h.slack.calls.length;
      await submitView(h, review, {});
      const post = await h.slack.nextCall('chat.postMessage', mark);
      expect(post.args.channel).toBe(CHANNEL);
      expect(textOf(post.args)).toContain('to user `cometchat-uid-4`');
      return { ts: '1700000000.000300', blocks: post.args.blocks as unknown[] };
    }

    function approve(h: Harness, driver: SlackDriver, posted: { ts: string; blocks: unknown[] }) {
      const button = actionButtons({ blocks: posted.blocks }).find(
        (b) => b.action_id === ACTIONS.approveChange,
      );
      return driver.interaction(
        driver.blockAction({
          actionId: ACTIONS.approveChange,
          value: button?.value ?? '',
          responseUrl: h.slack.responseUrl(),
          message: { ts: posted.ts, blocks: posted.blocks },
        }),
      );
    }

    it('is applied once when two approvers click at once, and audited with both', async () => {
      const h = await withEditors({ APPROVAL_CHANNEL: CHANNEL });
      const posted = await requested(h);
      expect(userWrites(h)).toEqual([]);
      h.sandbox.setLatency(200);
      await Promise.all([
        approve(h, driverAs(h, 'U0LEAD'), posted),
        approve(h, driverAs(h, 'U0LEAD2'), posted),
      ]);
      await h.slack.waitFor(() => h.slack.calls.find((c) => c.method === 'chat.update'), 8_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(userWrites(h)).toHaveLength(1);
      const audit = (await store.listAudit({ offset: 0, limit: 5 })).records;
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        outcome: 'applied',
        userId: 'U0OPERATOR',
        subject: { uid: 'cometchat-uid-4' },
        approval: { approvedBy: expect.stringMatching(/^U0LEAD2?$/) },
      });
    });

    it('a retry after an unknown outcome finds the change taken, and sends nothing again', async () => {
      const h = await withEditors({ APPROVAL_CHANNEL: CHANNEL });
      const posted = await requested(h);
      h.sandbox.inject({
        kind: 'reset',
        method: 'PUT',
        pathIncludes: '/users/',
        times: Number.POSITIVE_INFINITY,
      });
      const mark = h.slack.calls.length;
      await approve(h, driverAs(h, 'U0LEAD'), posted);
      const first = await h.slack.nextCall('chat.update', mark, 15_000);
      expect(textOf(first.args)).toContain('may or may not have been applied');
      const sent = userWrites(h).length;
      expect(sent).toBeGreaterThan(0);
      // CometChat did apply it; only its answers were lost.
      h.sandbox.clearFaults();
      const user = h.sandbox.state.users.get('cometchat-uid-4');
      if (user) user.role = 'vip';
      const retry = h.slack.calls.length;
      await approve(h, driverAs(h, 'U0LEAD2'), {
        ...posted,
        blocks: first.args.blocks as unknown[],
      });
      const second = await h.slack.nextCall('chat.update', retry);
      expect(textOf(second.args)).toContain('Approved');
      expect(textOf(second.args)).toContain('applied');
      expect(textOf(second.args)).not.toContain('changed in CometChat since');
      expect(userWrites(h)).toHaveLength(sent);
    });

    it('is stale, and not sent, when CometChat changed the user meanwhile', async () => {
      const h = await withEditors({ APPROVAL_CHANNEL: CHANNEL });
      const posted = await requested(h);
      const user = h.sandbox.state.users.get('cometchat-uid-4');
      if (user) user.role = 'guest';
      const mark = h.slack.calls.length;
      await approve(h, driverAs(h, 'U0LEAD'), posted);
      const update = await h.slack.nextCall('chat.update', mark);
      expect(textOf(update.args)).toContain(
        'The user changed in CometChat since this request was made',
      );
      expect(userWrites(h)).toEqual([]);
    });
  });
});
