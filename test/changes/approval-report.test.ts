import { describe, expect, it } from 'vitest';
import { approvalReport, requestChange } from '../../src/changes/decide.ts';
import { CometChatError } from '../../src/cometchat/errors.ts';
import { failureSentence } from '../../src/replies/failure.ts';
import type { ApprovalRequest } from '../../src/store/store.ts';

/** What the failure sentences are given: the budget they mention, and no secrets. */
const SENTENCE_DEPS = { budgetSeconds: 8, secrets: [] };

// What an approved attempt comes to, without Slack or a store: what the channel and the
// requester are shown, what only the approver is told, and when the acting claim is let go.

const request: ApprovalRequest = {
  id: 'a'.repeat(24),
  app: 'prod',
  role: 'default',
  changes: [
    { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
    { key: 'joinGroup', before: null, after: 'deny', explicit: false },
  ],
  seenAt: 5_000,
  teamId: 'T1',
  requester: 'U0OPERATOR',
  requestedAt: 1_000,
  expiresAt: 9_000,
  channel: 'C0APPROVE',
  status: 'open',
};
const decided = { decidedBy: 'U0LEAD', decidedAt: 2_000 };
const report = (outcome: Parameters<typeof approvalReport>[0]) =>
  approvalReport(outcome, request, decided, 'ref0000001', {
    failureSentence: (error) => failureSentence(error, SENTENCE_DEPS),
  });

describe('approvalReport', () => {
  it("closes an applied request as applied, by the approver, with CometChat's messages", () => {
    const applied = report({
      kind: 'applied',
      update: {
        permissions: { sendMessage: 'deny' },
        results: { sendMessage: { success: true, message: 'updated' } },
      },
      audited: true,
    });
    expect(applied).toEqual({
      announce: { ...request, ...decided, status: 'applied', ref: 'ref0000001' },
      detail: ':white_check_mark: *Message Sending* (`sendMessage`): updated',
      release: false,
    });
  });

  it('adds no detail when CometChat added no messages', () => {
    const applied = report({
      kind: 'applied',
      update: { permissions: {}, results: {} },
      audited: true,
    });
    expect('announce' in applied && applied.detail).toBeUndefined();
  });

  it('marks a failed or unknown attempt so, with the failure and its reference, and lets it go', () => {
    const error = new CometChatError({
      kind: 'unavailable',
      ref: 'r',
      operation: 'setRolePermissions',
    });
    for (const kind of ['failed', 'unknown'] as const) {
      expect(report({ kind, error, audited: true })).toEqual({
        announce: { ...request, ...decided, status: kind, ref: 'ref0000001' },
        detail: `${failureSentence(error, SENTENCE_DEPS)} (ref \`ref0000001\`)`,
        release: true,
      });
    }
  });

  it('keeps the claim of a change applied before, telling only the approver', () => {
    expect(report({ kind: 'repeated' })).toEqual({
      tell: 'This change was already applied once; it was not sent again.',
      release: false,
    });
  });

  it('lets the claim go when nothing was sent, telling the approver why', () => {
    expect(report({ kind: 'refused', sentence: 'Only editors.' })).toEqual({
      tell: 'Only editors.',
      release: true,
    });
    expect(report({ kind: 'not-sent', error: new Error('x'), sentence: 'Nothing.' })).toEqual({
      tell: 'Nothing. (ref ref0000001)',
      release: true,
    });
  });
});

describe('requestChange', () => {
  it('is the confirmation the editor would have applied: same id, role, keys and seenAt', () => {
    expect(requestChange(request, 'prod')).toEqual({
      kind: 'permissions',
      role: 'default',
      id: request.id,
      changes: [
        { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
        { key: 'joinGroup', before: undefined, after: 'deny', explicit: false },
      ],
      seenAt: 5_000,
    });
  });

  it('names the change it was promoted from, in this app', () => {
    expect(requestChange({ ...request, promotedFrom: 'ref0000009' }, 'prod').promotedFrom).toEqual({
      app: 'prod',
      ref: 'ref0000009',
    });
  });
});
