import type {
  App,
  BlockAction,
  ButtonAction,
  GlobalShortcut,
  MessageShortcut,
  ViewSubmitAction,
} from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import {
  type Apps,
  appNameIfMultiple,
  type CometChatApp,
  openSigned,
  valueWriter,
} from '../../apps/apps.ts';
import {
  findUidCandidates,
  idProblem,
  MAX_SESSION_ID,
  MAX_UID,
  storedUid,
  uidProblem,
} from '../../cometchat/id-rules.ts';
import { failureSentence } from '../../replies/failure.ts';
import { failureMessage } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { context, sharedCopy, withoutActions } from '../../slack/blocks.ts';
import {
  type Respond,
  recipientOf,
  respondOrFallBack,
  type SlackMessage,
} from '../../slack/deliver.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, ShortcutArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { failInModal } from '../../slack/modal-outcome.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { TimeZones } from '../../slack/time-zones.ts';
import {
  type CallSearch,
  MODES,
  parseCallSearch,
  RECEIVER_TYPES,
  STATUSES,
  TYPES,
} from '../call-filters.ts';
import type { FeatureDeps } from '../deps.ts';
import { appOfForm, createUserSearchOptions, pickedOrPasted } from '../options.ts';
import { createCallListRender } from './call-search.ts';
import { type CallRef, CallRefSchema, callMessage, participantsView } from './call-view.ts';
import {
  APP_INPUT,
  FILTERS_INPUT,
  lookupFormView,
  lookupPendingView,
  ON_BEHALF_FIELDS,
  resultView,
  SEARCH_INPUT,
  SESSION_INPUT,
  USER_FIELDS,
} from './lookup-modal-view.ts';
import { resolvedFor } from './search-time.ts';

const MAX_IDS_PER_MESSAGE = 3;
// The usual shape of a session id; a message shortcut has to guess, a typed id does not.
const SESSION_ID_IN_TEXT = /\bv1\.[a-z]{2,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

/** How a call view names its app and signs its buttons. */
function viewOptions(deps: Pick<FeatureDeps, 'apps'>, app: CometChatApp) {
  return { value: valueWriter(app), appName: appNameIfMultiple(deps.apps, app), appId: app.appId };
}

export function createCallRender(deps: Pick<FeatureDeps, 'apps'>) {
  return async (app: CometChatApp, sessionId: string, onBehalfOf: string | undefined) => {
    const call = await app.cometchat.getCall(sessionId, { onBehalfOf });
    return callMessage(call, onBehalfOf, viewOptions(deps, app));
  };
}

/** `/cometchat call <sessionId> [as <uid>]`. */
export function createCallCommand(deps: FeatureDeps) {
  const render = createCallRender(deps);
  return async (
    app: CometChatApp,
    sessionId: string,
    onBehalfOf: string | undefined,
    respond: Respond,
  ) => {
    await respond(await render(app, sessionId, onBehalfOf));
  };
}

/** Session ids found in a message's text, first ones first, without repeats. */
export function findSessionIds(text: string): string[] {
  return [...new Set(text.match(SESSION_ID_IN_TEXT) ?? [])].slice(0, MAX_IDS_PER_MESSAGE);
}

function failureOf(deps: FeatureDeps, error: unknown, ref: string) {
  return failureMessage(failureSentence(error, deps), ref);
}

/** The failure as a modal, in place of the call that could not be shown. */
function failureView(deps: FeatureDeps, error: unknown, ref: string): View {
  return resultView(failureOf(deps, error, ref).blocks ?? []);
}

/** Fills a modal that says "Looking up…" with what `build` makes, or with the failure. */
async function fillModal(
  deps: FeatureDeps,
  viewId: string,
  build: () => Promise<View>,
): Promise<void> {
  try {
    await deps.views.update({ view_id: viewId, view: await build() });
  } catch (error) {
    const { log, ref } = currentRequest();
    await failInModal(deps.views, { viewId }, failureView(deps, error, ref), error, log);
  }
}

/** One page of a call's participants, as a modal. */
function createParticipantsRender(deps: FeatureDeps) {
  return async (app: CometChatApp, ref: CallRef): Promise<View> => {
    const call = await app.cometchat.getCall(ref.sessionId, { onBehalfOf: ref.onBehalfOf });
    return participantsView(call, ref, {
      ...viewOptions(deps, app),
      // A call still going on is drawn up to when the request came.
      now: Math.floor(currentRequest().receivedAt / 1000),
    });
  };
}

/** "Share in channel" under a call: posts a copy, without buttons, for everyone. */
export function createShareCall(deps: FeatureDeps) {
  const render = createCallRender(deps);
  return async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { app, value: ref } = openSigned(deps.apps, CallRefSchema, action.value);
    const message = await render(app, ref.sessionId, ref.onBehalfOf);
    await respondOrFallBack(respond, recipientOf(body), deps.deliver)(sharedCopy(message));
  };
}

