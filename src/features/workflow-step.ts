import { z } from 'zod';
import type { Access } from '../access/access.ts';
import type { Apps, CometChatApp } from '../apps/apps.ts';
import { outputsRefused, stepErrorText } from '../changes/index.ts';
import { failureSentence, type SentenceDeps } from '../replies/failure.ts';
import { withRef } from '../replies/sentences.ts';
import { currentRequest } from '../request-context.ts';
import { slackErrorCode } from '../slack/deliver.ts';
import type { StepArgs } from '../slack/listener-args.ts';
import { code } from '../slack/mrkdwn.ts';

// What the Workflow Builder steps share: reading a step's inputs, choosing its app, and ending
// every run. Each step is one `app.function` in its feature's register.

/** What a step's run comes to: its outputs, the one sentence that ends it, or a wait. */
export type StepResult =
  | { outputs: Record<string, unknown> }
  | { refusal: string }
  /** A change asked for: the run ends when its approval request is decided (changes/). */
  | { pending: true };

/** An optional text input: Workflow Builder sends an empty field as absent or as ''. */
export const OptionalText = z
  .string()
  .optional()
  .transform((text) => (text?.trim() ? text.trim() : undefined));

/**
 * Slack's `interactivity` input (slack#/types/interactivity): Slack fills it in a workflow a
 * person starts (a link, a shortcut, a button or a form) with that person, the `interactor`; the
 * workflow's author cannot set it, as they could a user-id input. Absent in a workflow nobody
 * starts (a schedule, an event). The interactor's `secret` is not read.
 */
export const Interactivity = z
  .object({
    interactivity_pointer: z.string(),
    interactor: z.object({ id: z.string().min(1) }),
  })
  .optional();

/** Where a person starts a workflow, as the step's refusals say it. */
const STARTED_BY = 'a workflow a person starts (a link, a shortcut, a button or a form)';

/** Said when a change's step runs in a workflow nobody started: it has no one to ask for. */
export const NO_PERSON_FOR_CHANGE = `This step must run in ${STARTED_BY}: a change is asked for in that person's name, and checked against the editors. Nothing was requested.`;

/** Said when a lookup's step runs in a workflow nobody started while VIEWERS is set. */
export const NO_PERSON_FOR_LOOKUP = `This step must run in ${STARTED_BY}: VIEWERS limits who may use the app, so the step must know who asks.`;

/** A step's inputs read by `schema`, or the sentence naming the first that is wrong. Pure. */
export function readInputs<T>(
  schema: z.ZodType<T>,
  inputs: unknown,
): { inputs: T } | { refusal: string } {
  const parsed = schema.safeParse(inputs);
  if (parsed.success) return { inputs: parsed.data };
  const [issue] = parsed.error.issues;
  const name = issue?.path.join('.') || 'inputs';
  return { refusal: `The step's input ${code(name)} is missing or not of its type.` };
}

/**
 * The app a step names, as the command chooses one: the named app, else the first; or the
 * sentence for a name no app has. Pure.
 */
export function stepApp(
  apps: Pick<Apps, 'all' | 'byName' | 'forChannel'>,
  name: string | undefined,
): { app: CometChatApp } | { refusal: string } {
  if (name === undefined) return { app: apps.forChannel(undefined) };
  const app = apps.byName(name);
  if (app) return { app };
  const names = apps.all.map((a) => code(a.name)).join(', ');
  return { refusal: `There is no CometChat app ${code(name)}; the apps are ${names}.` };
}

/**
 * The sentence refusing the person who started the workflow (`runner`) a lookup, or undefined
 * when they may view: VIEWERS, asked as the global middleware asks it of a person
 * (requireViewer), whom a step's event does not name. With VIEWERS unset, everyone in the
 * workspace may view, so a workflow nobody started may too.
 */
export async function runnerViewRefusal(
  access: Pick<Access, 'viewRefusal' | 'limitsViewers'>,
  runner: string | undefined,
): Promise<string | undefined> {
  const { log } = currentRequest();
  if (runner === undefined) return access.limitsViewers ? NO_PERSON_FOR_LOOKUP : undefined;
  const refusal = await access.viewRefusal(runner, log);
  if (refusal) log.warn({ user: runner }, 'request refused: not a viewer');
  return refusal;
}

/**
 * One step's listener: `run`, then the run ended with its outputs or its one sentence. Bolt
 * leaves a run that throws unended (the workflow waits until Slack gives up on it), so a failure
 * ends it here with the sentence a person would be told and the reference the log has; so does
 * Slack refusing the outputs (`parameter_validation_failed`).
 */
export function stepListener(deps: SentenceDeps, run: (args: StepArgs) => Promise<StepResult>) {
  return async (args: StepArgs): Promise<void> => {
    const { log, ref } = currentRequest();
    const callbackId = args.event.function.callback_id;
    const result = await run(args).catch((error: unknown): StepResult => {
      log.warn({ err: error, step: callbackId }, 'workflow step failed');
      return { refusal: withRef(failureSentence(error, deps), ref) };
    });
    if ('outputs' in result) {
      await args.complete({ outputs: result.outputs }).catch(async (error: unknown) => {
        const cause = slackErrorCode(error);
        log.warn({ cause, step: callbackId }, 'workflow step outputs refused');
        await args.fail({ error: stepErrorText(withRef(outputsRefused(cause), ref)) });
      });
    } else if ('refusal' in result) {
      log.info({ step: callbackId }, 'workflow step refused');
      await args.fail({ error: stepErrorText(result.refusal) });
    }
  };
}
