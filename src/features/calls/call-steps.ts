import type { App } from '@slack/bolt';
import { z } from 'zod';
import { idProblem, MAX_SESSION_ID } from '../../cometchat/id-rules.ts';
import type { Call } from '../../cometchat/model.ts';
import { FUNCTIONS } from '../../slack/ids.ts';
import type { StepArgs } from '../../slack/listener-args.ts';
import type { AppDeps } from '../deps.ts';
import {
  Interactivity,
  OptionalText,
  readInputs,
  runnerViewRefusal,
  type StepResult,
  stepApp,
  stepListener,
} from '../workflow-step.ts';

// The calls feature's Workflow Builder step: a call looked up by its session id.

const LookupInputs = z.object({
  interactivity: Interactivity,
  session_id: z.string(),
  app: OptionalText,
});

/** The step's outputs: what a workflow needs of a call, each field as CometChat has it. Pure. */
export function callOutputs(call: Call): Record<string, unknown> {
  return {
    status: call.status ?? 'unknown',
    type: call.type ?? '',
    ...(call.totalDurationInMinutes === undefined
      ? {}
      : { duration_minutes: call.totalDurationInMinutes }),
    participants: [...new Set(call.participants.map((p) => p.uid))],
    recordings: call.recordings.flatMap((r) => (r.recording_url ? [r.recording_url] : [])),
  };
}

/**
 * _Look up a CometChat call_: the person who started the workflow checked as the command's
 * person is (VIEWERS, all the call lookup asks), then the session id as the lookup form checks it.
 */
function createLookupStep(deps: AppDeps) {
  return async ({ inputs }: StepArgs): Promise<StepResult> => {
    const read = readInputs(LookupInputs, inputs);
    if ('refusal' in read) return read;
    const { interactivity, session_id: sessionId, app: name } = read.inputs;
    const refusal = await runnerViewRefusal(deps.access, interactivity?.interactor.id);
    if (refusal) return { refusal };
    // A client SDK may start a call with any session id, spaces included (as the form allows).
    const problem = idProblem(sessionId, 'A session id', MAX_SESSION_ID, { spaces: true });
    if (problem) return { refusal: problem };
    const chosen = stepApp(deps.apps, name);
    if ('refusal' in chosen) return chosen;
    const call = await chosen.app.cometchat.getCall(sessionId);
    return { outputs: callOutputs(call) };
  };
}

export function registerCallSteps(bolt: App, deps: AppDeps): void {
  bolt.function(FUNCTIONS.lookupCall, stepListener(deps, createLookupStep(deps)));
}
