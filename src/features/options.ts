import type {
  AllMiddlewareArgs,
  BlockSuggestion,
  SlackOptionsMiddlewareArgs,
  ViewOutput,
} from '@slack/bolt';
import type { ExternalSelect, InputBlock, PlainTextOption } from '@slack/types';
import type { CometChatApp } from '../apps/apps.ts';
import type { Role, User } from '../cometchat/model.ts';
import { currentRequest, msLeft } from '../request-context.ts';
import { OPTION_TEXT_LIMIT, plain, SELECT_OPTIONS_LIMIT } from '../slack/blocks.ts';
import { truncate } from '../slack/mrkdwn.ts';

// Type-ahead in the forms that ask for a uid or a role id: an `external_select` whose options
// Slack asks for as the person types (a `block_suggestion`, answered by `app.options`), beside
// the text field that still takes an id typed or pasted. What the user selects and the role
// selects share is here: the options, the deadline, and the rule that reads the pair of fields.

/**
 * How long after the request arrived the options are answered, found or not. Slack waits three
 * seconds for them; the answer must still travel back, and a list that comes after the person
 * typed on is no help. So the search gets one second, then the list is empty.
 */
export const OPTIONS_DEADLINE_MS = 1_000;
const MAX_OPTIONS = SELECT_OPTIONS_LIMIT;
const OPTION_TEXT = OPTION_TEXT_LIMIT;
/** A user search waits for two characters: one matches half the users. */
const USER_MIN_QUERY = 2;

export type OptionsArgs = SlackOptionsMiddlewareArgs<'block_suggestion'> & AllMiddlewareArgs;

/**
 * `Ana Souza (ana_souza)`, the value the uid: the name shortened rather than the uid, so that
 * the id stays whole to read and copy. A name that is the uid is shown once. Pure.
 */
export function userOption(user: Pick<User, 'uid' | 'name'>): PlainTextOption {
  const { uid, name } = user;
  const room = OPTION_TEXT - uid.length - 3;
  const text = name === uid || room < 10 ? uid : `${truncate(name, room)} (${uid})`;
  return { text: plain(text, OPTION_TEXT), value: uid };
}

/** The users found, as options: at most Slack's hundred. Pure. */
export function userOptions(users: readonly Pick<User, 'uid' | 'name'>[]): PlainTextOption[] {
  return users.slice(0, MAX_OPTIONS).map(userOption);
}

/**
 * The roles whose id or name holds the typed text, whatever the case, those starting with it
 * first; `except` (the user's own role) left out. Filtered here: the service has no role search,
 * and an app's role list is short. Pure.
 */
export function roleOptions(
  roles: readonly Pick<Role, 'role' | 'name'>[],
  typed: string,
  except?: string,
): PlainTextOption[] {
  const key = typed.trim().toLowerCase();
  const words = (r: Pick<Role, 'role' | 'name'>) => [r.role.toLowerCase(), r.name.toLowerCase()];
  const starts = (r: Pick<Role, 'role' | 'name'>) => words(r).some((w) => w.startsWith(key));
  const holds = (r: Pick<Role, 'role' | 'name'>) => words(r).some((w) => w.includes(key));
  const matching = roles.filter((r) => r.role !== except && holds(r));
  return [...matching.filter(starts), ...matching.filter((r) => !starts(r))]
    .slice(0, MAX_OPTIONS)
    .map((r) => ({
      text: plain(r.name && r.name !== r.role ? `${r.name} (${r.role})` : r.role, OPTION_TEXT),
      value: r.role,
    }));
}

/** A select of users by the start of their uid or name. Pure. */
export function userSelect(actionId: string): ExternalSelect {
  return {
    type: 'external_select',
    action_id: actionId,
    placeholder: plain('Type a name or the start of a uid'),
    min_query_length: USER_MIN_QUERY,
  };
}

/** A select of the app's roles, all of them listed as soon as it opens. Pure. */
export function roleSelect(actionId: string): ExternalSelect {
  return {
    type: 'external_select',
    action_id: actionId,
    placeholder: plain('Type a role id or name'),
    min_query_length: 0,
  };
}