/**
 * "Details" on a call of a search: the call view, as a message of its own under the list (the
 * list stays), or pushed over the modal the list is in.
 */
export function createCallDetails(deps: FeatureDeps) {
  const render = createCallRender(deps);
  return async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { app, value: ref } = openSigned(deps.apps, CallRefSchema, action.value);
    if (!body.view) {
      const message = await render(app, ref.sessionId, ref.onBehalfOf);
      const reply = respondOrFallBack(respond, recipientOf(body), deps.deliver);
      await reply({ ...message, replace_original: false });
      return;
    }
    // The trigger expires in three seconds: the modal goes up first, then is filled.
    const viewId = await deps.views.push({
      trigger_id: body.trigger_id,
      view: lookupPendingView(ref.sessionId),
    });
    await fillModal(deps, viewId, async () => {
      const message = await render(app, ref.sessionId, ref.onBehalfOf);
      return resultView(withoutShareButtons(message.blocks ?? []));
    });
  };
}

/**
 * "Show all participants": a paged modal, opened before CometChat is asked because the trigger
 * id expires in three seconds; pushed onto the stack when the button is in a modal already.
 */
export function createParticipantsButton(deps: FeatureDeps) {
  const render = createParticipantsRender(deps);
  return async ({ ack, body, action }: ButtonArgs) => {
    await ack();
    const { app, value: ref } = openSigned(deps.apps, CallRefSchema, action.value);
    const loading = lookupPendingView(ref.sessionId);
    const viewId = body.view
      ? await deps.views.push({ trigger_id: body.trigger_id, view: loading })
      : await deps.views.open({ trigger_id: body.trigger_id, view: loading });
    await fillModal(deps, viewId, () => render(app, ref));
  };
}

/** The participants modal's page buttons. */
export function createParticipantsPage(deps: FeatureDeps) {
  const render = createParticipantsRender(deps);
  return async ({ ack, body, action }: ButtonArgs) => {
    await ack();
    const { app, value: ref } = openSigned(deps.apps, CallRefSchema, action.value);
    if (!body.view) return;
    await deps.views.update({ view_id: body.view.id, view: await render(app, ref) });
  };
}

/**
 * "Look up call" on a message: every session id found in it, each answered on its own. A
 * message without one opens the lookup form, its user id filled in with a word of the message
 * that could be one, for the person to confirm.
 */
export function createMessageShortcut(deps: FeatureDeps) {
  const render = createCallRender(deps);
  const names = deps.apps.all.map((app) => app.name);
  return async ({ ack, shortcut, respond }: ShortcutArgs<MessageShortcut>) => {
    await ack();
    const { log, ref } = currentRequest();
    const text = shortcut.message.text ?? '';
    const ids = findSessionIds(text);
    const app = deps.apps.forChannel(shortcut.channel.id);
    if (ids.length === 0) {
      const [uid, ...others] = findUidCandidates(text);
      log.info({ candidates: others.length + (uid ? 1 : 0) }, 'no session id: search form');
      await deps.views.open({
        trigger_id: shortcut.trigger_id,
        view: lookupFormView(names, uid ? { uid, others } : undefined, app.name),
      });
      return;
    }
    const reply = respondOrFallBack(respond, recipientOf(shortcut), deps.deliver);
    for (const id of ids) {
      try {
        await reply(await render(app, id, undefined));
      } catch (error) {
        log.warn({ err: error, sessionId: id }, 'lookup from a message failed');
        await reply(failureOf(deps, error, ref));
      }
    }
  };
}

/** "Look up a call" from anywhere: the form (with an app selector when there are several). */
export function createLookupForm(deps: Pick<FeatureDeps, 'apps' | 'views'>) {
  const names = deps.apps.all.map((app) => app.name);
  return async ({ ack, shortcut }: ShortcutArgs<GlobalShortcut>): Promise<void> => {
    await ack();
    await deps.views.open({ trigger_id: shortcut.trigger_id, view: lookupFormView(names) });
  };
}

/**
 * The app the form chose: the only one, or the selected one, which must be configured (a
 * forged or outdated choice gets a sentence on the selector, and nothing is sent).
 */
export function readLookupApp(
  values: ViewSubmitAction['view']['state']['values'],
  apps: Apps,
): { app: CometChatApp } | { errors: Record<string, string> } {
  const only = apps.all[0];
  if (!apps.multiple && only) return { app: only };
  const chosen = values[BLOCKS.lookupApp]?.[APP_INPUT]?.selected_option?.value ?? '';
  const app = apps.byName(chosen);
  if (app) return { app };
  const names = apps.all.map((a) => `\`${a.name}\``).join(', ');
  return { errors: { [BLOCKS.lookupApp]: `Choose one of the configured apps: ${names}.` } };
}

