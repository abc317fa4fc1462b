import { describe, expect, it } from 'vitest';
import { decisionsIn } from '../../offline/cometchat-standin/moderation-queue.ts';
import type { SlackDriver } from '../../offline/slack-standin/driver.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { currentView, submitView } from '../../offline/stack/editor-steps.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  commandReply,
  type Harness,
  signedTestValue,
  tableRecords,
  textOf,
} from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// The moderation desk through the real app, against the stand-in's seeded queues: who sees a
// message's text (moderators only, never anyone else, anywhere), and every decision on the road
// of changes: reviewed, authorised when sent, one PATCH however it is raced, audited.

const MODERATORS = { EDITORS: 'U0OPERATOR', MODERATORS: 'U0MOD1,U0MOD2' };
const CHANNEL = 'C0APPROVE';
const APP_WORDS = ['Previous', 'channel', 'approve', 'messages'];

/** The decisions CometChat was sent (PATCHes of the moderation queues). */
const decisions = (h: Harness) => decisionsIn(h.sandbox.requests);

/**
 * Words of the seeded texts and remarks (six letters or more) that name nothing a viewer may
 * see (a rule, a reason, a condition): any of them in a viewer's payload is a text shown.
 */
function textWords(h: Harness): string[] {
  const { flagged, blocked } = h.sandbox.state.moderation;
  const texts = [
    ...[...flagged.values()].flatMap((f) => [
      String(f.data.text ?? ''),
      ...f.flaggedBy.map((by) => by.remark ?? ''),
    ]),
    ...[...blocked.values()].map((b) => String(b.message.data.text ?? '')),
  ];
  const visible = JSON.stringify([
    ...[...flagged.values()].map((f) => [
      f.sender,
      f.receiver,
      f.flaggedBy.map((by) => [by.uid, by.reasonName ?? '']),
    ]),
    ...[...blocked.values()].map((b) => [
      b.ruleName,
      b.condition.message,
      b.ruleId,
      b.message.sender,
      b.message.receiver,
    ]),
    // The app's own words, which some texts happen to use too.
    APP_WORDS,
  ]).toLowerCase();
  const words = texts.flatMap((text) => text.match(/[A-Za-z]{6,}/g) ?? []);
  return [...new Set(words)].filter((word) => !visible.includes(word.toLowerCase()));
}

/** Stretches of 16 characters of every seeded text and remark, as a JSON log line writes them. */
function textFragments(h: Harness): string[] {
  const { flagged, blocked } = h.sandbox.state.moderation;
  const texts = [
    ...[...flagged.values()].flatMap((f) => [
      String(f.data.text ?? ''),
      ...f.flaggedBy.map((by) => by.remark ?? ''),
    ]),
    ...[...blocked.values()].map((b) => String(b.message.data.text ?? '')),
  ];
  return texts
    .map((text) => JSON.stringify(text).slice(1, -1))
    .flatMap((text) => (text.length >= 16 ? [text.slice(0, 16), text.slice(-16)] : []));
}

function leakedWords(payloads: unknown, words: readonly string[]): string[] {
  const json = JSON.stringify(payloads).toLowerCase();
  return words.filter((word) => json.includes(word.toLowerCase()));
}

/** The queue as `user` sees it. */
const queueAs = (h: Harness, user: string) => commandReply(h, 'moderation', driverAs(h, user));