/** The text field beside a select, for an id typed or pasted. Pure. */
export function pasteBlock(
  ids: { block: string; action: string },
  label: string,
  maxLength: number,
  initial?: string,
): InputBlock {
  return {
    type: 'input',
    block_id: ids.block,
    optional: true,
    label: plain(label),
    element: {
      type: 'plain_text_input',
      action_id: ids.action,
      max_length: maxLength,
      ...(initial ? { initial_value: initial } : {}),
    },
  };
}

/** A view's state as Slack sends it: block id, then action id, then the element's value. */
type StateValues = ViewOutput['state']['values'];

/** Where a form's pair of fields is: the select and the text field beside it. */
export interface PickOrPaste {
  pick: { block: string; action: string };
  paste: { block: string; action: string };
}

export const PICK_OR_PASTE_SENTENCE = 'Pick from the list or paste an id, not both.';

/**
 * The id a pair of fields gives: the one picked or the one pasted (trimmed), empty when neither;
 * two different ones are one sentence, for the select's block. Pure.
 */
export function pickedOrPasted(
  values: StateValues,
  fields: PickOrPaste,
): { id: string } | { problem: string } {
  const picked = values[fields.pick.block]?.[fields.pick.action]?.selected_option?.value ?? '';
  const pasted = values[fields.paste.block]?.[fields.paste.action]?.value?.trim() ?? '';
  if (picked !== '' && pasted !== '' && picked !== pasted) {
    return { problem: PICK_OR_PASTE_SENTENCE };
  }
  return { id: picked || pasted };
}

/** Ends at the deadline, counted from the request's arrival (its checks took their share). */
function deadlineSignal(now: () => number): AbortSignal {
  return AbortSignal.timeout(Math.max(0, msLeft(OPTIONS_DEADLINE_MS, now)));
}

/** Options that fail or come late are none: a form shows "no results", never an error. */
async function answerWithin(
  { ack }: Pick<OptionsArgs, 'ack'>,
  what: string,
  find: () => Promise<PlainTextOption[]>,
): Promise<void> {
  const options = await find().catch((error: unknown) => {
    currentRequest().log.warn({ err: error }, `${what} for a select failed: no options shown`);
    return [];
  });
  await ack({ options });
}

/**
 * The options listener of a user select: the service's search by the start of a uid or name,
 * in the app `appOf` reads from the form. The request is given up at the deadline through ky's
 * own `signal`, retries and all, and the answer is then empty.
 */
export function createUserSearchOptions(
  appOf: (body: BlockSuggestion) => CometChatApp | undefined,
  now: () => number = Date.now,
) {
  return async ({ ack, body }: OptionsArgs) => {
    const app = appOf(body);
    const searchKey = body.value.trim();
    await answerWithin({ ack }, 'the user search', async () => {
      if (!app || searchKey === '') return [];
      const query = { searchKey, page: 1, perPage: MAX_OPTIONS };
      const page = await app.cometchat.listUsers(query, { signal: deadlineSignal(now) });
      return userOptions(page.users);
    });
  };
}

/**
 * The options listener of a role select: the app's role list (through the role cache), filtered
 * by the typed text; `asked` reads the app and the role to leave out from the form. The cached
 * read is shared with whoever else asks meanwhile, so it is not cancelled: it goes on to fill
 * the cache for the next keystroke, and only this answer stops waiting for it at the deadline.
 */
export function createRoleOptions(
  asked: (body: BlockSuggestion) => { app: CometChatApp; except?: string } | undefined,
  now: () => number = Date.now,
) {
  return async ({ ack, body }: OptionsArgs) => {
    const form = asked(body);
    await answerWithin({ ack }, 'the role list', async () => {
      if (!form) return [];
      const roles = await untilAborted(form.app.cometchat.listAllRoles(), deadlineSignal(now));
      return roleOptions(roles, body.value, form.except);
    });
  };
}

/** `work`'s outcome, or the signal's reason once it aborts first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The app a form names in its app select (`block`, `action`), else the only or default one:
 * options are read from the app the person chose, before they submit.
 */
export function appOfForm(
  apps: { byName(name: string): CometChatApp | undefined; forChannel(c: undefined): CometChatApp },
  body: BlockSuggestion,
  select: { block: string; action: string },
): CometChatApp {
  const chosen = body.view?.state.values[select.block]?.[select.action]?.selected_option?.value;
  return (chosen ? apps.byName(chosen) : undefined) ?? apps.forChannel(undefined);
}
