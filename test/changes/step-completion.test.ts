import type { WebClient } from '@slack/web-api';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CometChatApp } from '../../src/apps/apps.ts';
import { approvalRecord } from '../../src/changes/request.ts';
import {
  appGoneSentence,
  completeStep,
  GIVE_UP_AFTER_MS,
  outputsRefused,
  stepCompletion,
  stepErrorText,
} from '../../src/changes/step-completion.ts';
import { type ApprovalRequest, createMemoryStore } from '../../src/store/store.ts';

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
/** The apps configured: those named (prod by default). */
const appsOf = (...names: string[]) => ({
  byName: (name: string) => (names.includes(name) ? ({ name } as CometChatApp) : undefined),
});
const depsAt = (now: number, apps = appsOf('prod')) => {
  const store = createMemoryStore();
  return { store, apps, now: () => now };
};

/** Before the request's expiry, and after it. */
const BEFORE = 3_000;
const AFTER = 10_000;

describe('stepCompletion', () => {
  it('leaves an open request, and a request a person made, alone', () => {
    expect(stepCompletion(request, BEFORE)).toBeUndefined();
    expect(stepCompletion(request, AFTER)).toBeUndefined();
    const { workflowStep: _, ...byPerson } = { ...decided, status: 'applied' as const };
    expect(stepCompletion(byPerson, BEFORE)).toBeUndefined();
  });

  it('leaves a step completed already alone', () => {
    const completed = { ...decided, status: 'applied' as const, stepCompletedAt: 2_500 };
    expect(stepCompletion(completed, BEFORE)).toBeUndefined();
  });

  it('completes an applied request with the outcome, its reference and the approver', () => {
    expect(stepCompletion({ ...decided, status: 'applied', ref: 'r1' }, BEFORE)).toEqual({
      kind: 'success',
      outputs: { outcome: 'applied', reference: 'r1', approver: 'U0LEAD' },
    });
  });

  it('ends the step with one sentence for every other outcome', () => {
    const errors = (['rejected', 'expired', 'stale', 'failed', 'unknown'] as const).map((status) =>
      stepCompletion({ ...decided, status, ref: 'r2', rejectReason: 'not today' }, AFTER),
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

  it('waits on a failed or unknown outcome until the request expires: an approver may retry', () => {
    for (const status of ['failed', 'unknown'] as const) {
      expect(stepCompletion({ ...decided, status, ref: 'r2' }, BEFORE)).toBeUndefined();
      expect(stepCompletion({ ...decided, status, ref: 'r2' }, request.expiresAt)).toBeUndefined();
      expect(stepCompletion({ ...decided, status, ref: 'r2' }, request.expiresAt + 1)?.kind).toBe(
        'error',
      );
    }
    // The others end the step at once.
    for (const status of ['rejected', 'expired', 'stale'] as const) {
      expect(stepCompletion({ ...decided, status }, BEFORE)?.kind).toBe('error');
    }
  });

  it('ends the step of an open request past its expiry whose app is no longer configured', () => {
    const gone = stepCompletion(request, AFTER, false);
    expect(gone).toEqual({ kind: 'error', error: stepErrorText(appGoneSentence('prod')) });
    expect(gone?.kind === 'error' && gone.error).toBe(
      'The app prod is no longer configured, so its approval request cannot be decided. Nothing was sent.',
    );
    // Before its expiry, or with its app configured (expireApprovals closes it), it waits.
    expect(stepCompletion(request, request.expiresAt, false)).toBeUndefined();
    expect(stepCompletion(request, AFTER, true)).toBeUndefined();
  });

  it('keeps a long rejection reason within the sentence Slack shows', () => {
    const long = stepCompletion(
      { ...decided, status: 'rejected', rejectReason: 'x'.repeat(3000) },
      BEFORE,
    );
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

describe('stepErrorText', () => {
  it('reads the mrkdwn a sentence carries as plain text, within what Slack shows', () => {
    expect(
      stepErrorText(
        'The request could not be posted in <#C0APPROVE> (Slack said `not_in_channel`); <@U0LEAD> may &lt;retry&gt;.',
      ),
    ).toBe(
      'The request could not be posted in #C0APPROVE (Slack said not_in_channel); U0LEAD may <retry>.',
    );
    expect(stepErrorText('x'.repeat(3000)).length).toBeLessThanOrEqual(500);
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

  it("completes the step's run by its execution id, and keeps it completed", async () => {
    const { calls, client } = fakeClient();
    const deps = depsAt(BEFORE);
    expect(
      await completeStep(deps, { client, log }, { ...decided, status: 'applied', ref: 'r1' }),
    ).toBe(true);
    expect(await completeStep(deps, { client, log }, { ...decided, status: 'expired' })).toBe(true);
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
    expect((await deps.store.getApproval(request.id))?.stepCompletedAt).toBe(BEFORE);
  });

  it('sends nothing for an open request, and never throws when Slack refuses', async () => {
    const open = fakeClient();
    const deps = depsAt(BEFORE);
    await completeStep(deps, { client: open.client, log }, request);
    expect(open.calls).toEqual([]);
    const refused = fakeClient(new Error('ratelimited'));
    await expect(
      completeStep(deps, { client: refused.client, log }, { ...decided, status: 'rejected' }),
    ).resolves.toBe(false);
    expect(refused.calls).toHaveLength(1);
    // Not kept as completed: the sweep tries again.
    expect(await deps.store.getApproval(request.id)).toBeUndefined();
  });

  it('counts a run Slack says is over already as completed', async () => {
    for (const code of ['execution_not_in_running_state', 'function_execution_not_found']) {
      const over = fakeClient(new Error(code));
      const deps = depsAt(BEFORE);
      expect(
        await completeStep(deps, { client: over.client, log }, { ...decided, status: 'rejected' }),
      ).toBe(true);
      expect((await deps.store.getApproval(request.id))?.stepCompletedAt).toBe(BEFORE);
    }
  });
});

describe('completeStep, when Slack will not take the end', () => {
  const applied = { ...decided, status: 'applied' as const, ref: 'r1' };
  /** A client whose completions fail with the error named for their method. */
  const failing = (failures: Record<string, string>) => {
    const calls: [string, unknown][] = [];
    const answer = (method: string) => async (args: unknown) => {
      calls.push([method, args]);
      const error = failures[method];
      if (error) throw new Error(error);
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
  /** A logger whose lines are kept, parsed. */
  const capture = () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    return { log, lines };
  };

  it('ends with one sentence a run whose outputs Slack refuses, and keeps it ended', async () => {
    const { calls, client } = failing({ completeSuccess: 'parameter_validation_failed' });
    const deps = depsAt(BEFORE);
    const { log } = capture();
    expect(await completeStep(deps, { client, log }, applied)).toBe(true);
    expect(calls.map(([method]) => method)).toEqual(['completeSuccess', 'completeError']);
    expect(calls[1]?.[1]).toEqual({
      function_execution_id: 'Fx0001',
      error: stepErrorText(
        `The change was applied by U0LEAD (reference r1). ${outputsRefused('parameter_validation_failed')}`,
      ),
    });
    expect((await deps.store.getApproval(request.id))?.stepCompletedAt).toBe(BEFORE);
  });

  it('tries a refused end again until a day past the expiry, then gives up with a warning', async () => {
    const lastTry = request.expiresAt + GIVE_UP_AFTER_MS;
    const within = depsAt(lastTry);
    const { client, calls } = failing({ completeError: 'internal_error' });
    const rejected = { ...decided, status: 'rejected' as const };
    expect(await completeStep(within, { client, log: capture().log }, rejected)).toBe(false);
    expect(await within.store.getApproval(request.id)).toBeUndefined();
    const past = depsAt(lastTry + 1);
    const { log, lines } = capture();
    expect(await completeStep(past, { client, log }, rejected)).toBe(false);
    expect(calls).toHaveLength(2);
    // Kept as ended: the sweep leaves it.
    expect((await past.store.getApproval(request.id))?.stepCompletedAt).toBe(lastTry + 1);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        request: request.id,
        execution: 'Fx0001',
        cause: 'internal_error',
        msg: 'workflow step given up: Slack keeps refusing its end',
      }),
    ]);
  });

  it('ends the step of an open request past its expiry whose app is gone', async () => {
    const { client, calls } = failing({});
    const deps = depsAt(AFTER, appsOf());
    expect(await completeStep(deps, { client, log: capture().log }, request)).toBe(true);
    expect(calls).toEqual([
      [
        'completeError',
        { function_execution_id: 'Fx0001', error: stepErrorText(appGoneSentence('prod')) },
      ],
    ]);
    // With its app configured it waits for expireApprovals to close it.
    const configured = failing({});
    await completeStep(depsAt(AFTER), { client: configured.client, log: capture().log }, request);
    expect(configured.calls).toEqual([]);
  });
});
