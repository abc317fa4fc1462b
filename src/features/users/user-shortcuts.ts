import type { App, BlockAction, ButtonAction, MessageShortcut } from '@slack/bolt';
import type { View } from '@slack/types';
import type { CometChatApp } from '../../apps/apps.ts';
import { CometChatError } from '../../cometchat/errors.ts';
import { findUidCandidates, storedUid, uidProblem } from '../../cometchat/id-rules.ts';
import { UID_CASE_SENTENCE } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { plain, section } from '../../slack/blocks.ts';
import { recipientOf, respondOrFallBack, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, ShortcutArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import {
  appOfForm,
  createUserSearchOptions,
  type PickOrPaste,
  pasteBlock,
  pickedOrPasted,
  userSelect,
} from '../options.ts';
import { createUserCard, type UserDeps } from './user-lookup.ts';

// The card from elsewhere than the command: "Look up user" on a message that names a uid, and
// the Home tab's "Look up a user" form.

/** A message names a few uids at most worth a card each; the rest would be a flood. */
const CARDS_PER_MESSAGE = 3;
const UID_BLOCK = 'user_uid';
const UID_INPUT = 'uid';
const APP_BLOCK = 'user_app';
const APP_INPUT = 'app';
const PICK_BLOCK = 'user_pick';
/** The user select, and the text field that still takes a uid typed or pasted. */
const UID_FIELDS: PickOrPaste = {
  pick: { block: PICK_BLOCK, action: ACTIONS.userSearch },
  paste: { block: UID_BLOCK, action: UID_INPUT },
};

/** The cards of the uids among `candidates` that the app has; unknown ones are left out. */
async function cardsOf(
  deps: UserDeps,
  app: CometChatApp,
  candidates: readonly string[],
  viewer: string,
): Promise<SlackMessage[]> {
  const card = createUserCard(deps);
  const cards = await Promise.all(
    candidates.map((uid) =>
      card(app, uid, viewer).catch((error: unknown) => {
        // A word that is no uid of this app is the common case, not a failure.
        if (error instanceof CometChatError && error.kind === 'not_found') return undefined;
        throw error;
      }),
    ),
  );
  return cards.filter((c): c is SlackMessage => c !== undefined);
}

/** "Look up user" on a message: the card of each uid it names, or one sentence. */
function createUserShortcut(deps: UserDeps) {
  return async ({ ack, shortcut, respond }: ShortcutArgs<MessageShortcut>) => {
    await ack();
    const app = deps.apps.forChannel(shortcut.channel.id);
    const candidates = findUidCandidates(shortcut.message.text ?? '').slice(0, CARDS_PER_MESSAGE);
    const cards = await cardsOf(deps, app, candidates, shortcut.user.id);
    const reply = respondOrFallBack(respond, recipientOf(shortcut), deps.deliver);
    currentRequest().log.info(
      { candidates: candidates.length, found: cards.length },
      'users looked up from a message',
    );
    if (cards.length === 0) {
      const looked =
        candidates.length > 0 ? ` (looked for ${candidates.map(code).join(', ')})` : '';
      const text = `No CometChat user is named in that message${looked}. Try \`/cometchat user <uid>\`.`;
      return reply({ response_type: 'ephemeral', text });
    }
    for (const card of cards) await reply(card);
  };
}

/** The Home tab's form: a user picked or a uid pasted, and the app when there are several. Pure. */
export function userLookupView(appNames: readonly string[]): View {
  const pick = {
    type: 'input' as const,
    block_id: PICK_BLOCK,
    optional: true,
    label: plain('User'),
    element: userSelect(ACTIONS.userSearch),
  };
  const uid = {
    ...pasteBlock(UID_FIELDS.paste, 'Or paste their uid', 100),
    hint: plain(UID_CASE_SENTENCE, 150),
  };
  const app = {
    type: 'input' as const,
    block_id: APP_BLOCK,
    label: plain('CometChat app'),
    element: {
      type: 'static_select' as const,
      action_id: APP_INPUT,
      options: appNames.slice(0, 100).map((name) => ({ text: plain(name), value: name })),
    },
  };
  return {
    type: 'modal',
    callback_id: CALLBACKS.lookupUserModal,
    title: plain('Look up a user', 24),
    submit: plain('Look up', 24),
    close: plain('Cancel', 24),
    blocks: [
      section('The card comes to you in the app’s Messages tab.'),
      // The app first: the user select searches the app chosen.
      ...(appNames.length > 1 ? [app] : []),
      pick,
      uid,
    ],
  };
}

/**
 * The uid the form gives, picked or pasted; or what is wrong, on the field it came from: none,
 * two different ones, or one that cannot be a uid. Pure.
 */
export function readLookupUid(
  values: SubmitArgs['view']['state']['values'],
): { uid: string } | { errors: Record<string, string> } {
  const given = pickedOrPasted(values, UID_FIELDS);
  if ('problem' in given) return { errors: { [PICK_BLOCK]: given.problem } };
  if (given.id === '')
    return { errors: { [PICK_BLOCK]: 'Pick a user, or paste their uid below.' } };
  const problem = uidProblem(given.id);
  return problem ? { errors: { [UID_BLOCK]: problem } } : { uid: storedUid(given.id) };
}

/** The form submitted: a bad uid is said on its field; the card goes to the person's DM. */
function createLookupSubmission(deps: UserDeps) {
  return async ({ ack, view, body }: SubmitArgs) => {
    const values = view.state.values;
    const read = readLookupUid(values);
    if ('errors' in read) {
      return void (await ack({ response_action: 'errors', errors: read.errors }));
    }
    await ack();
    const named = values[APP_BLOCK]?.[APP_INPUT]?.selected_option?.value;
    const app = (named ? deps.apps.byName(named) : undefined) ?? deps.apps.forChannel(undefined);
    const card = await createUserCard(deps)(app, read.uid, body.user.id);
    // A modal's submission has no response_url (the form asks for none), so Bolt gives no
    // `respond`: the card goes to the person's DM with the app, as the form says.
    await deps.deliver({ userId: body.user.id }, card, currentRequest().log);
  };
}

export function registerUserShortcuts(bolt: App, deps: UserDeps): void {
  // By type too: a global shortcut with this callback_id carries no message to read.
  bolt.shortcut<MessageShortcut>(
    { callback_id: CALLBACKS.lookupUserMessage, type: 'message_action' },
    createUserShortcut(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(
    ACTIONS.homeLookupUser,
    async ({ ack, body }: ButtonArgs) => {
      await ack();
      const names = deps.apps.all.map((a) => a.name);
      await deps.views.open({ trigger_id: body.trigger_id, view: userLookupView(names) });
    },
  );
  bolt.view(CALLBACKS.lookupUserModal, createLookupSubmission(deps));
  bolt.options(
    { type: 'block_suggestion', action_id: ACTIONS.userSearch },
    createUserSearchOptions((body) =>
      appOfForm(deps.apps, body, { block: APP_BLOCK, action: APP_INPUT }),
    ),
  );
}
