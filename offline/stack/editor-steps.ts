import { permissionSpec } from '../../src/cometchat/catalogue.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import type { SlackDriver } from '../slack-standin/driver.ts';
import type { SlackStandIn } from '../slack-standin/server.ts';
import { initialStateValues, type ViewStateValues } from '../slack-standin/view-state.ts';
import { waitFor } from '../slack-standin/wait-for.ts';
import type { StoredView } from '../slack-standin/web-api.ts';

// The permission editor driven the way a person drives it in Slack: open, pick a category,
// change a field, review, confirm. Shared by the offline try and the integration tests.

type Json = Record<string, unknown>;

/**
 * What the steps drive: the app, through a driver that acts as Slack, and the stand-in's
 * records of what the app sent. An offline stack is one; so is a stand-in in another process
 * with an app started apart (`npm run try -- --app`, remote.ts).
 */
export interface DrivenStack {
  slack: Pick<SlackStandIn, 'views' | 'calls' | 'nextCall' | 'waitFor'>;
  driver: SlackDriver;
}

export function currentView(stack: DrivenStack, id: string): StoredView {
  const view = stack.slack.views.get(id);
  if (!view) throw new Error(`the stand-in has no view ${id}`);
  return view;
}

/**
 * `/cometchat [app] perms <role>`: resolves with the editor once it is filled in. Without an app
 * the command names none, and the app chooses (the channel's default, then the first).
 */
export async function openEditor(
  stack: DrivenStack,
  role: string,
  app?: string,
): Promise<StoredView> {
  const mark = stack.slack.calls.length;
  await stack.driver.command(`${app ? `${app} ` : ''}perms ${role}`);
  return editorShown(stack, mark);
}

/**
 * The editor as an opening after call `mark` leaves it: opened filled in, or (when its data
 * took a while) opened on "Loading…" and then filled in or told what failed.
 */
export async function editorShown(stack: DrivenStack, mark: number): Promise<StoredView> {
  return modalShown(stack, mark, 5_000);
}

/**
 * The modal a command opened after call `mark`, once its placeholder (if it opened on one) is
 * replaced: the editor, a user change's review, or the modal saying why there is none.
 */
export async function modalShown(
  stack: DrivenStack,
  mark: number,
  timeoutMs = 15_000,
): Promise<StoredView> {
  const opened = await stack.slack.nextCall('views.open', mark, timeoutMs);
  const answer = await waitFor(() => opened.answer, 5_000, 'the answer to views.open');
  const id = String((answer.view as Json | undefined)?.id);
  if (!isPlaceholderView(opened.args.view)) return currentView(stack, id);
  await waitFor(
    () =>
      stack.slack.calls
        .slice(mark)
        .find((c) => c.method === 'views.update' && c.args.view_id === id && c.answer),
    timeoutMs,
    `the update of the placeholder view ${id}`,
  );
  return currentView(stack, id);
}

/**
 * A modal's placeholder while what it shows loads: one block that starts with the hourglass
 * ("Loading the editor…", a user change's "Asking CometChat…") and nothing to submit.
 */
export function isPlaceholderView(view: unknown): boolean {
  const modal = view as Json | undefined;
  const blocks = modal?.blocks;
  if (!Array.isArray(blocks) || blocks.length !== 1 || modal?.submit) return false;
  const text = ((blocks[0] as Json).text as Json | undefined)?.text;
  return typeof text === 'string' && text.startsWith(':hourglass_flowing_sand:');
}

/** Whether `view` is a review that "Apply" (or "Request approval") submits: a role's or a user's. */
export function isReview(view: StoredView): boolean {
  return view.callback_id === CALLBACKS.permissionsConfirm;
}

/** The editor's placeholder while its data loads: one block that says so. */
export function isLoadingView(view: unknown): boolean {
  const blocks = (view as Json | undefined)?.blocks;
  return (
    Array.isArray(blocks) &&
    blocks.length === 1 &&
    JSON.stringify(blocks[0]).includes('Loading the editor')
  );
}

export async function switchCategory(
  stack: DrivenStack,
  view: StoredView,
  category: string,
  values: ViewStateValues = initialStateValues(view),
): Promise<StoredView> {
  const mark = stack.slack.calls.length;
  await stack.driver.interaction(
    stack.driver.blockAction({
      actionId: ACTIONS.permissionsCategory,
      selectedOption: { value: category },
      view,
      values,
    }),
  );
  await stack.slack.nextCall('views.update', mark);
  return currentView(stack, view.id);
}

function blocksOf(view: Json): Json[] {
  return (view.blocks ?? []) as Json[];
}

/** The category the editor shows, read from its category picker as a person would. */
export function categoryOnScreen(view: StoredView): string | undefined {
  for (const block of blocksOf(view)) {
    for (const element of (block.elements ?? []) as Json[]) {
      if (element.action_id !== ACTIONS.permissionsCategory) continue;
      const value = (element.initial_option as Json | undefined)?.value;
      return typeof value === 'string' ? value : undefined;
    }
  }
  return undefined;
}

/**
 * The state a person produces by setting one field of the category on screen. A key the shipped
 * catalogue lacks (one the app's CometChat defines) can be set when it is an allow/deny checkbox
 * on screen.
 */
