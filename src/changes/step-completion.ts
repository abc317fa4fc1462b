import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Apps } from '../apps/apps.ts';
import { slackErrorCode } from '../slack/deliver.ts';
import { code, plainOfMrkdwn, truncate } from '../slack/mrkdwn.ts';
import type { ApprovalRequest, Store } from '../store/store.ts';
import { decidedByText, rejectionText } from './approval-view.ts';

// A Workflow Builder step that asked for a change waits on its approval request: when the
// request is decided (announce, decide.ts, the one place every outcome passes) the step's run is
// completed with the outcome, or ended with one sentence saying why nothing, or not all, was done.
// A run whose completion Slack did not take is completed again by the sweep (approvals.ts), until
// a day past its request's expiry.

/** How much of a reason or a detail an ended step's sentence carries. */
const SENTENCE_MAX = 500;

/**
 * Slack's answers that say the run is over already (completed by an earlier attempt, or gone):
 * nothing is left to complete.
 */
const ALREADY_ENDED = new Set(['execution_not_in_running_state', 'function_execution_not_found']);

/** Slack's answer that it did not take a step's outputs (they are not what the step declares). */
const OUTPUTS_REFUSED = 'parameter_validation_failed';

/**
 * How long past its request's expiry a run Slack keeps refusing the end of is tried again: then
 * the app gives up on it (Slack's own limit on a run ends it; this app cannot).
 */
export const GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * The text a step's run ends with: Slack shows a step's error as plain text, so the app's mrkdwn
 * (code spans, mentions, entities) is read as a person would, within what Slack shows. Every
 * `fail` and `completeError` goes through here. Pure.
 */
export function stepErrorText(sentence: string): string {
  return truncate(plainOfMrkdwn(sentence), SENTENCE_MAX);
}

/** How a decided request ends its step: the outputs of an applied change, or the sentence. */
export type StepCompletion =
  | { kind: 'success'; outputs: { outcome: 'applied'; reference: string; approver: string } }
  | { kind: 'error'; error: string };

/** Said when Slack refused a step's outputs: the step ends without them. Pure. */
export function outputsRefused(cause: string): string {
  return `Slack did not take the step's outputs (it said ${code(cause)}), so the step ends without them.`;
}

/** Said when a step's request is past its expiry, open, and its app is no longer configured. */
export function appGoneSentence(app: string): string {
  return `The app ${code(app)} is no longer configured, so its approval request cannot be decided. Nothing was sent.`;
}

/**
 * How a request that a step made ends that step at `now`, or undefined while it does not (a
 * person, not a step, asked; the step is ended already; the request is open, unless it is past
 * its expiry and its app is not `configured` any more, so that nothing will close it; or it
 * failed, or its outcome is unknown, and an approver may still retry it before it expires). Its
 * sentences are mrkdwn, as the request's message is, read as plain text by
 * {@link stepErrorText}. Pure.
 */
export function stepCompletion(
  request: ApprovalRequest,
  now: number,
  configured = true,
): StepCompletion | undefined {
  if (!request.workflowStep || request.stepCompletedAt !== undefined) return undefined;
  // Who decided, and why a rejection, in the words of the request's message (read as plain text).
  const by = decidedByText(request);
  const ref = request.ref ? ` (reference ${request.ref})` : '';
  const retryable = request.status === 'failed' || request.status === 'unknown';
  if (retryable && now <= request.expiresAt) return undefined;
  switch (request.status) {
    case 'open':
      return configured || now <= request.expiresAt
        ? undefined
        : ended(appGoneSentence(request.app));
    case 'applied':
      return {
        kind: 'success',
        outputs: {
          outcome: 'applied',
          // A change found already taken keeps the reference of the attempt that took it.
          reference: request.ref ?? request.id,
          approver: request.decidedBy ?? '',
        },
      };
    case 'rejected':
      return ended(`The change was rejected${by}${rejectionText(request)}. Nothing was sent.`);
    case 'expired':
      return ended('The approval request expired before anyone decided it. Nothing was sent.');
    case 'stale':
      return ended(
        'The user changed in CometChat after the step asked, so nothing was sent. Run the workflow again to ask on what CometChat has now.',
      );
    case 'failed':
      return ended(
        `The change was approved${by} but CometChat did not take it${ref}. See /cometchat audit.`,
      );
    case 'unknown':
      return ended(
        `The change was approved${by}, but whether CometChat took it is not known${ref}. Look the user up before running the workflow again.`,
      );
  }
}

function ended(sentence: string): StepCompletion {
  return { kind: 'error', error: stepErrorText(sentence) };
}

