import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { slackErrorCode } from '../slack/deliver.ts';
import { truncate } from '../slack/mrkdwn.ts';
import type { ApprovalRequest } from '../store/store.ts';

// A Workflow Builder step that asked for a change waits on its approval request: when the
// request is decided (announce, decide.ts, the one place every outcome passes) the step's run is
// completed with the outcome, or ended with one sentence saying why nothing, or not all, was done.

/** How much of a reason or a detail an ended step's sentence carries. */
const SENTENCE_MAX = 500;

/** How a decided request ends its step: the outputs of an applied change, or the sentence. */
export type StepCompletion =
  | { kind: 'success'; outputs: { outcome: 'applied'; reference: string; approver: string } }
  | { kind: 'error'; error: string };

/**
 * How a request that a step made ends that step, or undefined while it is open (or a person,
 * not a step, asked for it). The sentences are plain text: Slack shows a step's error as is. Pure.
 */
export function stepCompletion(request: ApprovalRequest): StepCompletion | undefined {
  if (!request.workflowStep) return undefined;
  const by = request.decidedBy ? ` by ${request.decidedBy}` : '';
  const ref = request.ref ? ` (reference ${request.ref})` : '';
  switch (request.status) {
    case 'open':
      return undefined;
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
    case 'rejected': {
      const reason = request.rejectReason ? `: ${request.rejectReason}` : '';
      return ended(`The change was rejected${by}${reason}. Nothing was sent.`);
    }
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
  return { kind: 'error', error: truncate(sentence, SENTENCE_MAX) };
}

/**
 * Completes the step a decided request came from, if any. Never fails the announcement: a run
 * Slack has ended already (a retried approval completes it a second time) is only logged.
 */
export async function completeStep(
  client: WebClient,
  log: Logger,
  request: ApprovalRequest,
): Promise<void> {
  const completion = stepCompletion(request);
  const step = request.workflowStep;
  if (!completion || !step) return;
  const function_execution_id = step.executionId;
  try {
    if (completion.kind === 'success') {
      await client.functions.completeSuccess({
        function_execution_id,
        outputs: completion.outputs,
      });
    } else {
      await client.functions.completeError({ function_execution_id, error: completion.error });
    }
    log.info(
      { request: request.id, execution: step.executionId, status: request.status },
      'workflow step completed',
    );
  } catch (error) {
    log.warn(
      { request: request.id, execution: step.executionId, cause: slackErrorCode(error) },
      'workflow step not completed',
    );
  }
}
