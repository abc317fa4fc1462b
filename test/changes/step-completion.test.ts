import type { WebClient } from '@slack/web-api';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { approvalRecord } from '../../src/changes/request.ts';
import { completeStep, stepCompletion } from '../../src/changes/step-completion.ts';
import type { ApprovalRequest } from '../../src/store/store.ts';

// How a decided request a workflow step made ends that step: decided without Slack.

const STEP = { executionId: 'Fx0001', callbackId: 'change_cometchat_user_role' };

const request: ApprovalRequest = {
  id: 'a'.repeat(24),
  app: 'prod',
  role: 'premium',
  subject: { kind: 'user', uid: 'alice' },
  changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
  teamId: 'T1',
  requester: 'U0OPERATOR',
  requestedAt: 1_000,
  expiresAt: 9_000,
  channel: 'C0APPROVE',
  status: 'open',
  workflowStep: STEP,
};
const decided = { ...request, decidedBy: 'U0LEAD', decidedAt: 2_000 };

describe('stepCompletion', () => {
  it('leaves an open request, and a request a person made, alone', () => {
    expect(stepCompletion(request)).toBeUndefined();
    const { workflowStep: _, ...byPerson } = { ...decided, status: 'applied' as const };
    expect(stepCompletion(byPerson)).toBeUndefined();
  });

  it('completes an applied request with the outcome, its reference and the approver', () => {
    expect(stepCompletion({ ...decided, status: 'applied', ref: 'r1' })).toEqual({
      kind: 'success',
      outputs: { outcome: 'applied', reference: 'r1', approver: 'U0LEAD' },
    });
  });

  it('ends the step with one sentence for every other outcome', () => {
    const errors = (['rejected', 'expired', 'stale', 'failed', 'unknown'] as const).map((status) =>
      stepCompletion({ ...decided, status, ref: 'r2', rejectReason: 'not today' }),
    );
    expect(errors).toEqual([
      { kind: 'error', error: 'The change was rejected by U0LEAD: not today. Nothing was sent.' },
      {
        kind: 'error',
        error: 'The approval request expired before anyone decided it. Nothing was sent.',
      },
      { kind: 'error', error: expect.stringContaining('changed in CometChat after the step') },
      {
        kind: 'error',
        error:
          'The change was approved by U0LEAD but CometChat did not take it (reference r2). See /cometchat audit.',
      },
      { kind: 'error', error: expect.stringContaining('is not known (reference r2)') },
    ]);
  });

  it('keeps a long rejection reason within the sentence Slack shows', () => {
    const long = stepCompletion({ ...decided, status: 'rejected', rejectReason: 'x'.repeat(3000) });
    expect(long?.kind === 'error' && long.error.length).toBeLessThanOrEqual(500);
  });
});

describe('approvalRecord', () => {
  it("keeps the step's run on the request it made, and none on a person's", () => {
    const input = {
      app: { name: 'prod', approval: { channel: 'C0APPROVE', ttlMs: 60_000 } },
      change: {
        kind: 'user-role' as const,
        uid: 'alice',
        role: 'premium',
        id: 'b'.repeat(24),
        changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
      },
      known: undefined,
      userId: 'U0OPERATOR',
      teamId: 'T1',
      reason: undefined,
      now: 1_000,
    };
    expect(approvalRecord({ ...input, workflowStep: STEP }).workflowStep).toEqual(STEP);
    expect(approvalRecord(input)).not.toHaveProperty('workflowStep');
  });
});

describe('completeStep', () => {
  const log = pino({ level: 'silent' });
  const fakeClient = (fail?: Error) => {
    const calls: [string, unknown][] = [];
    const answer = (method: string) => async (args: unknown) => {
      calls.push([method, args]);
      if (fail) throw fail;
      return { ok: true };
    };
    const client = {
      functions: {
        completeSuccess: answer('completeSuccess'),
        completeError: answer('completeError'),
      },
    } satisfies { functions: Partial<WebClient['functions']> };
    return { calls, client: client as unknown as WebClient };
  };

  it("completes the step's run by its execution id", async () => {
    const { calls, client } = fakeClient();
    await completeStep(client, log, { ...decided, status: 'applied', ref: 'r1' });
    await completeStep(client, log, { ...decided, status: 'expired' });
    expect(calls).toEqual([
      [
        'completeSuccess',
        {
          function_execution_id: 'Fx0001',
          outputs: { outcome: 'applied', reference: 'r1', approver: 'U0LEAD' },
        },
      ],
      [
        'completeError',
        { function_execution_id: 'Fx0001', error: expect.stringContaining('expired') },
      ],
    ]);
  });

  it('sends nothing for an open request, and never throws when Slack refuses', async () => {
    const open = fakeClient();
    await completeStep(open.client, log, request);
    expect(open.calls).toEqual([]);
    const refused = fakeClient(new Error('execution_not_in_running_state'));
    await expect(
      completeStep(refused.client, log, { ...decided, status: 'rejected' }),
    ).resolves.toBeUndefined();
    expect(refused.calls).toHaveLength(1);
  });
});
