import { describe, expect, it } from 'vitest';
import type { StateValues } from '../../offline/slack-standin/driver.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { currentView, submitView } from '../../offline/stack/editor-steps.ts';
import { PICK_OR_PASTE_SENTENCE } from '../../src/features/options.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../../src/slack/ids.ts';
import { actionButtons, commandReply, type Harness, textOf } from './harness.ts';
import { useSharedHarness } from './support.ts';

// Type-ahead in the forms that ask for a uid or a role id, through the real app: Slack's
// `block_suggestion` answered from the CometChat stand-in's user search and role list, nothing
// when the service is slow or failing, and the text field beside each select still taking an
// id pasted.

/** How long the stand-in holds a search: far past the answer's deadline and the request's budget. */
const STALL_MS = 10_000;

/** The view a button or shortcut opened (as the stand-in holds it). */
async function opened(h: Harness, mark: number): Promise<StoredView> {
  const call = await h.slack.nextCall('views.open', mark);
  const id = String((call.args.view as { id?: string }).id ?? '');
  const view = h.slack.views.get(id) ?? [...h.slack.views.values()].at(-1);
  if (!view) throw new Error('no view was opened');
  return view;
}

async function homeUserForm(h: Harness): Promise<StoredView> {
  const mark = h.slack.calls.length;
  await h.driver.interaction(
    h.driver.blockAction({ actionId: ACTIONS.homeLookupUser, value: 'user' }),
  );
  const form = await opened(h, mark);
  expect(form.callback_id).toBe(CALLBACKS.lookupUserModal);
  return form;
}

async function callForm(h: Harness): Promise<StoredView> {
  const mark = h.slack.calls.length;
  await h.driver.interaction(h.driver.globalShortcut({ callbackId: CALLBACKS.lookupCallGlobal }));
  const form = await opened(h, mark);
  expect(form.callback_id).toBe(CALLBACKS.lookupCallModal);
  return form;
}

/** The card's Change role, as an editor: the role picker (after "Asking…"). */
async function rolePicker(h: Harness, uid: string): Promise<StoredView> {
  const card = await commandReply(h, `user ${uid}`);
  const button = actionButtons(card).find((b) => b.action_id === ACTIONS.userChangeRole);
  if (!button?.value) throw new Error('no Change role on the card');
  const mark = h.slack.calls.length;
  await h.driver.interaction(
    h.driver.blockAction({ actionId: ACTIONS.userChangeRole, value: button.value }),
  );
  const update = await h.slack.nextCall('views.update', mark);
  const picker = currentView(h, String(update.args.view_id));
  expect(picker.callback_id).toBe(CALLBACKS.userRolePick);
  return picker;
}

const picked = (value: string) => ({ type: 'external_select', selected_option: { value } });
const pasted = (value: string) => ({ type: 'plain_text_input', value });

/** The user searches the app sent to the stand-in, by what they searched for. */
function searches(h: Harness): string[] {
  return h.sandbox.requests
    .filter((r) => r.method === 'GET' && r.path === '/v3/users' && r.query.searchKey)
    .map((r) => String(r.query.searchKey));
}

/** How long Slack waits for an options answer before it shows the person an error. */
const SLACK_OPTIONS_LIMIT_MS = 3_000;

