import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  approvalMessage,
  approvalsList,
  outcomeLine,
  outcomeNotice,
  REJECT_BLOCK,
  REJECT_INPUT,
  rejectReasonView,
  requestLine,
} from '../../src/changes/approval-view.ts';
import { MAX_REASON } from '../../src/changes/views.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import type { ApprovalRequest } from '../../src/store/store.ts';

// An approval request as Slack shows it, in each state: pure, no Slack, no service.

const request: ApprovalRequest = {
  id: 'a'.repeat(24),
  app: 'prod',
  role: 'default',
  changes: [
    { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
    { key: 'joinGroup', before: null, after: 'deny', explicit: false },
  ],
  seenAt: 1_000,
  teamId: 'T0TEAM',
  requester: 'U0OPERATOR',
  reason: 'ticket <42> & *now*',
  requestedAt: 1_700_000_000_000,
  expiresAt: 1_700_086_400_000,
  channel: 'C0APPROVE',
  status: 'open',
};

const textOf = (blocks: readonly KnownBlock[]) => JSON.stringify(blocks);
const buttonsOf = (blocks: readonly KnownBlock[]) =>
  blocks.flatMap((b) =>
    b.type === 'actions'
      ? b.elements.flatMap((e) =>
          e.type === 'button' ? [{ text: e.text.text, action: e.action_id }] : [],
        )
      : [],
  );

describe('approvalMessage', () => {
  it('shows who asks, why (escaped), each key before and after, the expiry and both buttons', () => {
    const { blocks, text } = approvalMessage(request, { appName: 'prod' });
    const shown = textOf(blocks ?? []);
    expect(shown).toContain('<@U0OPERATOR> asks to apply 2 changes to `default` in *prod*');
    expect(shown).toContain('ticket &lt;42&gt; &amp;');
    expect(shown).not.toContain('<42>');
    expect(shown).toContain('sendMessage');
    expect(shown).toContain('joinGroup');
    expect(shown).toContain('<!date^1700086400^');
    expect(buttonsOf(blocks ?? [])).toEqual([
      { text: 'Approve', action: ACTIONS.approveChange },
      { text: 'Reject', action: ACTIONS.rejectChange },
    ]);
    expect(text).toContain('(open)');
  });

  it("tells the approver of a role's deletion how many users hold the role, as the review did", () => {
    const deletion: ApprovalRequest = {
      ...request,
      role: 'vip',
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
      holders: 3,
    };
    const shown = (r: ApprovalRequest) => textOf(approvalMessage(r).blocks ?? []);
    expect(shown(deletion)).toContain(
      '<@U0OPERATOR> asks to delete role `vip`. 3 users hold it (deactivated ones included).',
    );
    expect(shown({ ...deletion, holders: 0 })).toContain('No user holds it.');
    // Kept through every update of the message: approved, failed, rejected.
    expect(shown({ ...deletion, status: 'applied', decidedBy: 'U0LEAD' })).toContain(
      '3 users hold it',
    );
    const { holders: _, ...unread } = deletion;
    expect(shown(unread)).toContain('How many users hold it could not be read.');
    // Only a deletion says it.
    expect(shown({ ...request, holders: 3 })).not.toContain('hold it');
    expect(
      shown({ ...deletion, subject: { kind: 'role', action: 'update' }, holders: undefined }),
    ).not.toContain('hold it');
  });

  it('tells the approver that a change reverts an earlier one, naming its ref', () => {
    const shown = (r: ApprovalRequest) => textOf(approvalMessage(r).blocks ?? []);
    expect(shown({ ...request, reverts: 'a1b2c3d4e5' })).toContain(
      'reverts the change with ref `a1b2c3d4e5`',
    );
    expect(shown(request)).not.toContain('reverts');
  });

  it('offers Retry after a failure, and no button once the request has ended', () => {
    const failed = approvalMessage({ ...request, status: 'failed', decidedBy: 'U0LEAD' });
    expect(buttonsOf(failed.blocks ?? [])).toEqual([
      { text: 'Retry', action: ACTIONS.approveChange },
    ]);
    for (const status of ['applied', 'rejected', 'expired', 'stale'] as const) {
      expect(buttonsOf(approvalMessage({ ...request, status }).blocks ?? [])).toEqual([]);
    }
  });

  it('adds the outcome detail, and stays within 50 blocks for a change of every key', () => {
    const changes = Array.from({ length: 400 }, (_, i) => ({
      key: `key${i}`,
      before: 'allow',
      after: 'deny',
      explicit: false,
    }));
    const { blocks } = approvalMessage(
      { ...request, changes, status: 'failed' },
      { detail: 'CometChat refused it (ref `abc`)' },
    );
    expect(blocks?.length).toBeLessThanOrEqual(50);
    expect(textOf(blocks ?? [])).toContain('key399');
    expect(buttonsOf(blocks ?? [])).toEqual([{ text: 'Retry', action: ACTIONS.approveChange }]);
    const small = approvalMessage(request, { detail: 'sendMessage: updated' });
    expect(textOf(small.blocks ?? [])).toContain('sendMessage: updated');
  });

  it('shows role ids as code a reader can copy, and still escapes the reason', () => {
    const roles = approvalMessage({
      ...request,
      reason: 'for *beta_testers*',
      changes: [
        {
          key: 'sendMessage.allowedReceiverRoles',
          before: ['admin'],
          after: ['admin', 'beta_tester'],
          explicit: false,
        },
      ],
    });
    const shown = textOf(roles.blocks ?? []);
    expect(shown).toContain('+`beta_tester` _(now `admin`, `beta_tester`)_');
    expect(shown).not.toMatch(/\u200B_\u200Btester`/);
    expect(shown).toContain('for \u200B*\u200Bbeta\u200B_\u200Btesters\u200B*\u200B');

    const user = approvalMessage({
      ...request,
      subject: { kind: 'user', uid: 'cometchat-uid_1' },
      changes: [{ key: 'role', before: 'beta_tester', after: 'super_admin', explicit: false }],
    });
    const line = textOf(user.blocks ?? []);
    expect(line).toContain('user `cometchat-uid_1`');
    expect(line).toContain('`role`: `beta_tester` → *`super_admin`*');
  });
});

describe('outcomeLine', () => {
  it('names who decided and what became of the request', () => {
    const decided = { decidedBy: 'U0LEAD', decidedAt: 1_700_000_100_000 };
    expect(outcomeLine({ ...request, ...decided, status: 'applied' })).toContain(
      'Approved by <@U0LEAD> and applied',
    );
    expect(
      outcomeLine({ ...request, ...decided, status: 'rejected', rejectReason: 'not <now>' }),
    ).toContain('Rejected by <@U0LEAD> <!date^1700000100^{date_short_pretty} {time}|');
    expect(
      outcomeLine({ ...request, ...decided, status: 'rejected', rejectReason: 'not <now>' }),
    ).toContain('not &lt;now&gt;');
    expect(outcomeLine({ ...request, status: 'stale' })).toContain('The role changed');
    expect(outcomeLine({ ...request, status: 'expired' })).toContain('nothing was sent');
  });

  it('tells the requester by the same line, naming the app when there are several', () => {
    const notice = outcomeNotice({ ...request, status: 'expired' }, 'prod');
    expect(notice.text).toContain('Your request to change `default` in *prod*');
    expect(notice.text).toContain('Expired');
  });
});

describe('approvalsList', () => {
  it('says when nothing waits, and counts what it does not show', () => {
    expect(textOf(approvalsList([]).blocks ?? [])).toContain('No open request is waiting for you.');
    const entries = Array.from({ length: 23 }, (_, i) => ({
      request: { ...request, id: String(i).padStart(24, '0') },
      value: `{"id":"${i}"}`,
    }));
    const list = approvalsList(entries);
    expect(list.text).toBe('23 approval requests waiting for you');
    expect(buttonsOf(list.blocks ?? [])).toHaveLength(40);
    expect(textOf(list.blocks ?? [])).toContain('3 more not shown');
    expect(list.blocks?.length).toBeLessThanOrEqual(50);
  });
});

describe('rejectReasonView', () => {
  it('asks the reason for the requester, in the form its submission reads, carrying the request', () => {
    const view = rejectReasonView(request, 'signed-id');
    expect(view).toMatchObject({
      type: 'modal',
      callback_id: CALLBACKS.rejectReason,
      private_metadata: 'signed-id',
      submit: { text: 'Reject' },
    });
    expect(JSON.stringify(view.blocks)).toContain(
      'Reject the change to `default` asked by <@U0OPERATOR>?',
    );
    const input = view.blocks.find((b) => b.type === 'input');
    expect(input).toMatchObject({
      block_id: REJECT_BLOCK,
      // Required: a rejection says why.
      element: { type: 'plain_text_input', action_id: REJECT_INPUT, max_length: MAX_REASON },
    });
    expect(input && 'optional' in input && input.optional).toBeFalsy();
  });
});

describe('requestLine', () => {
  it('names the user a request is about, and each key from before to after', () => {
    const line = requestLine(
      {
        ...request,
        role: 'default',
        subject: { kind: 'user', uid: 'cometchat-uid-4' },
        changes: [{ key: 'status', before: 'active', after: 'deactivated', explicit: false }],
      },
      undefined,
      3,
    );
    expect(line).toBe('user `cometchat-uid-4`: `status` `active` → `deactivated`');
  });

  it('counts a role change and shows its first keys', () => {
    const changes = ['a', 'b', 'c', 'd'].map((key) => ({
      key,
      before: 'allow',
      after: 'deny',
      explicit: false,
    }));
    expect(requestLine({ ...request, role: 'beta_tester', changes }, 'prod', 3)).toBe(
      '4 changes to `beta_tester` in *prod* (`a`, `b`, `c`, …)',
    );
  });
});
