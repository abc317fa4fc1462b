import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { z } from 'zod';
import { appNameIfSeveral, type CometChatApp, openSealed, valueWriter } from '../../apps/apps.ts';
import { idProblem, MAX_UID, uidProblem } from '../../cometchat/id-rules.ts';
import { sharedCopy } from '../../slack/blocks.ts';
import { destinationOf, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import { PageSchema } from '../../slack/values.ts';
import type { FeatureDeps } from '../deps.ts';
import {
  callQuery,
  MODES,
  RECEIVER_TYPES,
  type ResolvedSearch,
  STATUSES,
  TYPES,
} from './call-filters.ts';
import { CALLS_PER_PAGE, callListMessage } from './call-search-view.ts';

// `/cometchat [app] calls [<uid>] [filters]`: the calls that match, newest first, a page at a
// time. The search travels in the page buttons with its times fixed, and is checked again
// when it comes back like any value from Slack.

const Uid = z
  .string()
  .max(MAX_UID)
  .refine((uid) => idProblem(uid, 'A uid', MAX_UID) === undefined);

/** A search as a page button carries it back. */
export const ResolvedSearchSchema = z.object({
  uid: Uid.optional(),
  status: z.enum(STATUSES).optional(),
  type: z.enum(TYPES).optional(),
  mode: z.enum(MODES).optional(),
  to: z.enum(RECEIVER_TYPES).optional(),
  recorded: z.boolean().optional(),
  transcribed: z.boolean().optional(),
  since: z.number().int().nonnegative().optional(),
  until: z.number().int().nonnegative().optional(),
  onBehalfOf: Uid.refine((uid) => uidProblem(uid) === undefined).optional(),
});

const SearchPage = z.object({ s: ResolvedSearchSchema, page: PageSchema });

/** Asks the app for one page of the search and renders it. */
export function createCallListRender(deps: Pick<FeatureDeps, 'apps'>) {
  return async (
    app: CometChatApp,
    search: ResolvedSearch,
    page: number,
    scope: RequestScope,
  ): Promise<SlackMessage> => {
    const result = await app.cometchat.listCalls(callQuery(search, page, CALLS_PER_PAGE), {
      ref: scope.ref,
      logger: scope.log,
      onBehalfOf: search.onBehalfOf,
    });
    scope.log.info(
      { app: app.name, page, total: result.total, shown: result.calls.length },
      'call search answered',
    );
    return callListMessage(result, search, {
      value: valueWriter(deps.apps, app),
      appName: appNameIfSeveral(deps.apps, app),
    });
  };
}

/** The subcommand: answered through the command's response_url. */
export function createCallsCommand(deps: FeatureDeps) {
  const render = createCallListRender(deps);
  return async (app: CometChatApp, search: ResolvedSearch, body: unknown, scope: RequestScope) => {
    await deps.deliver(destinationOf(body), await render(app, search, 1, scope), scope.log);
  };
}

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** A page button: the list replaced in place by the page it names, with the same filters. */
export function createCallsPage(deps: FeatureDeps) {
  const render = createCallListRender(deps);
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, SearchPage, action.value);
    const message = await render(app, value.s, value.page, scope);
    await deps.deliver(destinationOf(body), { ...message, replace_original: true }, scope.log);
  };
}

/** "Share in channel": the same page, without buttons, for everyone. */
export function createShareCalls(deps: FeatureDeps) {
  const render = createCallListRender(deps);
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, SearchPage, action.value);
    const message = await render(app, value.s, value.page, scope);
    await deps.deliver(destinationOf(body), sharedCopy(message), scope.log);
  };
}

export function registerCallSearch(bolt: App, deps: FeatureDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.callsPage}`),
    createCallsPage(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.shareCalls, createShareCalls(deps));
}