describe('type-ahead in the forms', () => {
  const h = useSharedHarness({ env: { EDITORS: 'U0OPERATOR' } }, { resetAfterEach: true });

  it('offers the users whose uid or name starts with the text, name and uid shown', async () => {
    const form = await homeUserForm(h);
    const byUid = await h.driver.options({
      actionId: ACTIONS.userSearch,
      blockId: 'user_pick',
      value: 'cometchat-uid-1',
      view: form,
    });
    expect(byUid.status).toBe(200);
    expect(byUid.options).toContainEqual({
      text: { type: 'plain_text', text: 'Andrew Joseph (cometchat-uid-1)', emoji: true },
      value: 'cometchat-uid-1',
    });
    expect(byUid.options.every((o) => String(o.value).startsWith('cometchat-uid-1'))).toBe(true);
    const byName = await h.driver.options({
      actionId: ACTIONS.userSearch,
      blockId: 'user_pick',
      value: 'geo',
      view: form,
    });
    expect(byName.options.map((o) => o.value)).toEqual(['cometchat-uid-2']);
    expect(searches(h)).toEqual(['cometchat-uid-1', 'geo']);
  });

  it('the call lookup form offers users for the user id and for on behalf of', async () => {
    const form = await callForm(h);
    for (const blockId of [BLOCKS.lookupUserPick, BLOCKS.lookupOnBehalfOfPick]) {
      const answer = await h.driver.options({
        actionId: ACTIONS.callUserSearch,
        blockId,
        value: 'geo',
        view: form,
      });
      expect(answer.options.map((o) => o.value)).toEqual(['cometchat-uid-2']);
    }
  });

  it("offers the app's roles that match the text, but the user's own", async () => {
    // cometchat-uid-4 has role `premium`.
    const picker = await rolePicker(h, 'cometchat-uid-4');
    const ask = (value: string) =>
      h.driver.options({ actionId: 'role', blockId: 'user_role', value, view: picker });
    expect((await ask('mod')).options).toEqual([
      {
        text: { type: 'plain_text', text: 'Modérateur 🛡️ (moderator)', emoji: true },
        value: 'moderator',
      },
    ]);
    const all = (await ask('')).options.map((o) => o.value);
    expect(all).toContain('vip');
    expect(all).not.toContain('premium');
    expect((await ask('PREM')).options).toEqual([]);
  });

  it('answers no options, at once, while the service is still stalled', async () => {
    const form = await homeUserForm(h);
    h.sandbox.inject({
      kind: 'delay',
      delayMs: STALL_MS,
      pathIncludes: '/v3/users',
      times: Infinity,
    });
    const sentAt = Date.now();
    const answer = await h.driver.options({
      actionId: ACTIONS.userSearch,
      blockId: 'user_pick',
      value: 'cometchat',
      view: form,
    });
    const answeredAt = Date.now();
    expect(answer.status).toBe(200);
    expect(answer.options).toEqual([]);
    // Within Slack's limit for options, which is what the person sees: the app's own deadline is
    // one second (OPTIONS_DEADLINE_MS, held with an injected clock in test/features/options.test.ts),
    // the rest is room for a loaded machine.
    expect(answeredAt - sentAt).toBeLessThan(SLACK_OPTIONS_LIMIT_MS);
    // The search reached the stand-in, which was to hold it for ten seconds: the answer came
    // while it still held it. The request was given up, not tried again.
    const stalled = h.sandbox.requests.filter((r) => r.path === '/v3/users');
    expect(stalled).toHaveLength(1);
    expect(answeredAt).toBeLessThan((stalled[0]?.at ?? 0) + STALL_MS);
    expect(h.logs.text()).toContain('the user search for a select failed: no options shown');
  });

  it('answers no options when the service fails', async () => {
    const form = await homeUserForm(h);
    h.sandbox.inject({ kind: 'status', status: 500, pathIncludes: '/v3/users', times: Infinity });
    const answer = await h.driver.options({
      actionId: ACTIONS.userSearch,
      blockId: 'user_pick',
      value: 'cometchat',
      view: form,
    });
    expect(answer.status).toBe(200);
    expect(answer.options).toEqual([]);
  });

  it('the Home tab form takes a user picked or a uid pasted, and says so for both', async () => {
    const form = await homeUserForm(h);
    const both = await submitView(h, form, {
      user_pick: { [ACTIONS.userSearch]: picked('cometchat-uid-2') },
      user_uid: { uid: pasted('cometchat-uid-3') },
    });
    expect(both.errors).toEqual({ user_pick: PICK_OR_PASTE_SENTENCE });
    const none = await submitView(h, form, {});
    expect(none.errors).toEqual({ user_pick: 'Pick a user, or paste their uid below.' });
    for (const values of [
      { user_pick: { [ACTIONS.userSearch]: picked('cometchat-uid-2') } },
      { user_uid: { uid: pasted('cometchat-uid-3') } },
    ] satisfies StateValues[]) {
      const mark = h.slack.calls.length;
      await submitView(h, form, values);
      const dm = await h.slack.nextCall('chat.postMessage', mark);
      const uid = 'user_pick' in values ? 'cometchat-uid-2' : 'cometchat-uid-3';
      expect(textOf(dm.args)).toContain(`\`${uid}\``);
    }
  });

  it('the call lookup form takes a user picked or a uid pasted', async () => {
    for (const values of [
      { [BLOCKS.lookupUserPick]: { [ACTIONS.callUserSearch]: picked('cometchat-uid-1') } },
      { [BLOCKS.lookupUser]: { user_id: pasted('cometchat-uid-1') } },
    ] satisfies StateValues[]) {
      const form = await callForm(h);
      const mark = h.sandbox.requests.length;
      const answer = await submitView(h, form, values);
      expect(answer.errors).toBeUndefined();
      const searched = await h.slack.waitFor(() =>
        h.sandbox.requests.slice(mark).find((r) => r.path === '/v3/calls'),
      );
      expect(searched.query.uid).toBe('cometchat-uid-1');
    }
    const form = await callForm(h);
    const both = await submitView(h, form, {
      [BLOCKS.lookupOnBehalfOfPick]: { [ACTIONS.callUserSearch]: picked('cometchat-uid-1') },
      [BLOCKS.lookupOnBehalfOf]: { on_behalf_of: pasted('cometchat-uid-2') },
    });
    expect(both.errors).toEqual({ [BLOCKS.lookupOnBehalfOfPick]: PICK_OR_PASTE_SENTENCE });
  });

  it('the role picker takes a role picked or a role id pasted, and refuses an unknown one', async () => {
    const picker = await rolePicker(h, 'cometchat-uid-4');
    const unknown = await submitView(h, picker, { user_role_id: { role_id: pasted('nosuch') } });
    expect(unknown.errors).toEqual({
      user_role_id: 'There is no role `nosuch`; see `/cometchat roles`.',
    });
    const none = await submitView(h, picker, {});
    expect(none.errors).toEqual({ user_role: 'Pick a role, or paste its id below.' });
    const review = await submitView(h, picker, { user_role_id: { role_id: pasted('vip') } });
    expect(review.response_action).toBe('update');
    expect(textOf(currentView(h, picker.id))).toContain('from `premium` to `vip`');
    const again = await rolePicker(h, 'cometchat-uid-4');
    const chosen = await submitView(h, again, { user_role: { role: picked('guest') } });
    expect(chosen.response_action).toBe('update');
    expect(textOf(currentView(h, again.id))).toContain('from `premium` to `guest`');
  });
});