export type LookupForm =
  /** One call, by its session id. */
  | { sessionId: string; onBehalfOf: string | undefined }
  /** A user's recent calls, with the filters the form gave. */
  | { search: CallSearch }
  | { errors: Record<string, string> };

/** The lookup form as submitted: a session id or a search, or a problem per field. */
export function readLookupForm(values: ViewSubmitAction['view']['state']['values']): LookupForm {
  const text = (block: string, action: string) => values[block]?.[action]?.value?.trim() ?? '';
  const sessionId = text(BLOCKS.lookupSession, SESSION_INPUT);
  const user = pickedOrPasted(values, USER_FIELDS);
  const onBehalf = pickedOrPasted(values, ON_BEHALF_FIELDS);
  const errors: Record<string, string> = {};
  if ('problem' in user) errors[USER_FIELDS.pick.block] = user.problem;
  if ('problem' in onBehalf) errors[ON_BEHALF_FIELDS.pick.block] = onBehalf.problem;
  if (!('id' in user && 'id' in onBehalf)) return { errors };
  // Uids as CometChat stores them; lower case changes nothing their rules refuse.
  const uid = storedUid(user.id);
  const filters = text(BLOCKS.lookupFilters, FILTERS_INPUT);
  const onBehalfOf = storedUid(onBehalf.id) || undefined;
  const controls = readSearchControls(values);
  const searching = filters !== '' || Object.keys(controls).length > 0;
  const onBehalfProblem = onBehalfOf === undefined ? undefined : uidProblem(onBehalfOf);
  if (onBehalfProblem) errors[BLOCKS.lookupOnBehalfOf] = onBehalfProblem;
  if (sessionId !== '' && uid !== '') {
    errors[BLOCKS.lookupUser] = 'Give a session id or a user id, not both.';
  } else if (uid === '' && !searching) {
    const sessionProblem = idProblem(sessionId, 'A session id', MAX_SESSION_ID, { spaces: true });
    if (sessionProblem) errors[BLOCKS.lookupSession] = sessionProblem;
    if (Object.keys(errors).length > 0) return { errors };
    return { sessionId, onBehalfOf };
  }
  if (sessionId !== '' && searching) {
    errors[BLOCKS.lookupFilters] = 'Filters are for a user id; a session id names one call.';
  }
  if (Object.keys(errors).length > 0) return { errors };
  return searchOf(uid, filters, controls, onBehalfOf);
}

/**
 * The user id, the words and the controls as one search, or a problem on the field it comes
 * from. The user id is checked as an id on its own: a uid such as `recorded` or `team:a` is
 * never taken for a filter.
 */
function searchOf(
  uid: string,
  filters: string,
  controls: Partial<CallSearch>,
  onBehalfOf: string | undefined,
): LookupForm {
  const problem = uid === '' ? undefined : idProblem(uid, 'A uid', MAX_UID);
  if (problem) return { errors: { [BLOCKS.lookupUser]: problem } };
  const words = parseCallSearch(filters.split(/\s+/).filter(Boolean));
  if ('problem' in words) return { errors: { [BLOCKS.lookupFilters]: words.problem } };
  const refuse = (sentence: string): LookupForm => ({
    errors: { [BLOCKS.lookupFilters]: sentence },
  });
  if (uid !== '' && words.uid !== undefined) {
    return refuse('The user id is given above: the words here are filters only.');
  }
  if (words.onBehalfOf !== undefined && onBehalfOf !== undefined) {
    return refuse('`as` is given here and in the field below.');
  }
  const twice = SEARCH_CONTROLS.find(
    (key) => controls[key] !== undefined && words[key] !== undefined,
  );
  if (twice) return refuse(`${code(twice)} is chosen above and given here.`);
  const { since, until } = controls;
  if (since && until && 'at' in since && 'at' in until && since.at > until.at) {
    return { errors: { [BLOCKS.lookupUntil]: 'Until is before Since: no call could match.' } };
  }
  return {
    search: {
      ...words,
      ...(uid === '' ? {} : { uid }),
      ...controls,
      onBehalfOf: words.onBehalfOf ?? onBehalfOf,
    },
  };
}

/** The search's filters the form has a control for (readSearchControls reads each). */
const SEARCH_CONTROLS = [
  'status',
  'type',
  'mode',
  'to',
  'recorded',
  'transcribed',
  'since',
  'until',
] as const satisfies readonly (keyof CallSearch)[];

/**
 * The search's controls as submitted: a select's value only when it is one the form offers (a
 * forged submission changes nothing), the pickers' instants as bounds.
 */
