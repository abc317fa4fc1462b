import { describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNT_IDS } from '../../offline/cometchat-standin/server.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { confirm, currentView, submitView } from '../../offline/stack/editor-steps.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { failedSteps } from '../../src/store/stored-records.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  commandText,
  type Harness,
  textOf,
} from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// Containing an account in trouble through the real app, against the stand-in, which like the
// service answers a deactivated user's uid as unknown: the order of the steps, a step that
// fails, the record's steps, its revert, two editors at once, and input that cannot be read.

const EDITORS = { EDITORS: 'U0OPERATOR,U0LEAD' };
const { uid, groups } = SANDBOX_ACCOUNT_IDS;
/** The groups the seeded customer is in, in the order CometChat lists them. */
const THEIR_GROUPS = [groups.lobby, groups.beta, groups.adminOf];
/** The day from which the containment deletes: the customer's last messages. */
const SINCE = '2025-02-01';
const SINCE_SECONDS = Date.parse(`${SINCE}T00:00:00Z`) / 1000;

/** What was sent to CometChat that changes something, as `METHOD path`. */
function writes(h: Harness, from = 0): string[] {
  return h.sandbox.requests
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);
}

/** The customer's messages since the day, not deleted yet: what a containment deletes. */
function deletable(h: Harness): string[] {
  return [...h.sandbox.state.accounts.messages.values()]
    .filter((m) => m.sender === uid && m.sentAt >= SINCE_SECONDS && m.deletedAt === undefined)
    .map((m) => m.id);
}

