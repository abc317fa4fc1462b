import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { currentRequest } from '../../request-context.ts';
import { sharedCopy } from '../../slack/blocks.ts';
import type { Respond, SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { callQuery, type ResolvedSearch, ResolvedSearchSchema } from '../call-filters.ts';
import type { FeatureDeps } from '../deps.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import {
  CALLS_PER_PAGE,
  type CallListOptions,
  callListMessage,
  SearchPageSchema,
} from './call-search-view.ts';

// `/cometchat [app] calls [<uid>] [filters]`: the calls that match, newest first, a page at a
// time. The search travels in the page buttons with its times fixed, and is checked again
// when it comes back like any value from Slack.

/** Asks the app for one page of the search and renders it. */
export function createCallListRender(deps: Pick<FeatureDeps, 'apps'>) {
  return async (
    app: CometChatApp,
    search: ResolvedSearch,
    page: number,
    surface: CallListOptions['surface'] = 'message',
  ): Promise<SlackMessage> => {
    const result = await app.cometchat.listCalls(callQuery(search, page, CALLS_PER_PAGE), {
      onBehalfOf: search.onBehalfOf,
    });
    currentRequest().log.info(
      { app: app.name, page, total: result.total, shown: result.calls.length },
      'call search answered',
    );
    return callListMessage(result, search, {
      value: valueWriter(app),
      appName: appNameIfMultiple(deps.apps, app),
      surface,
    });
  };
}

/** The subcommand: answered through the command's response_url. */
export function createCallsCommand(deps: FeatureDeps) {
  const render = createCallListRender(deps);
  return async (app: CometChatApp, search: ResolvedSearch, respond: Respond) => {
    await respond(await render(app, search, 1));
  };
}

const renderPage = (deps: Pick<FeatureDeps, 'apps'>) => {
  const render = createCallListRender(deps);
  return (app: CometChatApp, value: z.infer<typeof SearchPageSchema>) =>
    render(app, value.s, value.page);
};

/** A page button: the list replaced in place by the page it names, with the same filters. */
export function createCallsPage(deps: FeatureDeps) {
  return signedButton(deps, SearchPageSchema, renderPage(deps), inPlace);
}

/** "Share in channel": the same page, without buttons, for everyone. */
export function createShareCalls(deps: FeatureDeps) {
  return signedButton(deps, SearchPageSchema, renderPage(deps), sharedCopy);
}

const UserCallsValue = z.object({ uid: ResolvedSearchSchema.shape.uid.unwrap() });

/**
 * A user card's "Find their calls": the search for that uid, for the person who clicked,
 * beside the card (the same search as `/cometchat calls <uid>`).
 */
export function createUserCalls(deps: FeatureDeps) {
  const render = createCallListRender(deps);
  return signedButton(
    deps,
    UserCallsValue,
    (app, { uid }) => render(app, { uid }, 1),
    (message) => ({ ...message, response_type: 'ephemeral', replace_original: false }),
  );
}

export function registerCallSearch(bolt: App, deps: FeatureDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userCalls, createUserCalls(deps));
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.callsPage}`),
    createCallsPage(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.shareCalls, createShareCalls(deps));
}