/** Clicks a button of `message` as `user`; resolves with the modal it filled (after "Asking…"). */
async function clickIntoModal(
  h: Harness,
  message: Record<string, unknown>,
  actionId: string,
  user: string,
): Promise<StoredView> {
  const button = actionButtons(message).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} in the message`);
  const mark = h.slack.calls.length;
  const driver = driverAs(h, user);
  await driver.interaction(
    driver.blockAction({ actionId, value: button.value, responseUrl: h.slack.responseUrl() }),
  );
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

/** The review of `decision` on message `id`, opened by `user` from their queue. */
async function review(h: Harness, user: string, decision: string, id: string) {
  const queue = await queueAs(h, user);
  return clickIntoModal(h, queue, `${ACTIONS.moderationDecide}:${decision}:${id}`, user);
}

/** Submits a view as `driver`'s user (the driver's own signing, a user of our choosing). */
async function submitAs(h: Harness, driver: SlackDriver, view: StoredView) {
  const mark = h.slack.calls.length;
  await driver.interaction(driver.viewSubmission({ view, values: {} }));
  // This view's own outcome: another submission may update its own view meanwhile.
  await h.slack.waitFor(() =>
    h.slack.calls
      .slice(mark)
      .find((c) => c.method === 'views.update' && c.args.view_id === view.id),
  );
  return currentView(h, view.id);
}

describe('the moderation queue', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withModerators = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...MODERATORS, ...env } });
  };

  it('shows a moderator the texts and the decisions, and a viewer no text in any payload', async () => {
    const h = await withModerators();
    const words = textWords(h);
    expect(words.length).toBeGreaterThan(10);
    const forModerator = await queueAs(h, 'U0MOD1');
    // The check can fail: the moderator's own reply holds the texts.
    expect(leakedWords(forModerator, words).length).toBeGreaterThan(5);
    expect(textOf(forModerator)).toContain('13 messages waiting, newest first · page 1 of 2');
    const ids = actionButtons(forModerator).map((b) => b.action_id);
    expect(ids).toContain(`${ACTIONS.moderationDecide}:approve:9001`);
    expect(ids).toContain(`${ACTIONS.moderationDecide}:deliver:9101`);
    expect(ids).toContain(ACTIONS.moderationBulk);
    // Hostile text stays text: no mention, no link of the sender's.
    expect(JSON.stringify(forModerator)).not.toMatch(/<!channel>|<!here>|<https:\/\/evil/);

    const responsesBefore = h.slack.responses.length;
    const callsBefore = h.slack.calls.length;
    const forViewer = await queueAs(h, 'U0VIEWER');
    const viewerDetails = await commandReply(h, 'moderation 9003', driverAs(h, 'U0VIEWER'));
    const nextPage = actionButtons(forViewer).find((b) =>
      b.action_id.startsWith(ACTIONS.moderationPage),
    );
    expect(nextPage?.value).toBeDefined();
    const viewer = driverAs(h, 'U0VIEWER');
    const mark = h.slack.responses.length;
    await viewer.interaction(
      viewer.blockAction({
        actionId: nextPage?.action_id ?? '',
        value: nextPage?.value ?? '',
        responseUrl: h.slack.responseUrl(),
      }),
    );
    const page2 = (await h.slack.nextResponse(mark)).body;
    expect(textOf(page2)).toContain('page 2 of 2');
    // Ids, senders, conversations, rules and counts; no text, no remark, no decision.
    expect(textOf(forViewer)).toContain('`9001`');
    expect(textOf(forViewer)).toMatch(/Blocked by rule \*Spam links\* `spam-links`/);
    expect(textOf(forViewer)).toMatch(/Flagged by \d+ people?/);
    expect(textOf(viewerDetails)).toContain('`9003`');
    expect(
      actionButtons(forViewer)
        .map((b) => b.action_id)
        .filter((id) => id.startsWith(ACTIONS.moderationDecide)),
    ).toEqual([]);
    // Everything that reached Slack since the viewer's first command: replies, posts, views.
    const viewerPayloads = [
      ...h.slack.responses.slice(responsesBefore).map((r) => r.body),
      ...h.slack.calls.slice(callsBefore).map((c) => c.args),
    ];
    expect(viewerPayloads.length).toBeGreaterThanOrEqual(3);
    expect(leakedWords(viewerPayloads, words)).toEqual([]);
    // Nowhere in the log either, for anyone: no stretch of any text or remark.
    const logged = h.logs.text();
    expect(textFragments(h).length).toBeGreaterThan(10);
    expect(textFragments(h).filter((fragment) => logged.includes(fragment))).toEqual([]);
    h.checkAllPayloads();
  });

  it('approves a flagged message and keeps a blocked one blocked: one PATCH each, audited', async () => {
    const h = await withModerators();
    const approve = await review(h, 'U0MOD1', 'approve', '9002');
    expect(textOf(approve)).toContain('Approve message `9002`');
    const approved = await submitAs(h, driverAs(h, 'U0MOD1'), approve);
    expect(textOf(approved)).toContain('Applied to message `9002`');
    const keep = await review(h, 'U0MOD1', 'keep-blocked', '9102');
    const kept = await submitAs(h, driverAs(h, 'U0MOD1'), keep);
    expect(textOf(kept)).toContain('Applied to message `9102`');
    expect(decisions(h)).toEqual([
      { queue: 'flagged', id: '9002', body: { status: 'approved' } },
      { queue: 'blocked', id: '9102', body: { status: 'rejected', reviewed: true } },
    ]);
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records.map((r) => [r.userId, r.outcome, r.subject, r.changes])).toEqual([
      [
        'U0MOD1',
        'applied',
        {
          kind: 'message',
          id: '9102',
          queue: 'blocked',
          rule: { id: 'profanity', name: 'Profanity' },
        },
        [{ key: 'status', before: 'blocked', after: 'rejected', explicit: false }],
      ],
      [
        'U0MOD1',
        'applied',
        expect.objectContaining({
          kind: 'message',
          id: '9002',
          queue: 'flagged',
          reasons: expect.any(Array),
        }),
        [{ key: 'status', before: 'flagged', after: 'approved', explicit: false }],
      ],
    ]);
    // The records, and the audit list, name the message; never its text.
    expect(leakedWords(records, textWords(h))).toEqual([]);
    const trail = await commandReply(h, 'audit');
    expect(tableRecords(trail).map((row) => row.Message)).toEqual(['blocked 9102', 'flagged 9002']);
    expect(leakedWords(trail, textWords(h))).toEqual([]);
    // The queue no longer holds them; deciding one again changes nothing.
    expect(textOf(await queueAs(h, 'U0MOD1'))).toContain('11 messages waiting');
    const again = await submitAs(h, driverAs(h, 'U0MOD2'), approve);
    expect(textOf(again)).toMatch(/already submitted once|no longer waiting/);
    expect(decisions(h)).toHaveLength(2);
  });

  it('delivers a blocked message after a review that says it cannot be taken back; its record has no Revert', async () => {
    const h = await withModerators();
    const deliver = await review(h, 'U0MOD1', 'deliver', '9101');
    expect(textOf(deliver)).toContain('This cannot be taken back');
    const outcome = await submitAs(h, driverAs(h, 'U0MOD1'), deliver);
    expect(textOf(outcome)).toContain('Applied to message `9101`: the message is now delivered');
    expect(decisions(h)).toEqual([
      { queue: 'blocked', id: '9101', body: { status: 'approved', reviewed: true } },
    ]);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record?.changes).toEqual([
      { key: 'status', before: 'blocked', after: 'delivered', explicit: false },
    ]);
    const trail = await commandReply(h, 'audit');
    expect(
      actionButtons(trail).filter((b) => b.action_id.startsWith(ACTIONS.revertChange)),
    ).toEqual([]);
  });

  it("offers no Revert on a flagged message's decision, and says why when one is clicked", async () => {
    const h = await withModerators();
    const approve = await review(h, 'U0MOD1', 'approve', '9003');
    const noSecond = 'CometChat documents no way to decide a reviewed message again.';
    expect(textOf(approve)).toContain(`Its record has no _Revert_: ${noSecond}`);
    await submitAs(h, driverAs(h, 'U0MOD1'), approve);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({ outcome: 'applied', subject: { kind: 'message', id: '9003' } });
    const trail = await commandReply(h, 'audit', driverAs(h, 'U0MOD2'));
    expect(
      actionButtons(trail).filter((b) => b.action_id.startsWith(ACTIONS.revertChange)),
    ).toEqual([]);
    // A Revert as a post made before this version carried it: the sentence, and nothing sent.
    const actionId = `${ACTIONS.revertChange}:${record?.ref}`;
    const older = {
      blocks: [
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: actionId,
              value: signedTestValue(h, { revert: record?.ref }),
              text: { type: 'plain_text', text: 'Revert' },
            },
          ],
        },
      ],
    };
    const refused = await clickIntoModal(h, older, actionId, 'U0MOD2');
    expect(textOf(refused)).toContain(`${noSecond} Nothing was sent.`);
    expect(decisions(h).map((d) => [d.id, d.body])).toEqual([['9003', { status: 'approved' }]]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).records).toHaveLength(1);
  });

  it('decides five messages at once: five PATCHes, one audit record each', async () => {
    const h = await withModerators();
    const pick = await clickIntoModal(
      h,
      await queueAs(h, 'U0MOD1'),
      ACTIONS.moderationBulk,
      'U0MOD1',
    );
    const carried = JSON.parse(
      String(pick.private_metadata).slice(String(pick.private_metadata).indexOf('.') + 1),
    ) as {
      items: { m: string; q: string }[];
    };
    const five = carried.items
      .filter((item) => item.q === 'flagged')
      .slice(0, 5)
      .map((item) => item.m);
    expect(five).toHaveLength(5);
    const answer = await submitView(h, pick, {
      moderation_bulk_items: {
        items: { type: 'checkboxes', selected_options: five.map((value) => ({ value })) },
      },
      moderation_bulk_decision: {
        decision: { type: 'radio_buttons', selected_option: { value: 'block' } },
      },
    });
    expect(answer.response_action).toBe('update');
    const bulkReview = currentView(h, pick.id);
    expect(textOf(bulkReview)).toContain('Block 5 messages');
    const done = await submitAs(h, driverAs(h, 'U0MOD1'), bulkReview);
    for (const id of five) expect(textOf(done)).toContain(`\`${id}\`: decided (disapproved)`);
    expect(decisions(h).map((d) => [d.id, d.body])).toEqual(
      five.map((id) => [id, { status: 'disapproved' }]),
    );
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records.map((r) => (r.subject?.kind === 'message' ? r.subject.id : '')).sort()).toEqual(
      [...five].sort(),
    );
    // A second submission of the same review sends nothing again.
    await submitAs(h, driverAs(h, 'U0MOD1'), bulkReview);
    expect(decisions(h)).toHaveLength(5);
    h.checkAllPayloads();
  });

  it('says which were decided when CometChat fails part-way, and sends nothing after', async () => {
    const h = await withModerators();
    const pick = await clickIntoModal(
      h,
      await queueAs(h, 'U0MOD1'),
      ACTIONS.moderationBulk,
      'U0MOD1',
    );
    const carried = JSON.parse(
      String(pick.private_metadata).slice(String(pick.private_metadata).indexOf('.') + 1),
    ) as {
      items: { m: string; q: string }[];
    };
    const three = carried.items
      .filter((item) => item.q === 'flagged')
      .slice(0, 3)
      .map((item) => item.m);
    await submitView(h, pick, {
      moderation_bulk_items: {
        items: { type: 'checkboxes', selected_options: three.map((value) => ({ value })) },
      },
      moderation_bulk_decision: {
        decision: { type: 'radio_buttons', selected_option: { value: 'approve' } },
      },
    });
    h.sandbox.inject({
      kind: 'status',
      status: 400,
      method: 'PATCH',
      pathIncludes: `/flagged-messages/${three[1]}`,
    });
    const done = await submitAs(h, driverAs(h, 'U0MOD1'), currentView(h, pick.id));
    expect(textOf(done)).toContain(`\`${three[0]}\`: decided (approved)`);
    expect(textOf(done)).toContain(`\`${three[1]}\`: not decided`);
    expect(textOf(done)).toContain(
      `\`${three[2]}\`: not sent (the batch stopped at the failure above)`,
    );
    expect(decisions(h).map((d) => d.id)).toEqual([three[0], three[1]]);
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records.map((r) => r.outcome).sort()).toEqual(['applied', 'failed']);
  });

  it('sends one PATCH when two moderators decide the same message at once', async () => {
    const h = await withModerators();
    const first = await review(h, 'U0MOD1', 'block', '9004');
    const second = await review(h, 'U0MOD2', 'approve', '9004');
    const [a, b] = await Promise.all([
      submitAs(h, driverAs(h, 'U0MOD1'), first),
      submitAs(h, driverAs(h, 'U0MOD2'), second),
    ]);
    expect(decisions(h).filter((d) => d.id === '9004')).toHaveLength(1);
    const texts = [textOf(a), textOf(b)];
    expect(texts.filter((t) => t.includes('Applied to message `9004`'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('no longer waiting'))).toHaveLength(1);
    expect((await store.listAudit({ offset: 0, limit: 10 })).records).toHaveLength(1);
  });

  it('refuses a moderator the setting does not name (an editor here), in one sentence, sending nothing', async () => {
    const h = await withModerators();
    const queue = await queueAs(h, 'U0MOD1');
    const forged = actionButtons(queue).find(
      (b) => b.action_id === `${ACTIONS.moderationDecide}:approve:9001`,
    );
    const editor = driverAs(h, 'U0OPERATOR');
    const mark = h.slack.responses.length;
    await editor.interaction(
      editor.blockAction({
        actionId: forged?.action_id ?? '',
        value: forged?.value ?? '',
        responseUrl: h.slack.responseUrl(),
      }),
    );
    const refused = (await h.slack.nextResponse(mark)).body;
    expect(textOf(refused)).toContain(
      "Only the people listed in the app's MODERATORS setting may review flagged and blocked messages",
    );
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toEqual([]);
    // A review submitted by them anyway (made by a moderator, replayed) is refused when sent.
    const made = await review(h, 'U0MOD1', 'approve', '9001');
    const outcome = await submitAs(h, editor, made);
    expect(textOf(outcome)).toContain("app's MODERATORS setting");
    expect(decisions(h)).toEqual([]);
    // The editor sees the queue as a viewer does.
    expect(leakedWords(await queueAs(h, 'U0OPERATOR'), textWords(h))).toEqual([]);
  });

  it('shows a moderator how many messages wait on the Home tab, and nobody else', async () => {
    const h = await withModerators();
    /** The tabs published for `user` once they open it, after the first that says `want`. */
    const homeOf = async (user: string, want: string) => {
      const driver = driverAs(h, user);
      const mark = h.slack.calls.length;
      await driver.event(driver.homeOpened());
      const published = () =>
        h.slack.calls
          .slice(mark)
          .filter((c) => c.method === 'views.publish' && c.args.user_id === user);
      await h.slack.waitFor(() => published().find((c) => textOf(c.args.view).includes(want)));
      return published().map((c) => textOf(c.args.view));
    };
    const forModerator = await homeOf('U0MOD1', 'wait for moderation');
    expect(forModerator.at(-1)).toContain(
      '13 messages* wait for moderation: `/cometchat moderation`',
    );
    // The editor who does not moderate: the tab drawn in full (its recent changes), no count.
    const forEditor = await homeOf('U0OPERATOR', 'Recent permission changes');
    expect(forEditor.join('\n')).not.toContain('wait for moderation');
  });

  it('refuses an unknown message id in one sentence', async () => {
    const h = await withModerators();
    expect(textOf(await commandReply(h, 'moderation 424242', driverAs(h, 'U0MOD1')))).toContain(
      'Message `424242` is no longer waiting for a decision: it was decided already, or there is no such message',
    );
    expect(decisions(h)).toEqual([]);
  });

  it('waits for a second moderator where MODERATION_APPROVAL asks', async () => {
    const h = await withModerators({ APPROVAL_CHANNEL: CHANNEL, MODERATION_APPROVAL: 'true' });
    const asked = await review(h, 'U0MOD1', 'block', '9005');
    expect(textOf(asked)).toContain(`<#${CHANNEL}>`);
    const mark = h.slack.calls.length;
    const requested = await submitAs(h, driverAs(h, 'U0MOD1'), asked);
    expect(textOf(requested)).toContain('Approval requested');
    const post = await h.slack.nextCall('chat.postMessage', mark);
    expect(post.args.channel).toBe(CHANNEL);
    expect(leakedWords(post.args, textWords(h))).toEqual([]);
    expect(decisions(h)).toEqual([]);
    // `/cometchat approvals` lists it to the other moderator, not to an editor who does not moderate.
    const listed = async (user: string) =>
      textOf(await commandReply(h, 'approvals', driverAs(h, user)));
    expect(await listed('U0MOD2')).toContain('message `9005`');
    expect(await listed('U0OPERATOR')).toContain('No open request is waiting for you.');
    const posted = { ts: '1700000000.000300', blocks: post.args.blocks as unknown[] };
    const click = async (user: string) => {
      const button = actionButtons(posted).find((b) => b.action_id === ACTIONS.approveChange);
      const driver = driverAs(h, user);
      const before = h.slack.responses.length;
      await driver.interaction(
        driver.blockAction({
          actionId: ACTIONS.approveChange,
          value: button?.value ?? '',
          responseUrl: h.slack.responseUrl(),
          message: posted,
        }),
      );
      return before;
    };
    // The requester, and an editor who does not moderate, may not approve it.
    const own = await click('U0MOD1');
    expect(textOf((await h.slack.nextResponse(own)).body)).toContain('another person must approve');
    const editor = await click('U0OPERATOR');
    expect(textOf((await h.slack.nextResponse(editor)).body)).toContain(
      'may approve moderation decisions',
    );
    expect(decisions(h)).toEqual([]);
    const updates = h.slack.calls.length;
    await click('U0MOD2');
    await h.slack.nextCall('chat.update', updates);
    expect(decisions(h)).toEqual([
      { queue: 'flagged', id: '9005', body: { status: 'disapproved' } },
    ]);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: 'U0MOD1',
      approval: { approvedBy: 'U0MOD2' },
      subject: { kind: 'message', id: '9005' },
    });
  });
});
