import type { App } from '@slack/bolt';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import { appNameIfMultiple, type CometChatApp } from '../../apps/apps.ts';
import {
  type AskedUserChange,
  appLabel,
  requestApproval,
  requestedNotice,
  userChangeOf,
} from '../../changes/index.ts';
import { valueInWords } from '../../cometchat/catalogue.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { currentRequest } from '../../request-context.ts';
import { SLACK_CALL_LONGEST_MS } from '../../slack/clients.ts';
import { FUNCTIONS } from '../../slack/ids.ts';
import type { StepArgs } from '../../slack/listener-args.ts';
import { code, plainOfMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { Refusal } from '../feature.ts';
import {
  Interactivity,
  NO_PERSON_FOR_CHANGE,
  OptionalText,
  readInputs,
  runnerViewRefusal,
  type StepResult,
  stepApp,
  stepListener,
} from '../workflow-step.ts';
import { type CanConclusion, explainCan } from './can.ts';
import { byDefaultsSentence, LAYER_PLACE } from './can-view.ts';
import { type UserChangeAsked, userChangeProblem } from './user-changes.ts';
import { canFacts } from './user-lookup.ts';
import { parseUserWords } from './user-words.ts';

// The users feature's Workflow Builder steps: look a user up (and ask "can"), and ask for a
// user's new role or account. A change's step goes the road a person's change goes: the same
// edit rule for its runner, the same Change, the same approval request; it ends when the
// request is decided (src/changes/step-completion.ts).

const LookupInputs = z.object({
  interactivity: Interactivity,
  uid: z.string(),
  app: OptionalText,
  action: OptionalText,
});

const ChangeInputs = z.object({
  interactivity: Interactivity,
  uid: z.string(),
  app: OptionalText,
  reason: OptionalText,
});
const RoleInputs = ChangeInputs.extend({ role: z.string() });
const AccountInputs = ChangeInputs.extend({ deactivate: z.boolean() });

/**
 * The `can` walk's conclusion as one plain sentence, for an output a later step puts anywhere:
 * "allowed"; "denied by" the key and its value in its layer, or "denied" and why; "cannot tell"
 * and why. The walk's words, its mrkdwn marks taken off. Pure.
 */
export function canAnswer(conclusion: CanConclusion): string {
  switch (conclusion.kind) {
    case 'allowed':
      return 'allowed';
    case 'denied': {
      const why = plainOfMrkdwn(conclusion.why);
      if (conclusion.key === undefined) return `denied: ${why}`;
      const key = plainOfMrkdwn(permissionKeyText(conclusion.key));
      const value = truncate(valueInWords(conclusion.value), 80);
      const place = LAYER_PLACE[conclusion.layer ?? 'role'];
      // As the walk's line: why, only where a group's layer is named (a role's is the key's value).
      return `denied by ${key} = ${value} ${place}${conclusion.layer ? `: ${why}` : ''}`;
    }
    case 'cannot-tell': {
      const why = `cannot tell: ${plainOfMrkdwn(conclusion.why)}`;
      return conclusion.byDefaults ? `${why}. ${byDefaultsSentence(conclusion.byDefaults)}` : why;
    }
  }
}

/** The lookup step's outputs: the user, and the `can` answer when an action was given. Pure. */
export function userOutputs(
  user: User,
  conclusion: CanConclusion | undefined,
): Record<string, unknown> {
  return {
    name: user.name,
    role: user.role,
    status: user.status,
    deactivated: accountOf(user) === 'deactivated',
    ...(user.createdAt === undefined ? {} : { created_at: user.createdAt }),
    ...(user.lastActiveAt === undefined ? {} : { last_active_at: user.lastActiveAt }),
    can: conclusion ? canAnswer(conclusion) : '',
  };
}

/**
 * _Look up a CometChat user_: the person who started the workflow checked as the command's
 * person is (VIEWERS), the uid read as the command reads it, then the user.
 */
function createLookupStep(deps: AppDeps) {
  return async ({ inputs }: StepArgs): Promise<StepResult> => {
    const read = readInputs(LookupInputs, inputs);
    if ('refusal' in read) return read;
    const { interactivity, uid, app: name, action } = read.inputs;
    const refusal = await runnerViewRefusal(deps.access, interactivity?.interactor.id);
    if (refusal) return { refusal };
    const chosen = stepApp(deps.apps, name);
    if ('refusal' in chosen) return chosen;
    const words = parseUserWords(action === undefined ? [uid] : [uid, 'can', action]);
    if (words instanceof Refusal) return { refusal: words.problem };
    const { app } = chosen;
    const [user, facts] = await Promise.all([
      app.cometchat.getUser(words.uid),
      words.kind === 'can' ? canFacts(deps, app, words) : undefined,
    ]);
    return { outputs: userOutputs(user, facts && explainCan(facts).conclusion) };
  };
}

/**
 * A change a step asks of a user: by whom (the person who started the workflow, as Slack names
 * them), of which user, what, and why.
 */
interface StepChange {
  runner: string;
  uid: string;
  app: string | undefined;
  reason: string | undefined;
  what: UserChangeAsked;
}

/** The change asked of `user` as a person's review puts it: from what they have now. Pure. */
export function askedOf(user: User, what: UserChangeAsked): AskedUserChange {
  return {
    uid: user.uid,
    name: user.name,
    role: user.role,
    key: what.key,
    before: what.key === 'role' ? user.role : accountOf(user),
    after: what.to,
  };
}

/** The sentence for a step asking a change of an app without approvals. Pure. */
export function noApprovalsSentence(app: Pick<CometChatApp, 'name'>): string {
  return `The app ${code(app.name)} asks for no approvals (its APPROVAL_CHANNEL setting is unset), so a workflow step cannot get a second person's yes. Nothing was requested.`;
}

/**
 * Asks for the change as a person's review would: the runner checked against the editors, the
 * user read, the change checked, then the approval request posted and stored with the step's run
 * (which ends when it is decided). Any refusal ends the run with nothing sent or stored.
 */
async function proposeChange(
  deps: AppDeps,
  { event, body }: StepArgs,
  step: StepChange,
): Promise<StepResult> {
  const chosen = stepApp(deps.apps, step.app);
  if ('refusal' in chosen) return chosen;
  const { app } = chosen;
  const refusal = await editRefusal(app.access, step.runner, currentRequest().log, 'change a user');
  if (refusal) return { refusal };
  if (!app.approval) return { refusal: noApprovalsSentence(app) };
  const [user, roles] = await Promise.all([
    app.cometchat.getUser(step.uid),
    step.what.key === 'role' ? app.cometchat.listAllRoles() : undefined,
  ]);
  const appName = appNameIfMultiple(deps.apps, app);
  const problem = userChangeProblem(user, roles, step.what, appName);
  if (problem) return { refusal: problem };
  const change = userChangeOf(app.name, askedOf(user, step.what), event.function_execution_id);
  const label = appLabel(deps.apps, app);
  const outcome = await requestApproval(deps, deps.client, {
    app: { ...app, approval: app.approval },
    change,
    userId: step.runner,
    teamId: body.team_id,
    reason: step.reason,
    label,
    workflowStep: {
      executionId: event.function_execution_id,
      callbackId: event.function.callback_id,
    },
  });
  if (outcome.kind === 'requested') return { pending: true };
  // Repeated: Slack delivered the same run again (its id makes the change's); the request the
  // first delivery posted stands, and ends the run when it is decided. The first may still be
  // posting it; one that took the claim but never stores it (it stopped) leaves no request to
  // end the run: the run ends now.
  if (outcome.kind === 'repeated') {
    const stored = await storedWithin(() => deps.store.getApproval(change.id), deps.sleep);
    const stands = stored !== undefined;
    currentRequest().log.info({ change: change.id, stands }, 'workflow step delivered again');
    return stands ? { pending: true } : { refusal: NOT_STORED };
  }
  return { refusal: requestedNotice(outcome, change, label).sentence };
}

/**
 * How long a redelivered run waits for the first delivery's request to be stored: the first
 * takes the request's claim, posts it, then stores it, and the post through the app's client
 * may take SLACK_CALL_LONGEST_MS; the rest is the store's write (a Redis command or a SQLite
 * write gives up after 5 s) and the listener's own work.
 */
export const FIRST_DELIVERY_WAIT_MS = SLACK_CALL_LONGEST_MS + 8_000;

/** How often the redelivered run reads the store meanwhile. */
const STORED_POLL_MS = 2_000;

/**
 * What `read` finds, read again every STORED_POLL_MS until it finds something or
 * FIRST_DELIVERY_WAIT_MS has been waited; undefined when it never does.
 */
export async function storedWithin<T>(
  read: () => Promise<T | undefined>,
  sleep: (ms: number) => Promise<void>,
): Promise<T | undefined> {
  for (let waited = 0; ; waited += STORED_POLL_MS) {
    const found = await read();
    if (found !== undefined || waited >= FIRST_DELIVERY_WAIT_MS) return found;
    await sleep(STORED_POLL_MS);
  }
}

/** Said when an earlier delivery of the same run took its request's claim but never stored it. */
export const NOT_STORED =
  'An earlier delivery of this run began the approval request but did not finish it, so no request stands. Nothing was sent; run the workflow again.';

/** _Change a CometChat user's role_: the uid and the role read as the command reads them. */
function createRoleStep(deps: AppDeps) {
  return async (args: StepArgs): Promise<StepResult> => {
    const read = readInputs(RoleInputs, args.inputs);
    if ('refusal' in read) return read;
    const { interactivity, uid, role, app, reason } = read.inputs;
    const runner = interactivity?.interactor.id;
    if (runner === undefined) return { refusal: NO_PERSON_FOR_CHANGE };
    const words = parseUserWords([uid, 'role', role]);
    if (words instanceof Refusal) return { refusal: words.problem };
    if (words.kind !== 'role') return { refusal: `${code(role)} cannot be a role id.` };
    const what: UserChangeAsked = { key: 'role', to: words.role };
    return proposeChange(deps, args, { runner, uid: words.uid, app, reason, what });
  };
}

/** _Deactivate or reactivate a CometChat user_. */
function createAccountStep(deps: AppDeps) {
  return async (args: StepArgs): Promise<StepResult> => {
    const read = readInputs(AccountInputs, args.inputs);
    if ('refusal' in read) return read;
    const { interactivity, uid, deactivate, app, reason } = read.inputs;
    const runner = interactivity?.interactor.id;
    if (runner === undefined) return { refusal: NO_PERSON_FOR_CHANGE };
    const words = parseUserWords([uid]);
    if (words instanceof Refusal) return { refusal: words.problem };
    const what: UserChangeAsked = { key: 'status', to: deactivate ? 'deactivated' : 'active' };
    return proposeChange(deps, args, { runner, uid: words.uid, app, reason, what });
  };
}

export function registerUserSteps(bolt: App, deps: AppDeps): void {
  bolt.function(FUNCTIONS.lookupUser, stepListener(deps, createLookupStep(deps)));
  bolt.function(FUNCTIONS.changeUserRole, stepListener(deps, createRoleStep(deps)));
  bolt.function(FUNCTIONS.changeUserAccount, stepListener(deps, createAccountStep(deps)));
}
