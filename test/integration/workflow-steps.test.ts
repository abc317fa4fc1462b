import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { functionExecutedEvent } from '../../offline/slack-standin/functions.ts';
import type { FunctionExecution } from '../../offline/slack-standin/server.ts';
import { createSlackApp } from '../../src/app.ts';
import { FIRST_DELIVERY_WAIT_MS, NOT_STORED } from '../../src/features/users/user-steps.ts';
import { NO_PERSON_FOR_CHANGE, NO_PERSON_FOR_LOOKUP } from '../../src/features/workflow-step.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { REFUSALS } from '../../src/replies/refusals.ts';
import { ACTIONS, FUNCTIONS } from '../../src/slack/ids.ts';
import { type ApprovalRequest, createMemoryStore, type Store } from '../../src/store/store.ts';
import { actionButtons, type Harness, textOf } from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// Workflow Builder steps through the real app: Slack's function_executed event in, the run's
// one completion (functions.completeSuccess / completeError) out, against the stand-ins. A
// change's step goes the road a person's change goes: the same editors, the same approval.

const CHANNEL = 'C0APPROVE';
const ENV = { APPROVAL_CHANNEL: CHANNEL, EDITORS: 'U0OPERATOR,U0LEAD' };
const CALL_WITH_RECORDINGS = SANDBOX_SESSION_IDS.withRecordings;

/** Each step's required outputs, as manifest.yml declares them (Slack checks completions so). */
function requiredOutputs(callbackId: string): string[] {
  const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
  return manifest.functions[callbackId].output_parameters.required ?? [];
}

/**
 * Runs a step as Slack does, in a workflow `interactor` started (null: nobody did, as on a
 * schedule); resolves with its execution (still running, or completed).
 */
async function runStep(
  h: Harness,
  callbackId: string,
  inputs: Record<string, unknown>,
  interactor: string | null = RUNNER,
): Promise<FunctionExecution> {
  const { execution, exchange } = await h.driver.functionExecuted({
    callbackId,
    inputs,
    requiredOutputs: requiredOutputs(callbackId),
    ...(interactor === null ? {} : { interactor }),
  });
  expect(exchange.status).toBe(200);
  return execution;
}

/** Waits for the run to end; resolves with it. */
function ended(h: Harness, execution: FunctionExecution): Promise<FunctionExecution> {
  return h.slack.waitFor(() => (execution.state === 'running' ? undefined : execution));
}

/** What CometChat was asked to change about users. */
function userWrites(h: Harness) {
  return h.sandbox.requests.filter(
    (r) => r.path.startsWith('/v3/users') && (r.method === 'PUT' || r.method === 'DELETE'),
  );
}

/** How often CometChat was asked for the role change's user. */
function userReads(h: Harness): number {
  return h.sandbox.requests.filter(
    (r) => r.method === 'GET' && r.path === '/v3/users/cometchat-uid-4',
  ).length;
}

/** The approval request the step posted in the channel. */
async function postedRequest(h: Harness, store: Store, mark: number) {
  const post = await h.slack.nextCall('chat.postMessage', mark);
  expect(post.args.channel).toBe(CHANNEL);
  // The request is stored, with its message's ts, once Slack has answered the post.
  const stored = await vi.waitFor(async () => {
    const [open] = await store.listOpenApprovals();
    if (!open?.ts) throw new Error('the request is not stored yet');
    return open.ts;
  });
  return {
    ts: stored,
    blocks: post.args.blocks as unknown[],
    text: textOf(post.args),
  };
}

/** The periodic work of another instance of the app on `store`, its clock at `now`. */
function sweepAt(h: Harness, store: Store, now: number): Promise<unknown> {
  const replica = createSlackApp({
    config: h.config,
    logger: h.logger,
    store,
    metrics: createMetrics({ defaultMetrics: false }),
    now: () => now,
  });
  return replica.features.periodic(h.logger.child({ component: 'sweep' }));
}

/** The one request stored (open or decided). */
async function storedRequest(store: Store, id: string): Promise<ApprovalRequest> {
  const request = await store.getApproval(id);
  if (!request) throw new Error('no request stored');
  return request;
}

