import { describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../offline/slack-standin/driver.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { currentView, submitView } from '../../offline/stack/editor-steps.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { openStore } from '../../src/store/open-store.ts';
import { type ApprovalRequest, createMemoryStore, type Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { actionButtons, commandReply, type Harness, textOf } from './harness.ts';
import { driverAs, puts, reviewFlip, useHarnessStarter, useReplicas } from './support.ts';

// Two people acting on the same thing at the same moment, through the real app: one decision per
// approval request (Approve and Reject take the same claim), one change per user or role at a
// time (a claim on the target, from the check to the audit). Whoever comes second is told; one
// write reaches CometChat; one record says it was applied.

const EDITORS = 'U0OPERATOR,U0LEAD,U0LEAD2';
const CHANNEL = 'C0APPROVE';

/** Enough for a second request to arrive while the first waits on CometChat. */
const LATENCY_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What CometChat was asked to change about users. */
const userWrites = (h: Harness) =>
  h.sandbox.requests.filter(
    (r) => r.path.startsWith('/v3/users') && (r.method === 'PUT' || r.method === 'DELETE'),
  );

/** What CometChat was asked to change about roles. */
const roleWrites = (h: Harness) =>
  h.sandbox.requests.filter((r) => r.path.startsWith('/v3/roles') && r.method !== 'GET');

/** A modal a request filled after call `mark`: the first update of the view it opened. */
async function modalAfter(h: Harness, mark: number): Promise<StoredView> {
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

/** `/cometchat <text>` as `user`: the review it opens. */
async function reviewOf(h: Harness, text: string, user: string): Promise<StoredView> {
  const mark = h.slack.calls.length;
  await driverAs(h, user).command(text);
  const review = await modalAfter(h, mark);
  expect(review.callback_id).toBe(CALLBACKS.permissionsConfirm);
  return review;
}

/** A user card's button clicked as `user`: the modal it fills. */
async function clicked(h: Harness, uid: string, actionId: string, user: string) {
  const card = await commandReply(h, `user ${uid}`, driverAs(h, user));
  const button = actionButtons(card).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} on the card`);
  const mark = h.slack.calls.length;
  const driver = driverAs(h, user);
  await driver.interaction(driver.blockAction({ actionId, value: button.value }));
  return modalAfter(h, mark);
}

/** The review of moving `uid` to `role`, asked by `user` from the user's card. */
async function roleReview(h: Harness, uid: string, role: string, user: string) {
  const picker = await clicked(h, uid, ACTIONS.userChangeRole, user);
  const driver = driverAs(h, user);
  const values = {
    user_role: { role: { type: 'static_select', selected_option: { value: role } } },
  };
  await driver.interaction(driver.viewSubmission({ view: picker, values }));
  return currentView(h, picker.id);
}

/**
 * Each review's Apply, all at once, each by the person who asked for it: the view each shows
 * once its outcome is in.
 */
async function applyAtOnce(
  h: Harness,
  reviews: readonly { view: StoredView; user: string }[],
): Promise<string[]> {
  const mark = h.slack.calls.length;
  await Promise.all(
    reviews.map(({ view, user }) => {
      const driver = driverAs(h, user);
      return driver.interaction(driver.viewSubmission({ view, values: {} }));
    }),
  );
  return Promise.all(
    reviews.map(async ({ view }) => {
      await h.slack.waitFor(
        () =>
          h.slack.calls
            .slice(mark)
            .find((c) => c.method === 'views.update' && c.args.view_id === view.id && c.answer),
        15_000,
      );
      return textOf(currentView(h, view.id));
    }),
  );
}

/** The two outcomes, the applied one first; fails unless exactly one was applied. */
function oneApplied(outcomes: readonly string[], applied: RegExp): [string, string] {
  const [first = '', second = ''] = outcomes;
  const winners = outcomes.filter((text) => applied.test(text));
  expect(winners, outcomes.join('\n---\n')).toHaveLength(1);
  return applied.test(first) ? [first, second] : [second, first];
}

/** The audit records a store holds, newest first. */
async function records(store: Pick<Store, 'listAudit'>) {
  return (await store.listAudit({ offset: 0, limit: 20 })).records;
}

describe('one change per user or role at a time', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = () => {
    store = createMemoryStore();
    return start({ store, env: { EDITORS } });
  };

  it("applies one of two editors' role changes of the same user, and refuses the other", async () => {
    const h = await withEditors();
    const toVip = await roleReview(h, 'cometchat-uid-4', 'vip', 'U0OPERATOR');
    const toModerator = await roleReview(h, 'cometchat-uid-4', 'moderator', 'U0LEAD');
    h.sandbox.setLatency(LATENCY_MS);
    const outcomes = await applyAtOnce(h, [
      { view: toVip, user: 'U0OPERATOR' },
      { view: toModerator, user: 'U0LEAD' },
    ]);
    const [, refused] = oneApplied(outcomes, /role is now `(vip|moderator)`/);
    expect(refused).toContain('The user changed in CometChat since the review');
    expect(userWrites(h)).toHaveLength(1);
    const audit = await records(store);
    expect(audit.map((r) => r.outcome)).toEqual(['applied']);
    expect(h.sandbox.state.users.get('cometchat-uid-4')?.role).toBe(audit[0]?.changes[0]?.after);
  });

  it('deactivates a user once when two editors deactivate them at once', async () => {
    const h = await withEditors();
    const first = await clicked(h, 'customer-1001', ACTIONS.userAccount, 'U0OPERATOR');
    const second = await clicked(h, 'customer-1001', ACTIONS.userAccount, 'U0LEAD');
    h.sandbox.setLatency(LATENCY_MS);
    const outcomes = await applyAtOnce(h, [
      { view: first, user: 'U0OPERATOR' },
      { view: second, user: 'U0LEAD' },
    ]);
    const [, refused] = oneApplied(outcomes, /account is now deactivated/);
    expect(refused).toContain('The user changed in CometChat since the review');
    expect(userWrites(h).map((r) => r.method)).toEqual(['DELETE']);
    expect((await records(store)).map((r) => r.outcome)).toEqual(['applied']);
  });

  it('renames a role once when two editors rename it at once', async () => {
    const h = await withEditors();
    const gold = await reviewOf(h, 'role rename vip Gold', 'U0OPERATOR');
    const platinum = await reviewOf(h, 'role rename vip Platinum', 'U0LEAD');
    h.sandbox.setLatency(LATENCY_MS);
    const outcomes = await applyAtOnce(h, [
      { view: gold, user: 'U0OPERATOR' },
      { view: platinum, user: 'U0LEAD' },
    ]);
    const [, refused] = oneApplied(outcomes, /Applied to role `vip`/);
    expect(refused).toMatch(
      /`vip` (changed since the review|since the review), so nothing was sent/,
    );
    expect(roleWrites(h).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /v3/roles/vip']);
    expect((await records(store)).map((r) => r.outcome)).toEqual(['applied']);
  });

  it('deletes a role once when two editors delete it at once, naming who held it', async () => {
    const h = await withEditors();
    const holders = [...h.sandbox.state.users.values()]
      .filter((u) => u.role === 'vip')
      .map((u) => u.uid)
      .sort();
    expect(holders.length).toBeGreaterThan(0);
    const first = await reviewOf(h, 'role delete vip', 'U0OPERATOR');
    const second = await reviewOf(h, 'role delete vip', 'U0LEAD');
    h.sandbox.setLatency(LATENCY_MS);
    const outcomes = await applyAtOnce(h, [
      { view: first, user: 'U0OPERATOR' },
      { view: second, user: 'U0LEAD' },
    ]);
    const [, refused] = oneApplied(outcomes, /Applied to role `vip`: deleted/);
    expect(refused).toMatch(/`vip`.*so nothing was sent/);
    expect(roleWrites(h).map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /v3/roles/vip']);
    const [record, ...others] = await records(store);
    expect(others).toEqual([]);
    expect(record).toMatchObject({
      outcome: 'applied',
      subject: { kind: 'role', action: 'delete' },
    });
    // Read before it was sent: who held the role, whom CometChat left with `default`.
    expect([...(record?.movedToDefault?.uids ?? [])].sort()).toEqual(holders);
    expect(record?.movedToDefault?.total).toBe(holders.length);
    for (const uid of holders) expect(h.sandbox.state.users.get(uid)?.role).toBe('default');
  });

  it('refuses a change of permissions whose role another applied change moved on', async () => {
    const h = await withEditors();
    const [send, edit] = [await reviewFlip(h, 'sendMessage'), await reviewFlip(h, 'editMessage')];
    h.sandbox.setLatency(LATENCY_MS);
    const outcomes = await applyAtOnce(h, [
      { view: send.confirmation, user: 'U0OPERATOR' },
      { view: edit.confirmation, user: 'U0OPERATOR' },
    ]);
    const [, refused] = oneApplied(outcomes, /Resulting permissions/);
    expect(refused).toContain('The role changed since you reviewed this');
    expect(puts(h)).toHaveLength(1);
    expect((await records(store)).map((r) => r.outcome)).toEqual(['applied']);
  });
});

/** Reviews a change and asks for its approval: the request as posted in the channel. */
async function request(h: Harness) {
  const { confirmation } = await reviewFlip(h);
  const mark = h.slack.calls.length;
  await submitView(h, confirmation, {
    approval_reason: { reason: { type: 'plain_text_input', value: 'ticket 42' } },
  });
  const post = await h.slack.nextCall('chat.postMessage', mark);
  expect(post.args.channel).toBe(CHANNEL);
  // The request is stored once posted: the review says so once it is.
  const done = await h.slack.nextCall('views.update', mark);
  expect(textOf(done.args.view)).toContain('Approval requested');
  return { ts: '1700000000.000300', blocks: post.args.blocks as unknown[] };
}

/** Clicks a button of the posted request as `driver`'s user. */
function click(
  h: Harness,
  driver: SlackDriver,
  posted: { ts: string; blocks: unknown[] },
  actionId: string,
) {
  const button = actionButtons({ blocks: posted.blocks }).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} button`);
  return driver.interaction(
    driver.blockAction({
      actionId,
      value: button.value,
      responseUrl: h.slack.responseUrl(),
      message: { ts: posted.ts, blocks: posted.blocks },
    }),
  );
}

/** "Reject" clicked as `driver`'s user: the reason modal it opens. */
async function rejectModal(
  h: Harness,
  driver: SlackDriver,
  posted: { ts: string; blocks: unknown[] },
) {
  const mark = h.slack.calls.length;
  await click(h, driver, posted, ACTIONS.rejectChange);
  const opened = await h.slack.nextCall('views.open', mark);
  const view = [...h.slack.views.values()].find((v) => v.callback_id === CALLBACKS.rejectReason);
  if (!view) throw new Error(`no reason modal after ${String(opened.method)}`);
  return view;
}

/** The reason submitted in the modal: what the modal answered (its text). */
async function submitReason(driver: SlackDriver, modal: StoredView) {
  const values = { reject_reason: { reason: { type: 'plain_text_input', value: 'not now' } } };
  const answer = await driver.interaction(driver.viewSubmission({ view: modal, values }));
  expect(answer.status).toBe(200);
  return answer.body ? textOf(JSON.parse(answer.body)) : '';
}

/** What the channel's message of the request says, once it says how the request ended. */
async function decided(h: Harness, mark: number): Promise<string> {
  const update = await h.slack.waitFor(
    () =>
      h.slack.calls
        .slice(mark)
        .find((c) => c.method === 'chat.update' && /Approved by|Rejected by/.test(textOf(c.args))),
    15_000,
  );
  // Anything said after the decision is said by now (the other person's answer, a late write).
  await sleep(LATENCY_MS * 3);
  return textOf(update.args);
}

/** Every update of the request's message after `mark`, as text. */
const messageUpdates = (h: Harness, mark: number) =>
  h.slack.calls
    .slice(mark)
    .filter((c) => c.method === 'chat.update')
    .map((c) => textOf(c.args));

/**
 * Checks that the request ended once, one way: applied with one write and one new record, or
 * rejected with neither; and that its message never said the other.
 */
async function expectOneDecision(
  h: Harness,
  store: Pick<Store, 'getApproval' | 'listAudit'>,
  request: { id: string; recordsBefore: number; mark: number },
): Promise<ApprovalRequest['status']> {
  const stored = await store.getApproval(request.id);
  const updates = messageUpdates(h, request.mark);
  const added = (await records(store)).slice(0, -request.recordsBefore || undefined);
  if (stored?.status === 'applied') {
    expect(puts(h)).toHaveLength(1);
    expect(added.map((r) => [r.outcome, r.ref])).toEqual([['applied', stored.ref]]);
    expect(updates.some((text) => text.includes('Rejected by'))).toBe(false);
  } else {
    expect(stored?.status).toBe('rejected');
    expect(puts(h)).toEqual([]);
    expect(added).toEqual([]);
    expect(updates.some((text) => text.includes('Approved by'))).toBe(false);
  }
  return stored?.status ?? 'open';
}

describe('one decision per approval request', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withApprovals = () => {
    store = createMemoryStore();
    return start({ store, env: { EDITORS, APPROVAL_CHANNEL: CHANNEL } });
  };

  it('applies an approval that came first, and tells the rejecter a second later', async () => {
    const h = await withApprovals();
    const posted = await request(h);
    const [open] = await store.listOpenApprovals();
    const lead2 = driverAs(h, 'U0LEAD2');
    const modal = await rejectModal(h, lead2, posted);
    h.sandbox.setLatency(LATENCY_MS);
    const mark = h.slack.calls.length;
    const approving = click(h, driverAs(h, 'U0LEAD'), posted, ACTIONS.approveChange);
    await sleep(100);
    const rejecterTold = await submitReason(lead2, modal);
    await approving;
    expect(await decided(h, mark)).toContain('Approved by <@U0LEAD> and applied');
    expect(rejecterTold).toMatch(
      /being decided by someone else|already closed \(applied by <@U0LEAD>\)/,
    );
    const id = open?.id ?? '';
    expect(await expectOneDecision(h, store, { id, recordsBefore: 0, mark })).toBe('applied');
  });

  it('keeps a rejection that came first, and tells the approver a second later', async () => {
    const h = await withApprovals();
    const posted = await request(h);
    const [open] = await store.listOpenApprovals();
    const lead2 = driverAs(h, 'U0LEAD2');
    const modal = await rejectModal(h, lead2, posted);
    h.sandbox.setLatency(LATENCY_MS);
    const mark = h.slack.calls.length;
    const replies = h.slack.responses.length;
    const rejecting = submitReason(lead2, modal);
    await sleep(100);
    await click(h, driverAs(h, 'U0LEAD'), posted, ACTIONS.approveChange);
    expect(await rejecting).toBe('');
    expect(await decided(h, mark)).toContain('Rejected by <@U0LEAD2>');
    const approverTold = textOf((await h.slack.nextResponse(replies)).body);
    expect(approverTold).toMatch(
      /being decided by someone else|already closed \(rejected by <@U0LEAD2>\)/,
    );
    const id = open?.id ?? '';
    expect(await expectOneDecision(h, store, { id, recordsBefore: 0, mark })).toBe('rejected');
  });
});