/** `/cometchat user <uid> contain` as `user`: resolves with the choice (after "Asking…"). */
async function openChoice(h: Harness, user = 'U0OPERATOR', who: string = uid): Promise<StoredView> {
  const mark = h.slack.calls.length;
  const sent = await driverAs(h, user).command(`user ${who} contain`);
  expect(sent.status).toBe(200);
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

/** The button of a section's accessory (the card puts Contain… beside its sentence). */
function accessoryOf(payload: Record<string, unknown>, actionId: string): Button | undefined {
  return blocksOf(payload)
    .map((b) => b.accessory as Button | undefined)
    .find((b) => b?.action_id === actionId);
}

/** The harness, driven as `user`. */
const as = (h: Harness, user: string) => ({ slack: h.slack, driver: driverAs(h, user) });

/** Chooses on the choice and submits it: resolves with the review that replaces it. */
async function choose(
  h: Harness,
  choice: StoredView,
  asked: { ban: boolean; since?: string },
  user = 'U0OPERATOR',
): Promise<StoredView> {
  expect(choice.callback_id).toBe(CALLBACKS.userContainOptions);
  const mark = h.slack.calls.length;
  const answer = await submitView(as(h, user), choice, {
    [BLOCKS.containGroups]: {
      ban: { type: 'checkboxes', selected_options: asked.ban ? [{ value: 'ban' }] : [] },
    },
    [BLOCKS.containSince]: { since: { type: 'plain_text_input', value: asked.since ?? '' } },
  });
  expect(answer.response_action).toBe('update');
  await h.slack.nextCall('views.update', mark);
  return currentView(h, choice.id);
}

describe('containing an account in trouble', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...EDITORS, ...env } });
  };

  it('revokes, bans from each group, deletes each message since the day, then deactivates; its revert reactivates and unbans', async () => {
    const h = await withEditors();
    const choice = await openChoice(h);
    for (const guid of THEIR_GROUPS) expect(textOf(choice)).toContain(`\`${guid}\``);
    expect(textOf(choice)).not.toContain(groups.notJoined);
    const review = await choose(h, choice, { ban: true, since: SINCE });
    const toDelete = deletable(h);
    expect(toDelete.length).toBeGreaterThan(5);
    const text = textOf(review);
    expect(text).toContain('Revoke every session');
    expect(text).toContain('3 sessions now');
    expect(text).toContain(`${toDelete.length} messages now`);
    expect(text).toContain('does not document whether a connected session drops');
    // The review shows the order the steps are sent in.
    const order = ['Revoke every session', 'Ban from 3 groups', 'Soft-delete', 'Deactivate'];
    expect(order.map((step) => text.indexOf(step))).toEqual(
      [...order.map((step) => text.indexOf(step))].sort((a, b) => a - b),
    );
    const mark = h.sandbox.requests.length;
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('sessions revoked, account deactivated');
    expect(writes(h, mark)).toEqual([
      `DELETE /v3/users/${uid}/auth_tokens`,
      ...THEIR_GROUPS.map((guid) => `POST /v3/groups/${guid}/bannedusers/${uid}`),
      ...toDelete
        .slice()
        .sort((a, b) => Number(b) - Number(a))
        .map((id) => `DELETE /v3/messages/${id}`),
      'DELETE /v3/users',
    ]);
    // Soft deletes: no body asks for a permanent one.
    const deletions = h.sandbox.requests
      .slice(mark)
      .filter((r) => r.path.startsWith('/v3/messages/'));
    expect(deletions.every((r) => JSON.stringify(r.body ?? {}).includes('true') === false)).toBe(
      true,
    );
    expect(h.sandbox.state.accounts.authTokens.get(uid) ?? []).toEqual([]);
    expect(h.sandbox.state.users.get(uid)?.deactivatedAt).toBeDefined();
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record?.subject).toEqual({ kind: 'containment', uid });
    expect(record?.outcome).toBe('applied');
    expect(record && failedSteps(record)).toEqual([]);
    expect(record?.steps?.map((s) => s.key)).toEqual([
      'sessions',
      ...THEIR_GROUPS.map((guid) => `bans:${guid}`),
      'messagesSince',
      'status',
    ]);

    // Revert, from the audit list: reactivated first, then each ban lifted.
    const list = await commandReply(h, 'audit');
    const revert = actionButtons(list).find((b) => b.action_id.startsWith(ACTIONS.revertChange));
    if (!revert?.value) throw new Error('no Revert on the containment');
    const before = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: revert.action_id,
        value: revert.value,
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000900', blocks: list.blocks as unknown[] },
      }),
    );
    const opened = await h.slack.nextCall('views.update', before);
    const revertReview = currentView(h, String(opened.args.view_id));
    expect(textOf(revertReview)).toContain('Revoked sessions do not come back');
    expect(textOf(revertReview)).toContain('stay deleted');
    const back = h.sandbox.requests.length;
    await confirm(h, revertReview);
    expect(writes(h, back)).toEqual([
      'PUT /v3/users',
      ...THEIR_GROUPS.map((guid) => `DELETE /v3/groups/${guid}/bannedusers/${uid}`),
    ]);
    expect(h.sandbox.state.users.get(uid)?.deactivatedAt).toBeUndefined();
    for (const guid of THEIR_GROUPS)
      expect(h.sandbox.state.accounts.bans.get(guid)?.has(uid)).toBeFalsy();
  });

  it('still revokes and deactivates when a ban fails, names the failed step and records it as partial', async () => {
    const h = await withEditors();
    const review = await choose(h, await openChoice(h), { ban: true });
    h.sandbox.inject({
      method: 'POST',
      pathIncludes: `/groups/${groups.beta}/bannedusers/`,
      kind: 'status',
      status: 500,
    });
    const mark = h.sandbox.requests.length;
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('recorded as partial');
    expect(textOf(outcome)).toContain(`banning from ${groups.beta}`);
    const sent = writes(h, mark);
    expect(sent[0]).toBe(`DELETE /v3/users/${uid}/auth_tokens`);
    expect(sent.at(-1)).toBe('DELETE /v3/users');
    expect(h.sandbox.state.users.get(uid)?.deactivatedAt).toBeDefined();
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record && failedSteps(record).map((s) => s.key)).toEqual([`bans:${groups.beta}`]);
    const list = await commandReply(h, 'audit');
    expect(textOf(list)).toContain('(partial)');
  });

  it("opens the same choice from the card's Contain…, for an editor only", async () => {
    const h = await withEditors();
    const card = await commandReply(h, `user ${uid}`);
    const contain = accessoryOf(card, ACTIONS.userContain);
    if (!contain?.value) throw new Error('no Contain… on the card');
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({ actionId: ACTIONS.userContain, value: contain.value }),
    );
    const update = await h.slack.nextCall('views.update', mark);
    const choice = currentView(h, String(update.args.view_id));
    expect(choice.callback_id).toBe(CALLBACKS.userContainOptions);
    const viewerCard = await commandReply(h, `user ${uid}`, driverAs(h, 'U0VIEWER'));
    expect(accessoryOf(viewerCard, ACTIONS.userContain)).toBeUndefined();
    expect(writes(h)).toEqual([]);
  });

  it('applies once when two editors contain the same user at once', async () => {
    const h = await withEditors();
    const first = await choose(h, await openChoice(h, 'U0OPERATOR'), { ban: false });
    const second = await choose(h, await openChoice(h, 'U0LEAD'), { ban: false }, 'U0LEAD');
    const mark = h.sandbox.requests.length;
    const [a, b] = await Promise.all([
      submitView(as(h, 'U0OPERATOR'), first, {}),
      submitView(as(h, 'U0LEAD'), second, {}),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Both outcomes settle in their modals: one applied, one refused as out of date.
    await h.slack.waitFor(() => {
      const shown = [first, second].map((v) => textOf(currentView(h, v.id)));
      return shown.every((t) => !t.includes('Applying')) ? true : undefined;
    });
    expect(writes(h, mark).filter((w) => w === 'DELETE /v3/users')).toHaveLength(1);
    expect(writes(h, mark).filter((w) => w.endsWith('/auth_tokens'))).toHaveLength(1);
    const records = (await store.listAudit({ offset: 0, limit: 5 })).records;
    expect(records.filter((r) => r.outcome === 'applied')).toHaveLength(1);
  });

  it('refuses what cannot be read in one sentence, and changes nothing', async () => {
    const h = await withEditors();
    expect(await commandText(h, 'user not/a-uid contain')).toMatch(/uid/i);
    const deactivated = await openChoice(h, 'U0OPERATOR', SANDBOX_ACCOUNT_IDS.deactivated);
    expect(textOf(deactivated)).toContain('is deactivated already');
    const choice = await openChoice(h);
    const answer = await submitView(h, choice, {
      [BLOCKS.containGroups]: { ban: { type: 'checkboxes', selected_options: [] } },
      [BLOCKS.containSince]: { since: { type: 'plain_text_input', value: 'last tuesday' } },
    });
    expect(answer.response_action).toBe('errors');
    expect(JSON.stringify(answer.errors)).toContain('is not a time');
    const viewer = driverAs(h, 'U0VIEWER');
    expect(await commandText(h, `user ${uid} contain`, viewer)).toMatch(/edit/i);
    expect(writes(h)).toEqual([]);
  });

  it('records a containment whose deactivation failed as failed, with what its steps did', async () => {
    const h = await withEditors();
    const review = await choose(h, await openChoice(h), { ban: false });
    // CometChat refuses both the revocation and the deactivation (both DELETE /v3/users...).
    h.sandbox.inject({
      method: 'DELETE',
      pathIncludes: '/v3/users',
      kind: 'status',
      status: 400,
      times: 2,
    });
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).not.toContain('Applied');
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record?.outcome).toBe('failed');
    expect(record?.steps?.map((s) => [s.key, s.outcome])).toEqual([
      ['sessions', 'failed'],
      ['status', 'failed'],
    ]);
    expect(textOf(outcome)).toContain('deactivating the account');
    expect(h.sandbox.state.users.get(uid)?.deactivatedAt).toBeUndefined();
  });
});