export function withFieldSet(
  view: StoredView,
  key: string,
  value: string | string[],
): ViewStateValues {
  const values = initialStateValues(view);
  const spec = permissionSpec(key);
  const checkbox = blocksOf(view).find((b) => {
    const options = ((b.element as Json | undefined)?.options ?? []) as Json[];
    return String(b.block_id).startsWith('a:') && options.some((o) => o.value === key);
  });
  if (!spec && !checkbox) throw new Error(`${key} is not in the permission catalogue`);
  if (!spec || spec.kind === 'action') {
    const block = checkbox;
    if (!block) throw new Error(`${key} is not on screen`);
    const options = ((block.element as Json).options ?? []) as Json[];
    const field = values[String(block.block_id)]?.[ACTIONS.permissionsField] as {
      selected_options: Json[];
    };
    const selected = field.selected_options.filter((o) => o.value !== key);
    if (value === 'allow') selected.push(options.find((o) => o.value === key) ?? { value: key });
    field.selected_options = selected;
    return values;
  }
  const block = blocksOf(view).find((b) => String(b.block_id).endsWith(`:${key}`));
  if (!block) throw new Error(`${key} is not on screen`);
  const field = values[String(block.block_id)]?.[ACTIONS.permissionsField] as Json;
  if (spec.kind === 'mode') field.selected_option = { value };
  else if (spec.kind === 'freeList') field.value = Array.isArray(value) ? value.join(', ') : value;
  else field.selected_options = (Array.isArray(value) ? value : [value]).map((v) => ({ value: v }));
  return values;
}

/**
 * The state a person produces by choosing exactly `keys` in the category's "Back to the default",
 * on top of `values` (the form as shown, unless said).
 */
export function withUnsetChosen(
  view: StoredView,
  keys: readonly string[],
  values: ViewStateValues = initialStateValues(view),
): ViewStateValues {
  const block = blocksOf(view).find(
    (b) => (b.element as Json | undefined)?.action_id === ACTIONS.permissionsUnset,
  );
  if (!block) throw new Error('the category on screen has no "Back to the default"');
  const options = ((block.element as Json).options ?? []) as Json[];
  const chosen = keys.map((key) => {
    const found = options.find((o) => o.value === key);
    if (!found) throw new Error(`"Back to the default" does not offer ${key} here`);
    return found;
  });
  values[String(block.block_id)] = {
    [ACTIONS.permissionsUnset]: { type: 'multi_static_select', selected_options: chosen },
  };
  return values;
}

export interface SubmitAnswer {
  status: number;
  response_action?: string;
  view?: Json;
  errors?: Record<string, string>;
}

export async function submitView(
  stack: DrivenStack,
  view: StoredView,
  values: ViewStateValues,
): Promise<SubmitAnswer> {
  const exchange = await stack.driver.interaction(stack.driver.viewSubmission({ view, values }));
  const body = exchange.body ? (JSON.parse(exchange.body) as Omit<SubmitAnswer, 'status'>) : {};
  return { status: exchange.status, ...body };
}

/** The confirmation view pushed on top of `editor`. */
export function confirmationOf(stack: DrivenStack, editor: StoredView): StoredView | undefined {
  return [...stack.slack.views.values()].find(
    (v) => v.callback_id === CALLBACKS.permissionsConfirm && v.previous_view_id === editor.id,
  );
}

/** "Apply": resolves with the view that shows the outcome (result or failure). */
export async function confirm(
  stack: DrivenStack,
  confirmation: StoredView,
): Promise<{ pending: SubmitAnswer; outcome: StoredView }> {
  const mark = stack.slack.calls.length;
  const pending = await submitView(stack, confirmation, {});
  const update = await stack.slack.nextCall('views.update', mark, 15_000);
  return { pending, outcome: currentView(stack, String(update.args.view_id)) };
}

/** The "Apply the same change to <app>" buttons of a result, by app name. */
export function promotionsOf(result: StoredView): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const block of blocksOf(result)) {
    for (const element of (block.elements ?? []) as Json[]) {
      const id = String(element.action_id ?? '');
      // The value names the app signed; the action id names it plainly.
      const prefix = `${ACTIONS.promoteChange}:`;
      if (id.startsWith(prefix)) found.set(id.slice(prefix.length), element);
    }
  }
  return found;
}

/**
 * "Apply the same change to <app>" on a result: resolves with the view pushed on top of it once
 * it is filled in (that app's confirmation, or why there is none).
 */
export async function promote(
  stack: DrivenStack,
  result: StoredView,
  app: string,
  button: Json | undefined = promotionsOf(result).get(app),
): Promise<StoredView> {
  if (!button) throw new Error(`the result offers no promotion to ${app}`);
  const mark = stack.slack.calls.length;
  const before = new Set(stack.slack.views.keys());
  await stack.driver.interaction(
    stack.driver.blockAction({
      actionId: String(button.action_id),
      value: String(button.value),
      view: result,
    }),
  );
  await stack.slack.nextCall('views.push', mark);
  // The stand-in keeps no stack for views.push: the pushed view is the one that is new.
  const view = [...stack.slack.views.values()].find((v) => !before.has(v.id));
  if (!view) throw new Error('nothing was pushed for the promotion');
  // A refusal is pushed as it is; a review is pushed as "Preparing…", then filled in.
  if (JSON.stringify(view.blocks).includes('Preparing the review')) {
    const filled = await stack.slack
      .waitFor(
        () =>
          stack.slack.calls
            .slice(mark)
            .find((c) => c.method === 'views.update' && c.args.view_id === view.id),
        5_000,
      )
      .catch(() => undefined);
    if (filled) return currentView(stack, view.id);
  }
  return view;
}