/** The completions the app sent Slack (functions.completeSuccess / completeError). */
function completions(h: Harness) {
  return h.slack.calls.filter((c) => c.method.startsWith('functions.complete'));
}

/** Clicks a button of the posted request as `user`. */
async function click(
  h: Harness,
  user: string,
  posted: { ts: string; blocks: unknown[] },
  actionId: string,
) {
  const driver = driverAs(h, user);
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

/** Who starts the workflows below, unless a test says: an editor. */
const RUNNER = 'U0OPERATOR';

/** A lookup's inputs besides its own: none (anyone may view where VIEWERS is unset). */
const LOOKUP = {};

const ROLE_CHANGE = {
  uid: 'cometchat-uid-4',
  role: 'vip',
  reason: 'ticket 7',
};

describe('workflow steps', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withApprovals = (env: Record<string, string> = ENV) => {
    store = createMemoryStore();
    return start({ store, env });
  };

  it('looks a user up, with a can answer when an action is given', async () => {
    const h = await withApprovals();
    const plain = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupUser, { ...LOOKUP, uid: 'cometchat-uid-4' }),
    );
    expect(plain.state).toBe('completed');
    expect(plain.outputs).toMatchObject({
      role: 'premium',
      deactivated: false,
      can: '',
    });
    expect(typeof plain.outputs?.name).toBe('string');
    expect(typeof plain.outputs?.status).toBe('string');
    const asked = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupUser, {
        ...LOOKUP,
        uid: 'COMETCHAT-UID-4',
        action: 'sendMessage',
      }),
    );
    expect(asked.outputs?.role).toBe('premium');
    expect(asked.outputs?.can).toMatch(/^(allowed|denied: |cannot tell: )/);
    // A plain string a later step puts anywhere: no mrkdwn marks or entities.
    expect(asked.outputs?.can).not.toMatch(/[`*]|&(amp|lt|gt);|\u200B/);
  });

  it('runs a step that comes over Socket Mode, as the manifest installs the app', async () => {
    const h = await start({ mode: 'socket', env: { SLACK_SIGNING_SECRET: undefined } });
    const { execution, event } = h.slack.functionExecution({
      callbackId: FUNCTIONS.lookupUser,
      inputs: { ...LOOKUP, uid: 'cometchat-uid-4' },
      requiredOutputs: requiredOutputs(FUNCTIONS.lookupUser),
      interactor: RUNNER,
    });
    await h.slack.sendEnvelope('events_api', h.driver.eventBody(event));
    const done = await ended(h, execution);
    expect(done.state).toBe('completed');
    expect(done.outputs?.role).toBe('premium');
  });

  it('ends a lookup of an unknown user or a bad uid with one sentence', async () => {
    const h = await withApprovals();
    const unknown = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupUser, { ...LOOKUP, uid: 'nobody-here' }),
    );
    expect(unknown.state).toBe('failed');
    expect(unknown.error).toMatch(/^CometChat has no user with that uid .*\(ref \w+\)$/);
    const bad = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupUser, { ...LOOKUP, uid: 'two words' }),
    );
    expect(bad.error).toBe('A uid cannot contain spaces.');
    const app = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupUser, {
        ...LOOKUP,
        uid: 'cometchat-uid-4',
        app: 'elsewhere',
      }),
    );
    // Slack shows a step's error as plain text: no mrkdwn marks.
    expect(app.error).toContain('There is no CometChat app elsewhere; the apps are ');
  });

  it('looks a call up: status, type, duration, participants, recordings', async () => {
    const h = await withApprovals();
    const run = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupCall, { ...LOOKUP, session_id: CALL_WITH_RECORDINGS }),
    );
    expect(run.state).toBe('completed');
    const outputs = run.outputs ?? {};
    expect(typeof outputs.status).toBe('string');
    expect(outputs.type).toMatch(/audio|video/);
    expect(typeof outputs.duration_minutes).toBe('number');
    expect(Array.isArray(outputs.participants) && outputs.participants.length).toBeGreaterThan(0);
    expect(outputs.recordings).toEqual([
      expect.stringContaining('rec-5f2b8c1e.mp4'),
      expect.stringContaining('rec-9a07d3c4.mp4'),
    ]);
  });

  it('refuses a lookup to a runner who may not view, asking CometChat nothing', async () => {
    const h = await withApprovals({ ...ENV, VIEWERS: 'U0VIEWER' });
    const asked = h.sandbox.requests.length;
    const lookups = [
      {
        callbackId: FUNCTIONS.lookupUser,
        inputs: { uid: 'cometchat-uid-4', action: 'sendMessage' },
      },
      { callbackId: FUNCTIONS.lookupCall, inputs: { session_id: CALL_WITH_RECORDINGS } },
    ];
    for (const { callbackId, inputs } of lookups) {
      const refused = await ended(h, await runStep(h, callbackId, inputs, 'U0STRANGER'));
      expect(refused.state).toBe('failed');
      expect(refused.error).toBe(REFUSALS.view);
    }
    expect(h.sandbox.requests.slice(asked)).toEqual([]);
    // A viewer, and an editor (who may always view), are served.
    for (const runner of ['U0VIEWER', 'U0LEAD']) {
      for (const { callbackId, inputs } of lookups) {
        const served = await ended(h, await runStep(h, callbackId, inputs, runner));
        expect(served.state).toBe('completed');
      }
    }
  });

  it('asks for a role change, and completes with the outcome once a second person approves', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    expect(posted.text).toContain('Through Workflow Builder, <@U0OPERATOR> asks');
    expect(posted.text).toContain('ticket 7');
    const [open] = await store.listOpenApprovals();
    expect(open?.workflowStep).toEqual({
      executionId: run.id,
      callbackId: FUNCTIONS.changeUserRole,
    });
    // Nothing is sent, and the run waits, until someone decides.
    expect(userWrites(h)).toEqual([]);
    expect(run.state).toBe('running');
    // Slack delivers the same run again (an event it thinks unanswered): one request stands.
    const again = h.slack.calls.length;
    const reads = userReads(h);
    await h.driver.event(functionExecutedEvent(run));
    // The second delivery reads the user before it finds the request posted already.
    await h.slack.waitFor(() => (userReads(h) > reads ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.slack.calls.slice(again).filter((c) => c.method === 'chat.postMessage')).toEqual([]);
    expect(await store.listOpenApprovals()).toHaveLength(1);
    expect(run.state).toBe('running');
    // The runner cannot approve their own request.
    await click(h, 'U0OPERATOR', posted, ACTIONS.approveChange);
    expect(userWrites(h)).toEqual([]);
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    const done = await ended(h, run);
    expect(
      h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL),
    ).toHaveLength(1);
    expect(userWrites(h).map((r) => [r.method, r.path, r.body])).toEqual([
      ['PUT', '/v3/users/cometchat-uid-4', { role: 'vip' }],
    ]);
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      approval: { approvedBy: 'U0LEAD', reason: 'ticket 7' },
    });
    // The step's workflow token is a credential: never logged.
    expect(h.logs.text()).not.toContain(run.token);
    expect(done.state).toBe('completed');
    expect(done.outputs).toEqual({
      outcome: 'applied',
      reference: records[0]?.ref,
      approver: 'U0LEAD',
    });
  });

  it('ends the step with the reason when the request is rejected, sending nothing', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    const lead = driverAs(h, 'U0LEAD');
    const opened = h.slack.calls.length;
    await click(h, 'U0LEAD', posted, ACTIONS.rejectChange);
    await h.slack.nextCall('views.open', opened);
    const modal = [...h.slack.views.values()].at(-1);
    if (!modal) throw new Error('no reason modal');
    await lead.interaction(
      lead.viewSubmission({
        view: modal,
        values: { reject_reason: { reason: { type: 'plain_text_input', value: 'not today' } } },
      }),
    );
    const done = await ended(h, run);
    expect(done.state).toBe('failed');
    expect(done.error).toBe('The change was rejected by U0LEAD: not today. Nothing was sent.');
    expect(userWrites(h)).toEqual([]);
  });

  it('ends the step when the request expires, sending nothing', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    const [open] = await store.listOpenApprovals();
    if (!open) throw new Error('no request stored');
    await store.putApproval({ ...open, expiresAt: Date.now() - 1 });
    // The first touch of an expired request closes it (the sweep would, too).
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    const done = await ended(h, run);
    expect(done.state).toBe('failed');
    expect(done.error).toContain('expired before anyone decided it');
    expect(userWrites(h)).toEqual([]);
  });

  it('refuses a runner who may not edit: nothing posted, stored or sent', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await ended(
      h,
      await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE, 'U0STRANGER'),
    );
    expect(run.state).toBe('failed');
    expect(run.error).toContain('EDITORS');
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'chat.postMessage')).toEqual([]);
    expect(await store.listOpenApprovals()).toEqual([]);
    expect(userWrites(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
  });

  it('refuses the role the user has, an unknown role, and an app without approvals', async () => {
    const h = await withApprovals();
    const same = await ended(
      h,
      await runStep(h, FUNCTIONS.changeUserRole, { ...ROLE_CHANGE, role: 'premium' }),
    );
    expect(same.error).toContain('has role premium already');
    const unknown = await ended(
      h,
      await runStep(h, FUNCTIONS.changeUserRole, { ...ROLE_CHANGE, role: 'no-such-role' }),
    );
    expect(unknown.error).toContain('There is no role no-such-role');
    expect(await store.listOpenApprovals()).toEqual([]);
  });

  it('says a step cannot get a second person where the app asks for no approvals', async () => {
    const h = await withApprovals({ EDITORS: 'U0OPERATOR,U0LEAD' });
    const run = await ended(h, await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE));
    expect(run.state).toBe('failed');
    expect(run.error).toContain('APPROVAL_CHANNEL');
    expect(userWrites(h)).toEqual([]);
  });

  it('deactivates a user once approved', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserAccount, {
      uid: 'cometchat-uid-5',
      deactivate: true,
    });
    const posted = await postedRequest(h, store, mark);
    expect(userWrites(h)).toEqual([]);
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    const done = await ended(h, run);
    expect(done.outputs).toMatchObject({ outcome: 'applied', approver: 'U0LEAD' });
    expect(userWrites(h).map((r) => [r.method, r.body])).toEqual([
      ['DELETE', { uidsToDeactivate: ['cometchat-uid-5'] }],
    ]);
    expect(h.sandbox.state.users.get('cometchat-uid-5')?.deactivatedAt).toBeDefined();
  });
  it('refuses a change in a workflow nobody started, whatever user id its author set', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    // An author's hard-coded user id is no input the step reads: only Slack's interactor counts.
    const forged = { ...ROLE_CHANGE, runner: 'U0LEAD' };
    const steps = [
      { id: FUNCTIONS.changeUserRole, inputs: forged },
      { id: FUNCTIONS.changeUserAccount, inputs: { uid: 'cometchat-uid-5', deactivate: true } },
    ];
    for (const step of steps) {
      const run = await ended(h, await runStep(h, step.id, step.inputs, null));
      expect(run.state).toBe('failed');
      expect(run.error).toBe(NO_PERSON_FOR_CHANGE);
    }
    expect(NO_PERSON_FOR_CHANGE).toContain('a link, a shortcut, a button or a form');
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'chat.postMessage')).toEqual([]);
    expect(await store.listUnendedStepApprovals()).toEqual([]);
    expect(userWrites(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
  });

  it('serves a lookup in a workflow nobody started only while VIEWERS is unset', async () => {
    const open = await withApprovals();
    const served = await ended(
      open,
      await runStep(open, FUNCTIONS.lookupUser, { uid: 'cometchat-uid-4' }, null),
    );
    expect(served.state).toBe('completed');
    await open.stop();
    const h = await withApprovals({ ...ENV, VIEWERS: 'U0VIEWER' });
    const asked = h.sandbox.requests.length;
    const lookups = [
      { id: FUNCTIONS.lookupUser, inputs: { uid: 'cometchat-uid-4' } },
      { id: FUNCTIONS.lookupCall, inputs: { session_id: CALL_WITH_RECORDINGS } },
    ];
    for (const lookup of lookups) {
      const refused = await ended(h, await runStep(h, lookup.id, lookup.inputs, null));
      expect(refused.state).toBe('failed');
      expect(refused.error).toBe(NO_PERSON_FOR_LOOKUP);
    }
    expect(NO_PERSON_FOR_LOOKUP).toContain('VIEWERS');
    expect(h.sandbox.requests.slice(asked)).toEqual([]);
  });

  it('keeps the run open when the approved change fails, and completes it when a Retry applies', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    h.sandbox.inject({ kind: 'status', status: 403, method: 'PUT', times: 1 });
    const updates = h.slack.calls.length;
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    const failed = await h.slack.nextCall('chat.update', updates);
    expect(textOf(failed.args)).toContain('CometChat did not apply it');
    // An approver may still retry: the run waits, and a sweep before the expiry leaves it so.
    const [request] = await store.listUnendedStepApprovals();
    if (!request) throw new Error('no request');
    expect(request.status).toBe('failed');
    await sweepAt(h, store, request.expiresAt - 1);
    expect(run.state).toBe('running');
    expect(completions(h)).toEqual([]);
    await click(
      h,
      'U0LEAD',
      { ...posted, blocks: failed.args.blocks as unknown[] },
      ACTIONS.approveChange,
    );
    const done = await ended(h, run);
    expect(done.state).toBe('completed');
    expect(done.outputs).toMatchObject({ outcome: 'applied', approver: 'U0LEAD' });
    expect(userWrites(h)).toHaveLength(2);
    expect((await storedRequest(store, request.id)).stepCompletedAt).toBeDefined();
  });

  it('ends the run of a failed change once its request expires without a Retry', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    h.sandbox.inject({ kind: 'status', status: 403, method: 'PUT', times: 1 });
    const updates = h.slack.calls.length;
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    await h.slack.nextCall('chat.update', updates);
    const [request] = await store.listUnendedStepApprovals();
    if (!request) throw new Error('no request');
    expect(run.state).toBe('running');
    await sweepAt(h, store, request.expiresAt + 1);
    const done = await ended(h, run);
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(
      /^The change was approved by U0LEAD but CometChat did not take it \(reference \w+\)\. See \/cometchat audit\.$/,
    );
    // Completed once: a later sweep sends nothing more.
    await sweepAt(h, store, request.expiresAt + 120_000);
    expect(completions(h)).toHaveLength(1);
    expect(await store.listUnendedStepApprovals()).toEqual([]);
  });

  it("completes a decided request's run that Slack did not take, on the next sweep, once", async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    h.slack.fail('functions.completeError', { error: 'internal_error' });
    const lead = driverAs(h, 'U0LEAD');
    const opened = h.slack.calls.length;
    await click(h, 'U0LEAD', posted, ACTIONS.rejectChange);
    await h.slack.nextCall('views.open', opened);
    const modal = [...h.slack.views.values()].at(-1);
    if (!modal) throw new Error('no reason modal');
    await lead.interaction(
      lead.viewSubmission({
        view: modal,
        values: { reject_reason: { reason: { type: 'plain_text_input', value: 'not today' } } },
      }),
    );
    await h.slack.waitFor(() => (completions(h).length > 0 ? true : undefined));
    const [request] = await store.listUnendedStepApprovals();
    expect(request?.status).toBe('rejected');
    expect(run.state).toBe('running');
    // Two replicas sweep at once: one completes it.
    await Promise.all([sweepAt(h, store, Date.now()), sweepAt(h, store, Date.now())]);
    const done = await ended(h, run);
    expect(done.error).toBe('The change was rejected by U0LEAD: not today. Nothing was sent.');
    expect(completions(h)).toHaveLength(2);
    expect(await store.listUnendedStepApprovals()).toEqual([]);
    await sweepAt(h, store, Date.now());
    expect(completions(h)).toHaveLength(2);
  });

  it('keeps a run delivered again while its first delivery is still posting the request', async () => {
    const h = await withApprovals();
    // Slack takes its time over the request's post: the first delivery has claimed the request
    // but not stored it yet when Slack delivers the run again.
    h.slack.setMethodLatency('chat.postMessage', 1_500);
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    await h.slack.nextCall('chat.postMessage', mark);
    await h.driver.event(functionExecutedEvent(run));
    // It finds the request once the first delivery stores it, and leaves the run waiting on it.
    const again = await h.slack.waitFor(() =>
      h.logs.records().find((r) => r.message === 'workflow step delivered again'),
    );
    expect(again.cometchat_ops.stands).toBe(true);
    h.slack.setMethodLatency('chat.postMessage', undefined);
    const posted = await postedRequest(h, store, mark);
    expect(run.state).toBe('running');
    expect(completions(h)).toEqual([]);
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    const done = await ended(h, run);
    expect(done.state).toBe('completed');
    expect(done.outputs).toMatchObject({ outcome: 'applied', approver: 'U0LEAD' });
    expect(completions(h).map((c) => c.method)).toEqual(['functions.completeSuccess']);
  });

  it('ends a run whose earlier delivery took the request but stored none', async () => {
    // The second delivery waits for the first's request as long as a Slack post may take.
    const slept: number[] = [];
    store = createMemoryStore();
    const h = await start({ store, env: ENV, sleep: async (ms) => void slept.push(ms) });
    // The first delivery stops between posting the request and storing it.
    const putApproval = store.putApproval;
    store.putApproval = async () => {
      throw new Error('the store went away');
    };
    const mark = h.slack.calls.length;
    const run = await ended(h, await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE));
    expect(run.state).toBe('failed');
    store.putApproval = putApproval;
    expect(await store.listUnendedStepApprovals()).toEqual([]);
    // Slack delivers the same run again: no request stands, so it is ended, not left waiting.
    const again = h.slack.calls.length;
    await h.driver.event(functionExecutedEvent(run));
    const ending = await h.slack.nextCall('functions.completeError', again);
    expect(ending.args.error).toBe(NOT_STORED);
    expect(slept.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(FIRST_DELIVERY_WAIT_MS);
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'chat.postMessage')).toHaveLength(
      1,
    );
    expect(userWrites(h)).toEqual([]);
  });

  it('ends an approved run with one sentence when Slack refuses its outputs', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    const posted = await postedRequest(h, store, mark);
    h.slack.fail('functions.completeSuccess', { error: 'parameter_validation_failed' });
    await click(h, 'U0LEAD', posted, ACTIONS.approveChange);
    const done = await ended(h, run);
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(
      /^The change was applied by U0LEAD \(reference \w+\)\. Slack did not take the step's outputs \(it said parameter_validation_failed\), so the step ends without them\.$/,
    );
    expect(await store.listUnendedStepApprovals()).toEqual([]);
  });

  it('ends the run of a request whose app is no longer configured, once it expires', async () => {
    const h = await withApprovals();
    const mark = h.slack.calls.length;
    const run = await runStep(h, FUNCTIONS.changeUserRole, ROLE_CHANGE);
    await postedRequest(h, store, mark);
    const [open] = await store.listOpenApprovals();
    if (!open) throw new Error('no request stored');
    await store.putApproval({ ...open, app: 'retired' });
    await sweepAt(h, store, open.expiresAt);
    expect(run.state).toBe('running');
    await sweepAt(h, store, open.expiresAt + 1);
    const done = await ended(h, run);
    expect(done.error).toBe(
      'The app retired is no longer configured, so its approval request cannot be decided. Nothing was sent.',
    );
    // Nothing else closes it; its step is not tried again.
    expect((await storedRequest(store, open.id)).status).toBe('open');
    expect(await store.listUnendedStepApprovals()).toEqual([]);
  });

  it("ends a run with one sentence when Slack refuses the step's outputs", async () => {
    const h = await withApprovals();
    h.slack.fail('functions.completeSuccess', { error: 'parameter_validation_failed' });
    const run = await ended(
      h,
      await runStep(h, FUNCTIONS.lookupUser, { ...LOOKUP, uid: 'cometchat-uid-4' }),
    );
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(
      /^Slack did not take the step's outputs \(it said parameter_validation_failed\), so the step ends without them\. \(ref \w+\)$/,
    );
  });
});
