import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { currentRequest } from '../../request-context.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import type { AppDeps } from '../deps.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import { messageListMessage, type Reader } from './message-list-view.ts';
import { type PageValue, PageValueSchema, readPage } from './message-page.ts';

// The list's reading and its page buttons, thin: the page, whether the person moderates (the
// text) and edits (the Delete buttons), asked at once; the reply drawn by a pure function.

/** Who `userId` is to the app's messages (a check Slack cannot answer counts as no). */
export async function readerOf(app: CometChatApp, userId: string): Promise<Reader> {
  const { log } = currentRequest();
  const [moderatorRefusal, editor] = await Promise.all([
    app.access.moderatorRefusal(userId, log),
    app.access.canEdit(userId, log),
  ]);
  return { moderator: moderatorRefusal === undefined, editor };
}

/** One page of the filter's messages for `userId`, read from `at` (none: the newest). */
export async function messagePage(
  deps: Pick<AppDeps, 'apps'>,
  app: CometChatApp,
  userId: string,
  value: PageValue,
): Promise<SlackMessage> {
  const [page, reader] = await Promise.all([
    readPage(app.cometchat, value.f, value.c),
    readerOf(app, userId),
  ]);
  return messageListMessage(page, {
    ...reader,
    filter: value.f,
    at: value.c,
    write: valueWriter(app),
    appName: appNameIfMultiple(deps.apps, app),
  });
}

/** Older and Newer: the page they carry replaces the list they were clicked in. */
export function registerMessagePages(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.messagesPage}`),
    async (args: ButtonArgs) => {
      const render = (app: CometChatApp, value: PageValue) =>
        messagePage(deps, app, args.body.user.id, value);
      await signedButton(deps, PageValueSchema, render, inPlace)(args);
    },
  );
}
