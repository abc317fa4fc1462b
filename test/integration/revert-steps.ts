import { expect } from 'vitest';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { confirm, currentView, modalShown } from '../../offline/stack/editor-steps.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import type { AuditRecord, Store } from '../../src/store/store.ts';
import { actionButtons, type Button, commandReply, type Harness, textOf } from './harness.ts';
import { driverAs } from './support.ts';

// A change and its revert driven as people drive them: a command or a card's button opens the
// review, "Apply" sends it; _Revert_ on the audit record opens the revert's review. Shared by
// the revert's integration tests.

/** The operator, and a second editor. */
export const OPERATOR = 'U0OPERATOR';
export const LEAD = 'U0LEAD';
export const EDITORS = { EDITORS: `${OPERATOR},${LEAD},U0LEAD2` };

/** What CometChat was asked to change (users and roles), as `METHOD path`. */
export function writes(h: Pick<Harness, 'sandbox'>): string[] {
  return h.sandbox.requests
    .filter((r) => r.method !== 'GET' && r.path.startsWith('/v3/'))
    .map((r) => `${r.method} ${r.path}`);
}

/** `/cometchat <text>` as `user`: the review it opens, once filled in. */
export async function reviewOf(h: Harness, text: string, user = OPERATOR): Promise<StoredView> {
  const mark = h.slack.calls.length;
  await driverAs(h, user).command(text);
  const review = await modalShown(h, mark);
  expect(review.callback_id, textOf(review)).toBe(CALLBACKS.permissionsConfirm);
  return review;
}

/** Submits a review ("Apply") as `user`: the view that shows its outcome. */
export async function apply(h: Harness, review: StoredView, user = OPERATOR): Promise<string> {
  if (user === OPERATOR) return textOf((await confirm(h, review)).outcome);
  const mark = h.slack.calls.length;
  const driver = driverAs(h, user);
  await driver.interaction(driver.viewSubmission({ view: review, values: {} }));
  const update = await h.slack.nextCall('views.update', mark, 15_000);
  return textOf(currentView(h, String(update.args.view_id)));
}

/** `/cometchat <text>` reviewed and applied: the newest audit record, which it wrote. */
export async function applied(h: Harness, store: Store, text: string): Promise<AuditRecord> {
  const outcome = await apply(h, await reviewOf(h, text));
  expect(outcome).toContain('Applied');
  return newest(store);
}

/** The newest audit record. */
export async function newest(store: Pick<Store, 'listAudit'>): Promise<AuditRecord> {
  const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
  if (!record) throw new Error('no audit record');
  return record;
}

/** The _Revert_ of record `ref` in a message (the audit list, the audit post). */
export function revertIn(message: Record<string, unknown>, ref: string): Button | undefined {
  return actionButtons(message).find((b) => b.action_id === `${ACTIONS.revertChange}:${ref}`);
}

/** `/cometchat audit` as `user`: the list, with its Revert buttons. */
export function auditList(h: Harness, user = OPERATOR): Promise<Record<string, unknown>> {
  return commandReply(h, 'audit', driverAs(h, user));
}

/** Clicks a Revert in `message` (posted at a response_url) as `user`. */
export async function clickRevert(
  h: Harness,
  message: Record<string, unknown>,
  ref: string,
  user = OPERATOR,
) {
  const button = revertIn(message, ref);
  if (!button?.value) throw new Error(`no Revert of ${ref}`);
  const driver = driverAs(h, user);
  const sent = await driver.interaction(
    driver.blockAction({
      actionId: button.action_id,
      value: button.value,
      responseUrl: h.slack.responseUrl(),
      message: { ts: '1700000000.000500', blocks: message.blocks as unknown[] },
    }),
  );
  expect(sent.status).toBe(200);
}

/** _Revert_ of `ref` from the audit list, as `user`: the modal it opens, once filled in. */
export async function revertReview(h: Harness, ref: string, user = OPERATOR): Promise<StoredView> {
  const list = await auditList(h, user);
  const mark = h.slack.calls.length;
  await clickRevert(h, list, ref, user);
  return modalShown(h, mark);
}

/**
 * Opens the Home tab as `user` (a member of the workspace: Slack publishes a tab only for one):
 * the view published once it shows `wanted`.
 */
export async function homeOf(h: Harness, user: string, wanted: string): Promise<StoredView> {
  h.slack.setUsers([
    { id: OPERATOR, name: 'operator', real_name: 'Offline Operator', is_admin: true },
    ...(user === OPERATOR ? [] : [{ id: user, name: user.toLowerCase(), real_name: user }]),
  ]);
  const driver = driverAs(h, user);
  const mark = h.slack.calls.length;
  await driver.event(driver.homeOpened());
  await h.slack.waitFor(() =>
    h.slack.calls
      .slice(mark)
      .find(
        (c) =>
          c.method === 'views.publish' &&
          c.args.user_id === user &&
          textOf(c.args.view).includes(wanted),
      ),
  );
  const home = h.slack.homes.get(user);
  if (!home) throw new Error(`no Home tab for ${user}`);
  return home;
}
