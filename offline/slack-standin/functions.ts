import { isRecord } from './is-record.ts';
import { STAND_IN_WORKSPACE } from './workspace.ts';

// Workflow Builder steps as Slack runs them: each run of an app's step is one function
// execution, announced to the app by a `function_executed` event that carries the execution's
// id and a token of its own, and ended once by `functions.completeSuccess` or
// `functions.completeError` (https://docs.slack.dev/reference/events/function_executed).

/** One run of a step, from its event to its one completion. */
export interface FunctionExecution {
  id: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The workflow token Slack puts in the event (`bot_access_token`). */
  token: string;
  /** The outputs Slack's check of `completeSuccess` asks for (the step's required outputs). */
  requiredOutputs: readonly string[];
  state: 'running' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: string;
  completedAt?: number;
}

export type FunctionExecutions = Map<string, FunctionExecution>;

type Answer = Record<string, unknown> & { ok: boolean };

/** A step's run as a test or the try asks for it. */
export interface StepRun {
  callbackId: string;
  inputs: Record<string, unknown>;
  requiredOutputs?: readonly string[];
  /**
   * The person who started the workflow (a link, a shortcut, a button or a form): Slack fills the
   * step's `interactivity` input with them. Left out: a workflow nobody started (a schedule).
   */
  interactor?: string;
}

/**
 * The `interactivity` input Slack fills for a workflow `interactor` started
 * (https://docs.slack.dev/reference/types/interactivity-type): a pointer to the interaction and
 * the person, with a secret of theirs.
 */
export function interactivityOf(interactor: string, tag: string): Record<string, unknown> {
  return {
    interactivity_pointer: `${tag}.standin-interactivity-pointer`,
    interactor: { id: interactor, secret: `standin-interactor-secret-${tag}` },
  };
}

/** A new running execution of `callbackId`, remembered by its id. */
export function startExecution(
  executions: FunctionExecutions,
  serial: number,
  step: StepRun,
): FunctionExecution {
  const tag = String(serial).padStart(6, '0');
  const interactivity =
    step.interactor === undefined ? {} : { interactivity: interactivityOf(step.interactor, tag) };
  const execution: FunctionExecution = {
    id: `Fx0STANDIN${tag}`,
    callbackId: step.callbackId,
    inputs: { ...step.inputs, ...interactivity },
    token: `xwfp-standin-${tag}`,
    requiredOutputs: step.requiredOutputs ?? [],
    state: 'running',
  };
  executions.set(execution.id, execution);
  return execution;
}

/** Whether `token` is the workflow token of an execution (it acts as the app's bot). */
export function isWorkflowToken(executions: FunctionExecutions, token: string): boolean {
  return [...executions.values()].some((execution) => execution.token === token);
}

/** The `function_executed` event of `execution`, as Slack sends it inside an event_callback. */
export function functionExecutedEvent(execution: FunctionExecution): Record<string, unknown> {
  return {
    type: 'function_executed',
    function: {
      id: `Fn0${execution.callbackId.replace(/\W/g, '').toUpperCase().slice(0, 12)}`,
      callback_id: execution.callbackId,
      title: execution.callbackId,
      description: '',
      type: 'app',
      input_parameters: [],
      output_parameters: [],
      app_id: STAND_IN_WORKSPACE.appId,
      date_created: 1_700_000_000,
      date_updated: 1_700_000_000,
      date_deleted: 0,
    },
    inputs: execution.inputs,
    function_execution_id: execution.id,
    workflow_execution_id: execution.id.replace(/^Fx/, 'Wx'),
    event_ts: (Date.now() / 1000).toFixed(6),
    bot_access_token: execution.token,
  };
}

/** The execution a completion names, if it may still be completed; else Slack's error. */
function runningExecution(
  executions: FunctionExecutions,
  args: Record<string, unknown>,
): { execution: FunctionExecution } | { refused: Answer } {
  const id = args.function_execution_id;
  if (typeof id !== 'string' || id === '') {
    return { refused: { ok: false, error: 'invalid_arguments' } };
  }
  const execution = executions.get(id);
  if (!execution) return { refused: { ok: false, error: 'function_execution_not_found' } };
  if (execution.state !== 'running') {
    return { refused: { ok: false, error: 'execution_not_in_running_state' } };
  }
  return { execution };
}

/** `functions.completeSuccess`: the outputs, checked for the step's required ones. */
export function completeSuccess(
  executions: FunctionExecutions,
  args: Record<string, unknown>,
  now: number,
): Answer {
  const found = runningExecution(executions, args);
  if ('refused' in found) return found.refused;
  const { execution } = found;
  const outputs = args.outputs;
  if (!isRecord(outputs)) return { ok: false, error: 'invalid_arguments' };
  const missing = execution.requiredOutputs.filter(
    (name) => outputs[name] === undefined || outputs[name] === null || outputs[name] === '',
  );
  if (missing.length > 0) {
    return {
      ok: false,
      error: 'parameter_validation_failed',
      errors: missing.map((name) => ({ pointer: `/outputs/${name}`, message: 'missing required' })),
    };
  }
  Object.assign(execution, { state: 'completed', outputs, completedAt: now });
  return { ok: true };
}

/** `functions.completeError`: the step ends with the app's one sentence. */
export function completeError(
  executions: FunctionExecutions,
  args: Record<string, unknown>,
  now: number,
): Answer {
  const found = runningExecution(executions, args);
  if ('refused' in found) return found.refused;
  const { execution } = found;
  if (typeof args.error !== 'string' || args.error === '') {
    return { ok: false, error: 'invalid_arguments' };
  }
  Object.assign(execution, { state: 'failed', error: args.error, completedAt: now });
  return { ok: true };
}
