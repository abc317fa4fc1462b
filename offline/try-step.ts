import { ACTIONS, FUNCTIONS } from '../src/slack/ids.ts';
import { SANDBOX_SESSION_IDS } from './cometchat-standin/server.ts';
import { createSlackDriver } from './slack-standin/driver.ts';
import type { FunctionExecution } from './slack-standin/server.ts';
import type { OfflineStack } from './stack/offline-stack.ts';

// `npm run try -- step <name> ...`: one Workflow Builder step run end to end, as Slack runs it:
// the function_executed event to the app, then the one completion the app sends back. A
// change's step posts its approval request; a second editor approves it, and the step ends.

/** The steps the try runs, by the name typed after `step`, with what they default to. */
const STEPS: Record<
  string,
  { callbackId: string; inputs(rest: string[]): Record<string, unknown> }
> = {
  'lookup-user': {
    callbackId: FUNCTIONS.lookupUser,
    inputs: ([uid = 'cometchat-uid-4', action = 'sendMessage']) => ({ uid, action }),
  },
  'lookup-call': {
    callbackId: FUNCTIONS.lookupCall,
    inputs: ([sessionId = SANDBOX_SESSION_IDS.withRecordings]) => ({ session_id: sessionId }),
  },
  'change-role': {
    callbackId: FUNCTIONS.changeUserRole,
    inputs: ([uid = 'cometchat-uid-4', role = 'vip']) => ({ uid, role, reason: 'from a workflow' }),
  },
  deactivate: {
    callbackId: FUNCTIONS.changeUserAccount,
    inputs: ([uid = 'cometchat-uid-5']) => ({ uid, deactivate: true }),
  },
  reactivate: {
    callbackId: FUNCTIONS.changeUserAccount,
    inputs: ([uid = 'cometchat-uid-5']) => ({ uid, deactivate: false }),
  },
};

export const STEP_NAMES = Object.keys(STEPS);

/** Who runs the workflow and who approves, and where approvals go, in the step's try. */
export interface StepTryPeople {
  runner: string;
  approver: string;
  channel: string;
}

type Print = (text: string) => void;
type Render = (payload: Record<string, unknown>, where?: string) => string;

/** Runs `step <name> [...]`; false when the name is no step the try knows. */
export async function stepTry(
  stack: OfflineStack,
  [name = 'lookup-user', ...rest]: string[],
  people: StepTryPeople,
  { print, render }: { print: Print; render: Render },
): Promise<boolean> {
  const step = STEPS[name];
  if (!step) {
    process.stderr.write(`There is no step "${name}"; the steps are ${STEP_NAMES.join(', ')}.\n`);
    process.exitCode = 2;
    return false;
  }
  // The runner starts the workflow (a link, a shortcut, a button or a form), so Slack names them
  // in the step's interactivity: a lookup's must be a viewer, a change's an editor.
  const inputs = step.inputs(rest);
  print(
    `\n> a workflow runs the step ${step.callbackId} with ${JSON.stringify(inputs)}, started by <@${people.runner}> (its interactor)`,
  );
  const mark = stack.slack.calls.length;
  const { execution } = await stack.driver.functionExecuted({
    callbackId: step.callbackId,
    inputs,
    interactor: people.runner,
  });
  const posted = await stack.slack.waitFor(
    () =>
      execution.state !== 'running'
        ? 'ended'
        : stack.slack.calls
            .slice(mark)
            .find((c) => c.method === 'chat.postMessage' && c.args.channel === people.channel),
    15_000,
  );
  if (posted !== 'ended') {
    print(`\n${render(posted.args, `posted in ${people.channel}`)}`);
    print(`\n  (the step waits: ${execution.state})`);
    await approve(stack, posted.args.blocks, people, print);
  }
  printCompletion(await ended(stack, execution), print);
  return true;
}

/** The second editor clicks the request's _Approve_. */
async function approve(stack: OfflineStack, blocks: unknown, people: StepTryPeople, print: Print) {
  const button = JSON.stringify(blocks).match(
    new RegExp(`"action_id":"${ACTIONS.approveChange}","value":"((?:[^"\\\\]|\\\\.)*)"`),
  );
  if (!button?.[1]) throw new Error('the request offers no Approve');
  print(`\n> <@${people.approver}> clicks "Approve"`);
  const lead = createSlackDriver({
    appUrl: stack.appUrl,
    signingSecret: stack.config.slack.signingSecret ?? '',
    standIn: stack.slack,
    userId: people.approver,
  });
  await lead.interaction(
    lead.blockAction({
      actionId: ACTIONS.approveChange,
      value: JSON.parse(`"${button[1]}"`) as string,
      message: { ts: '1700000000.000200', blocks: Array.isArray(blocks) ? blocks : [] },
    }),
  );
}

function ended(stack: OfflineStack, execution: FunctionExecution): Promise<FunctionExecution> {
  return stack.slack.waitFor(() => (execution.state === 'running' ? undefined : execution), 15_000);
}

function printCompletion(execution: FunctionExecution, print: Print): void {
  if (execution.state === 'completed') {
    print(`\n< functions.completeSuccess ${JSON.stringify(execution.outputs, null, 2)}`);
  } else {
    print(`\n< functions.completeError "${execution.error ?? ''}"`);
    process.exitCode = 1;
  }
}
