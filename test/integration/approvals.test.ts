import { describe, expect, it } from 'vitest';
import { submitView } from '../../offline/stack/editor-steps.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { click, dmTo, ENV, request, updated } from './approval-steps.ts';
import {
  actionButtons,
  commandReply,
  signedJson,
  signedTestValue,
  tableRecords,
  textOf,
} from './harness.ts';
import { driverAs, puts, reviewFlip, useHarnessStarter, useReplicas } from './support.ts';

// Two pairs of eyes through the real app: with an approval channel, the editor asks, another
// editor approves (one update, one audit record naming both) or rejects; every click is checked
// when it comes.

describe('approvals', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withApprovals = async (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...ENV, ...env } });
  };

  it("shows the approver the store's before, whatever a forged confirmation says", async () => {
    const h = await withApprovals();
    const { confirmation } = await reviewFlip(h);
    // Forged and signed as the app signs (only the checks on the server then stand in its
    // way): claim every key is already at its new value.
    const meta = signedJson(confirmation.private_metadata) as {
      changes: { before?: unknown; after: unknown; explicit: boolean }[];
    };
    for (const change of meta.changes)
      Object.assign(change, { before: change.after, explicit: true });
    const mark = h.slack.calls.length;
    await submitView(
      h,
      { ...confirmation, private_metadata: signedTestValue(h, meta) },
      {
        approval_reason: { reason: { type: 'plain_text_input', value: 'forged' } },
      },
    );
    const post = await h.slack.nextCall('chat.postMessage', mark);
    expect(textOf(post.args)).toContain('sendMessage');
    expect(textOf(post.args)).not.toContain('unchanged');
    // The request is stored after it is posted: the editor says so once it is.
    const done = await h.slack.nextCall('views.update', mark);
    expect(textOf(done.args.view)).toContain('Approval requested');
    const [stored] = await store.listOpenApprovals();
    expect(stored?.changes.map((c) => c.explicit)).toEqual([false]);
    expect(stored?.changes[0]?.before).not.toEqual(stored?.changes[0]?.after);
  });

  it('requests nothing when the role changed between review and request', async () => {
    const h = await withApprovals();
    const { confirmation } = await reviewFlip(h);
    // Another change was applied meanwhile (through another app instance, say).
    await store.setKnownPermissions({
      app: 'default',
      role: 'default',
      permissions: { sendMessage: 'deny' },
      seenAt: Date.now(),
    });
    const mark = h.slack.calls.length;
    const answer = await submitView(h, confirmation, {
      approval_reason: { reason: { type: 'plain_text_input', value: 'late' } },
    });
    expect(answer.response_action).toBe('update');
    const done = await h.slack.nextCall('views.update', mark);
    expect(textOf(done.args.view)).toContain('changed since you reviewed this');
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'chat.postMessage')).toEqual([]);
    expect(await store.listOpenApprovals()).toEqual([]);
  });

  it('applies a change once another editor approves it, recording both', async () => {
    const h = await withApprovals();
    const posted = await request(h);
    expect(posted.text).toContain('<@U0OPERATOR> asks');
    expect(posted.text).toContain('ticket 42');
    expect(puts(h)).toEqual([]);
    const mark = h.slack.calls.length;
    await click(h, driverAs(h, 'U0LEAD'), posted, ACTIONS.approveChange);
    expect(await updated(h, mark)).toContain('Approved by <@U0LEAD> and applied');
    expect(puts(h)).toHaveLength(1);
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      approval: { approvedBy: 'U0LEAD', reason: 'ticket 42' },
    });
    expect(records[0]?.approval?.requestedAt).toBeLessThanOrEqual(
      records[0]?.approval?.approvedAt ?? 0,
    );
    expect(await dmTo(h, 'U0OPERATOR', 'Approved by <@U0LEAD>')).toContain('applied');
    // The trail names the second pair of eyes.
    const [trail] = tableRecords(await commandReply(h, 'audit'));
    expect(trail?.Who).toBe('@U0OPERATOR (approved by @U0LEAD)');
    // A second click changes nothing.
    const again = h.slack.responses.length;
    await click(h, driverAs(h, 'U0LEAD2'), posted, ACTIONS.approveChange);
    expect(textOf((await h.slack.nextResponse(again)).body)).toContain('already closed');
    expect(puts(h)).toHaveLength(1);
  });

  it('refuses the requester, a non-editor and a request it does not know, sending nothing', async () => {
    const h = await withApprovals();
    const posted = await request(h);
    for (const [user, said] of [
      ['U0OPERATOR', 'You asked for this change'],
      ['U0STRANGER', 'may approve permission changes'],
    ] as const) {
      const mark = h.slack.responses.length;
      await click(h, driverAs(h, user), posted, ACTIONS.approveChange);
      expect(textOf((await h.slack.nextResponse(mark)).body)).toContain(said);
    }
    const forged = h.slack.responses.length;
    await driverAs(h, 'U0LEAD').interaction(
      driverAs(h, 'U0LEAD').blockAction({
        actionId: ACTIONS.approveChange,
        value: signedTestValue(h, { id: 'f'.repeat(24) }),
        responseUrl: h.slack.responseUrl(),
        message: { ts: posted.ts, blocks: posted.blocks },
      }),
    );
    expect(textOf((await h.slack.nextResponse(forged)).body)).toContain('out of date or unknown');
    expect(puts(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
  });

  it('lets APPROVERS narrow who of the editors may approve', async () => {
    const h = await withApprovals({ APPROVERS: 'U0LEAD2,U0OUTSIDER' });
    const posted = await request(h);
    for (const [user, said] of [
      ['U0LEAD', 'APPROVERS setting may approve permission changes'],
      ['U0OUTSIDER', 'EDITORS setting may approve permission changes'],
    ] as const) {
      const mark = h.slack.responses.length;
      await click(h, driverAs(h, user), posted, ACTIONS.approveChange);
      expect(textOf((await h.slack.nextResponse(mark)).body)).toContain(said);
    }
    expect(puts(h)).toEqual([]);
    const mark = h.slack.calls.length;
    await click(h, driverAs(h, 'U0LEAD2'), posted, ACTIONS.approveChange);
    expect(await updated(h, mark)).toContain('Approved by <@U0LEAD2> and applied');
    expect(puts(h)).toHaveLength(1);
  });

  it('sends nothing for a stale request or an expired one, and says so in the channel', async () => {
    const h = await withApprovals();
    const stale = await request(h);
    // Someone else applied a change to the role meanwhile.
    await store.setKnownPermissions({
      app: 'default',
      role: 'default',
      permissions: {},
      seenAt: Date.now(),
    });
    let mark = h.slack.calls.length;
    await click(h, driverAs(h, 'U0LEAD'), stale, ACTIONS.approveChange);
    expect(await updated(h, mark)).toContain('The role changed since this request was made');
    expect(await dmTo(h, 'U0OPERATOR', 'The role changed')).toContain('Ask again');

    expect(await store.listOpenApprovals()).toEqual([]);
    await request(h, 'second try');
    const [second] = await store.listOpenApprovals();
    if (!second) throw new Error('no second request');
    await store.putApproval({ ...second, expiresAt: Date.now() - 1 });
    mark = h.slack.calls.length;
    const replies = h.slack.responses.length;
    const lead = driverAs(h, 'U0LEAD');
    await lead.interaction(
      lead.blockAction({
        actionId: ACTIONS.approveChange,
        value: signedTestValue(h, { id: second.id }),
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000400', blocks: stale.blocks },
      }),
    );
    expect(textOf((await h.slack.nextResponse(replies)).body)).toContain('expired');
    expect(await updated(h, mark)).toContain('Expired');
    expect(await dmTo(h, 'U0OPERATOR', 'Expired')).toContain('nothing was sent');
    expect(puts(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
  });

  it('shows a failure with its reference, and an approver retries it once', async () => {
    const h = await withApprovals();
    const posted = await request(h);
    h.sandbox.inject({ kind: 'status', status: 403, method: 'PUT', times: 1 });
    let mark = h.slack.calls.length;
    await click(h, driverAs(h, 'U0LEAD'), posted, ACTIONS.approveChange);
    const failed = await h.slack.nextCall('chat.update', mark);
    expect(textOf(failed.args)).toContain('CometChat did not apply it');
    expect(textOf(failed.args)).toMatch(/ref `[^`]+`/);
    expect(await dmTo(h, 'U0OPERATOR', 'did not apply')).toContain('An approver may retry');
    const retry = actionButtons(failed.args).find((b) => b.text.text === 'Retry');
    expect(retry?.action_id).toBe(ACTIONS.approveChange);
    // The requester still may not push it through.
    const own = h.slack.responses.length;
    const failedPost = { ts: posted.ts, blocks: failed.args.blocks as unknown[], text: '' };
    await click(h, driverAs(h, 'U0OPERATOR'), failedPost, ACTIONS.approveChange);
    expect(textOf((await h.slack.nextResponse(own)).body)).toContain('You asked for this change');
    mark = h.slack.calls.length;
    await click(h, driverAs(h, 'U0LEAD2'), failedPost, ACTIONS.approveChange);
    expect(await updated(h, mark)).toContain('Approved by <@U0LEAD2> and applied');
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records.map((r) => [r.outcome, r.approval?.approvedBy])).toEqual([
      ['applied', 'U0LEAD2'],
      ['failed', 'U0LEAD'],
    ]);
    expect(puts(h)).toHaveLength(2);
  });

  it('rejects with a reason, and tells the requester', async () => {
    const h = await withApprovals();
    const posted = await request(h);
    const lead = driverAs(h, 'U0LEAD');
    const mark = h.slack.calls.length;
    await click(h, lead, posted, ACTIONS.rejectChange);
    await h.slack.nextCall('views.open', mark);
    const modal = [...h.slack.views.values()].at(-1);
    if (!modal) throw new Error('no reason modal');
    const empty = await lead.interaction(lead.viewSubmission({ view: modal, values: {} }));
    expect(JSON.parse(empty.body || '{}')).toMatchObject({ response_action: 'errors' });
    await lead.interaction(
      lead.viewSubmission({
        view: modal,
        values: {
          reject_reason: { reason: { type: 'plain_text_input', value: 'not before Monday' } },
        },
      }),
    );
    expect(await updated(h, mark)).toContain('Rejected by <@U0LEAD>');
    expect(await dmTo(h, 'U0OPERATOR', 'Rejected by <@U0LEAD>')).toContain('not before Monday');
    expect(puts(h)).toEqual([]);
  });

  it('lists the open requests a person may act on, with buttons that work from the list', async () => {
    const h = await withApprovals();
    await request(h, 'for the list');
    const list = async (user: string) => commandReply(h, 'approvals', driverAs(h, user));
    const forLead = await list('U0LEAD');
    expect(textOf(forLead)).toContain('<@U0OPERATOR>: 1 change to `default`');
    expect(textOf(forLead)).toContain('for the list');
    // The requester may not act on their own request; a non-editor on none.
    expect(textOf(await list('U0OPERATOR'))).toContain('No open request is waiting for you.');
    expect(textOf(await list('U0STRANGER'))).toContain('No open request is waiting for you.');
    const mark = h.slack.calls.length;
    await click(
      h,
      driverAs(h, 'U0LEAD'),
      { ts: '1.1', blocks: forLead.blocks as unknown[], text: '' },
      ACTIONS.approveChange,
    );
    expect(await updated(h, mark)).toContain('Approved by <@U0LEAD> and applied');
    expect(puts(h)).toHaveLength(1);
  });

  it('applies directly, as always, when no approval channel is set', async () => {
    const h = await start({ env: { EDITORS: 'U0OPERATOR' } });
    const { confirmation } = await reviewFlip(h);
    expect(textOf(confirmation)).toContain('Apply');
    expect(textOf(confirmation)).not.toContain('Request approval');
  });
});

describe.skipIf(skipRedisSuites)(
  'approvals on two replicas sharing Redis',
  { tags: ['redis'] },
  () => {
    const redis = useRedisServer();
    const replicas = useReplicas();

    it('applies once when two approvers click at the same moment on two replicas', async () => {
      const [a, b] = await replicas({ ...ENV, STORE_URL: redis().url });
      const posted = await request(a);
      a.sandbox.setLatency(300);
      await Promise.all([
        click(a, driverAs(a, 'U0LEAD'), posted, ACTIONS.approveChange),
        click(b, driverAs(b, 'U0LEAD2'), posted, ACTIONS.approveChange),
      ]);
      await a.slack.waitFor(() => a.slack.calls.find((c) => c.method === 'chat.update'), 8_000);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(puts(a)).toHaveLength(1);
      const shared = await openStore(redis().url);
      try {
        const audit = await shared.listAudit({ offset: 0, limit: 10 });
        expect(audit.records.map((r) => r.outcome)).toEqual(['applied']);
      } finally {
        await shared.close();
      }
    });
  },
);