/**
 * What completing a step needs: the store that keeps it completed, the apps configured (a
 * request's app may be gone), and the time.
 */
export interface StepCompletionDeps {
  store: Pick<Store, 'putApproval'>;
  apps: Pick<Apps, 'byName'>;
  now: () => number;
}

/** The claim under which one replica completes a request's step (announce or the sweep). */
export const stepClaim = (id: string) => `step-completion:${id}`;

/** How long a step's completion claim is held: well past Slack's answer to one completion. */
const STEP_CLAIM_SECONDS = 60;

/**
 * Completes the step of request `id` as it is stored now, under the step's claim, so that an
 * announcement and a sweep at the same moment complete it once. Never throws (the store's
 * failure is logged, and left to the next sweep). Whether this call completed it.
 */
export async function completeStepOnce(
  deps: StepCompletionDeps & { store: Pick<Store, 'claim' | 'release' | 'getApproval'> },
  announcer: { client: WebClient; log: Logger },
  id: string,
): Promise<boolean> {
  const claim = stepClaim(id);
  try {
    if (!(await deps.store.claim(claim, STEP_CLAIM_SECONDS))) return false;
    try {
      const current = await deps.store.getApproval(id);
      return current ? await completeStep(deps, announcer, current) : false;
    } finally {
      await deps.store.release(claim);
    }
  } catch (error) {
    announcer.log.warn(
      { err: error, request: id },
      'workflow step not completed; the sweep tries again',
    );
    return false;
  }
}

/**
 * Completes the step a decided request came from, if it is due, then keeps the request as
 * completed (`stepCompletedAt`), so that the sweep does not complete it again. Slack's answer that
 * the run is over already counts as completed; outputs Slack refuses end the run with the
 * sentence saying so instead. Never throws: a completion Slack did not take, or a request not
 * stored, is logged and left to the sweep, until GIVE_UP_AFTER_MS past the request's expiry, when
 * it is kept as completed and a warning logged. The caller holds the step's claim
 * (completeStepOnce). Whether the step is completed now.
 */
export async function completeStep(
  deps: StepCompletionDeps,
  { client, log }: { client: WebClient; log: Logger },
  request: ApprovalRequest,
): Promise<boolean> {
  const step = request.workflowStep;
  const configured = deps.apps.byName(request.app) !== undefined;
  const completion = stepCompletion(request, deps.now(), configured);
  if (!completion || !step) return false;
  const fields = { request: request.id, execution: step.executionId, status: request.status };
  const cause = await sendCompletion(client, step.executionId, completion, request);
  const completed = cause === undefined || ALREADY_ENDED.has(cause);
  if (!completed && deps.now() <= request.expiresAt + GIVE_UP_AFTER_MS) {
    log.warn({ ...fields, cause }, 'workflow step not completed; the sweep tries again');
    return false;
  }
  if (completed) log.info({ ...fields, ...(cause ? { cause } : {}) }, 'workflow step completed');
  else log.warn({ ...fields, cause }, 'workflow step given up: Slack keeps refusing its end');
  try {
    await deps.store.putApproval({ ...request, stepCompletedAt: deps.now() });
  } catch (error) {
    log.warn({ err: error, request: request.id }, 'workflow step completion not kept');
  }
  return completed;
}

/**
 * Sends `completion` for the run; Slack's error code when it refused, undefined when it took it.
 * Outputs Slack refuses (OUTPUTS_REFUSED) end the run with one sentence instead, as a step's
 * listener does.
 */
async function sendCompletion(
  client: WebClient,
  function_execution_id: string,
  completion: StepCompletion,
  request: ApprovalRequest,
): Promise<string | undefined> {
  try {
    if (completion.kind === 'success') {
      await client.functions.completeSuccess({
        function_execution_id,
        outputs: completion.outputs,
      });
    } else {
      await client.functions.completeError({ function_execution_id, error: completion.error });
    }
    return undefined;
  } catch (error) {
    const cause = slackErrorCode(error);
    if (cause !== OUTPUTS_REFUSED || completion.kind !== 'success') return cause;
    return sendCompletion(
      client,
      function_execution_id,
      outputsRefusedEnd(request, cause),
      request,
    );
  }
}

/** How a run whose outputs Slack refused ends: the change applied, then Slack's refusal. Pure. */
export function outputsRefusedEnd(request: ApprovalRequest, cause: string): StepCompletion {
  const ref = request.ref ? ` (reference ${request.ref})` : '';
  return ended(`The change was applied${decidedByText(request)}${ref}. ${outputsRefused(cause)}`);
}