describe.skipIf(skipRedisSuites)(
  'the same on two replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const replicas = useReplicas();

    /** The shared store, opened beside the replicas; closed after `work`. */
    async function withShared<T>(work: (shared: Store) => Promise<T>): Promise<T> {
      const shared = await openStore(redis().url);
      try {
        return await work(shared);
      } finally {
        await shared.close();
      }
    }

    it("applies one of two editors' role changes of the same user, one through each replica", async () => {
      const [a, b] = await replicas({ EDITORS, STORE_URL: redis().url });
      const before = await withShared(records);
      const toVip = await roleReview(a, 'cometchat-uid-5', 'vip', 'U0OPERATOR');
      const toModerator = await roleReview(b, 'cometchat-uid-5', 'moderator', 'U0LEAD');
      a.sandbox.setLatency(LATENCY_MS);
      const mark = a.slack.calls.length;
      const driverA = driverAs(a, 'U0OPERATOR');
      const driverB = driverAs(b, 'U0LEAD');
      await Promise.all([
        driverA.interaction(driverA.viewSubmission({ view: toVip, values: {} })),
        driverB.interaction(driverB.viewSubmission({ view: toModerator, values: {} })),
      ]);
      await a.slack.waitFor(
        () =>
          a.slack.calls.slice(mark).filter((c) => c.method === 'views.update' && c.answer).length >=
            2 || undefined,
        15_000,
      );
      const outcomes = [toVip, toModerator].map((view) => textOf(currentView(a, view.id)));
      const [, refused] = oneApplied(outcomes, /role is now `(vip|moderator)`/);
      expect(refused).toContain('The user changed in CometChat since the review');
      expect(userWrites(a)).toHaveLength(1);
      const after = await withShared(records);
      expect(after.length - before.length).toBe(1);
      expect(after[0]).toMatchObject({ outcome: 'applied', subject: { uid: 'cometchat-uid-5' } });
    });

    it('decides a request once when Approve and Reject come together through two replicas', async () => {
      const [a, b] = await replicas({ EDITORS, APPROVAL_CHANNEL: CHANNEL, STORE_URL: redis().url });
      const recordsBefore = (await withShared(records)).length;
      const posted = await request(a);
      const id = await withShared(
        async (shared) => (await shared.listOpenApprovals())[0]?.id ?? '',
      );
      const lead2 = driverAs(b, 'U0LEAD2');
      const modal = await rejectModal(b, lead2, posted);
      a.sandbox.setLatency(LATENCY_MS);
      const mark = a.slack.calls.length;
      await Promise.all([
        click(a, driverAs(a, 'U0LEAD'), posted, ACTIONS.approveChange),
        submitReason(lead2, modal),
      ]);
      await decided(a, mark);
      await withShared((shared) => expectOneDecision(a, shared, { id, recordsBefore, mark }));
    });
  },
);