export function readSearchControls(
  values: ViewSubmitAction['view']['state']['values'],
): Partial<CallSearch> {
  const control = (block: string) => values[block]?.[SEARCH_INPUT];
  const pick = <T extends string>(block: string, allowed: readonly T[]): T | undefined =>
    allowed.find((value) => value === control(block)?.selected_option?.value);
  const flags = (control(BLOCKS.lookupFlags)?.selected_options ?? []).map((o) => o.value);
  const instant = (block: string) => {
    const at = control(block)?.selected_date_time;
    return typeof at === 'number' && Number.isInteger(at) && at > 0 ? { at } : undefined;
  };
  const read: Partial<CallSearch> = {
    status: pick(BLOCKS.lookupStatus, STATUSES),
    type: pick(BLOCKS.lookupType, TYPES),
    mode: pick(BLOCKS.lookupMode, MODES),
    to: pick(BLOCKS.lookupTo, RECEIVER_TYPES),
    recorded: flags.includes('recorded') || undefined,
    transcribed: flags.includes('transcribed') || undefined,
    since: instant(BLOCKS.lookupSince),
    until: instant(BLOCKS.lookupUntil),
  };
  return Object.fromEntries(Object.entries(read).filter(([, value]) => value !== undefined));
}

/**
 * A search's first page in a modal: the calls and their Details buttons; paging and sharing
 * belong to messages, so the modal says where to find them.
 */
function searchInModal(message: SlackMessage): KnownBlock[] {
  return [
    ...(withoutActions(message).blocks ?? []),
    context(['More pages and *Share in channel*: `/cometchat calls` with the same words.']),
  ];
}

/** The form submitted: answered at once with a pending view, then filled with the call. */
export function createLookupSubmission(deps: FeatureDeps & { timeZones: TimeZones }) {
  const render = createCallRender(deps);
  const list = createCallListRender(deps);
  return async ({ ack, body, view }: SubmitArgs) => {
    const form = readLookupForm(view.state.values);
    const chosen = readLookupApp(view.state.values, deps.apps);
    if ('errors' in form || 'errors' in chosen) {
      const errors = {
        ...('errors' in form ? form.errors : {}),
        ...('errors' in chosen ? chosen.errors : {}),
      };
      await ack({ response_action: 'errors', errors });
      return;
    }
    const pending =
      'search' in form
        ? lookupPendingView(form.search.uid ?? 'calls')
        : lookupPendingView(form.sessionId);
    await ack({ response_action: 'update', view: pending });
    let blocks: KnownBlock[];
    try {
      blocks =
        'search' in form
          ? searchInModal(
              await list(
                chosen.app,
                await resolvedFor(form.search, body.user.id, deps),
                1,
                'modal',
              ),
            )
          : withoutShareButtons(
              (await render(chosen.app, form.sessionId, form.onBehalfOf)).blocks ?? [],
            );
    } catch (error) {
      const { log, ref } = currentRequest();
      const failed = failureView(deps, error, ref);
      return failInModal(deps.views, { viewId: view.id }, failed, error, log);
    }
    await deps.views.update({ view_id: view.id, view: resultView(blocks) });
  };
}

export function registerCallLookup(bolt: App, deps: FeatureDeps & { timeZones: TimeZones }): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.shareCall, createShareCall(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.callDetails, createCallDetails(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.callParticipants, createParticipantsButton(deps));
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.participantsPage}`),
    createParticipantsPage(deps),
  );
  // By type too: Bolt routes a shortcut by its callback_id alone, and a message shortcut's
  // listener reads the message a global one does not carry.
  bolt.shortcut<MessageShortcut>(
    { callback_id: CALLBACKS.lookupCallMessage, type: 'message_action' },
    createMessageShortcut(deps),
  );
  bolt.shortcut<GlobalShortcut>(
    { callback_id: CALLBACKS.lookupCallGlobal, type: 'shortcut' },
    createLookupForm(deps),
  );
  bolt.view<ViewSubmitAction>(CALLBACKS.lookupCallModal, createLookupSubmission(deps));
  bolt.options(
    { type: 'block_suggestion', action_id: ACTIONS.callUserSearch },
    createUserSearchOptions((body) =>
      appOfForm(deps.apps, body, { block: BLOCKS.lookupApp, action: APP_INPUT }),
    ),
  );
}

/** In a modal there is no channel to share into: drop the share buttons, keep the rest. */
function withoutShareButtons(blocks: KnownBlock[]): KnownBlock[] {
  return blocks.flatMap((block): KnownBlock[] => {
    if (block.type !== 'actions') return [block];
    const elements = block.elements.filter(
      (e) => !('action_id' in e && e.action_id === ACTIONS.shareCall),
    );
    return elements.length > 0 ? [{ ...block, elements }] : [];
  });
}
