import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

// A workflow step's run in the stand-in: the event Slack sends, and the one completion it takes.

let standIn: SlackStandIn;
const client = (token: string) =>
  new WebClient(token, {
    slackApiUrl: standIn.apiUrl,
    retryConfig: { retries: 0 },
    logger: recordingLogger().logger,
  });
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: { data?: { error?: string } }) => e.data?.error,
  );

beforeAll(async () => {
  standIn = await startSlackStandIn();
});
afterAll(() => standIn.close());

describe('workflow steps in the Slack stand-in', () => {
  it('sends function_executed with the execution id, its inputs and a workflow token', () => {
    const { execution, event } = standIn.functionExecution({
      callbackId: 'lookup',
      inputs: { uid: 'alice' },
    });
    expect(event).toMatchObject({
      type: 'function_executed',
      function: { callback_id: 'lookup' },
      inputs: { uid: 'alice' },
      function_execution_id: execution.id,
      bot_access_token: execution.token,
    });
    expect(execution.token).not.toBe(standIn.botToken);
  });

  it('completes an execution once, with the workflow token or the bot token', async () => {
    const first = standIn.functionExecution({ callbackId: 'a', inputs: {} }).execution;
    await client(first.token).functions.completeSuccess({
      function_execution_id: first.id,
      outputs: { name: 'Alice' },
    });
    expect(standIn.executions.get(first.id)).toMatchObject({
      state: 'completed',
      outputs: { name: 'Alice' },
    });
    expect(
      await errorOf(
        client(standIn.botToken).functions.completeError({
          function_execution_id: first.id,
          error: 'late',
        }),
      ),
    ).toBe('execution_not_in_running_state');
    const second = standIn.functionExecution({ callbackId: 'b', inputs: {} }).execution;
    await client(standIn.botToken).functions.completeError({
      function_execution_id: second.id,
      error: 'No such user.',
    });
    expect(standIn.executions.get(second.id)).toMatchObject({
      state: 'failed',
      error: 'No such user.',
    });
  });

  it('refuses an unknown execution, a missing required output and a stranger token', async () => {
    const bot = client(standIn.botToken);
    expect(
      await errorOf(
        bot.functions.completeSuccess({ function_execution_id: 'Fx0NOPE', outputs: {} }),
      ),
    ).toBe('function_execution_not_found');
    const { execution } = standIn.functionExecution({
      callbackId: 'c',
      inputs: {},
      requiredOutputs: ['outcome'],
    });
    expect(
      await errorOf(
        bot.functions.completeSuccess({ function_execution_id: execution.id, outputs: {} }),
      ),
    ).toBe('parameter_validation_failed');
    expect(
      await errorOf(
        client('xwfp-forged').functions.completeSuccess({
          function_execution_id: execution.id,
          outputs: { outcome: 'applied' },
        }),
      ),
    ).toBe('invalid_auth');
    expect(standIn.executions.get(execution.id)?.state).toBe('running');
  });
});
