import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import {
  appNameIfMultiple,
  approvalFor,
  type CometChatApp,
  openSigned,
  valueWriter,
} from '../../apps/apps.ts';
import { OPEN_CHECK_DEADLINE_MS, replyPrivately } from '../../changes/index.ts';
import type { QueuedMessage } from '../../cometchat/moderation-model.ts';
import { InputError } from '../../replies/failure.ts';
import { notWaitingSentence } from '../../replies/sentences.ts';
import { currentRequest, msLeft } from '../../request-context.ts';
import { messageModal } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import { registerBulk } from './bulk.ts';
import { bulkPickView, decisionReview, MODERATION_TITLE } from './decision-view.ts';
import { DECISIONS, type Decision, DecisionSchema, offers, pageOf, readQueue } from './queue.ts';
import { detailsMessage, queueMessage } from './queue-view.ts';

// The queue's listeners, thin: the command's answer, its pages, an item's Details and decision
// buttons, "Decide several". A message's text goes only to a moderator, only in their own reply
// (ephemeral) or modal; the decision buttons are refused to anyone else.

/** Whether `userId` moderates `app` (a check Slack cannot answer counts as no: no text shown). */
export async function isModerator(app: CometChatApp, userId: string): Promise<boolean> {
  return (await app.access.moderatorRefusal(userId, currentRequest().log)) === undefined;
}

/** Page `page` of the app's queue, for `userId`. */
export async function queuePage(
  deps: Pick<AppDeps, 'apps'>,
  app: CometChatApp,
  userId: string,
  page: number,
): Promise<SlackMessage> {
  const [queue, moderator] = await Promise.all([
    readQueue(app.cometchat),
    isModerator(app, userId),
  ]);
  return queueMessage(pageOf(queue, page), {
    moderator,
    write: valueWriter(app),
    appName: appNameIfMultiple(deps.apps, app),
  });
}

/** One waiting message in full, for `userId` (its text if they moderate). */
export async function queueDetails(
  app: CometChatApp,
  userId: string,
  id: string,
): Promise<SlackMessage> {
  const [queue, moderator] = await Promise.all([
    readQueue(app.cometchat),
    isModerator(app, userId),
  ]);
  const item = queue.find((candidate) => candidate.message.id === id);
  if (!item) throw new InputError(notWaitingSentence(id));
  return detailsMessage(item, { moderator, write: valueWriter(app) });
}

const PageValue = z.object({ page: z.number().int().min(1).max(10_000) });
const ItemValue = z.object({ m: z.string().min(1).max(100) });
const DecideValue = ItemValue.extend({
  q: z.enum(['flagged', 'blocked']),
  d: DecisionSchema,
});

export function registerModeration(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.moderationPage}`),
    async (args: ButtonArgs) => {
      const render = (app: CometChatApp, { page }: { page: number }) =>
        queuePage(deps, app, args.body.user.id, page);
      await signedButton(deps, PageValue, render, inPlace)(args);
    },
  );
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.moderationDetails}`),
    async (args: ButtonArgs) => {
      const render = (app: CometChatApp, { m }: { m: string }) =>
        queueDetails(app, args.body.user.id, m);
      await signedButton(deps, ItemValue, render, (message) => message)(args);
    },
  );
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.moderationDecide}`),
    createDecideButton(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.moderationBulk, createBulkButton(deps));
  registerBulk(bolt, deps);
}

/** The moderator check before a modal opens, within Slack's trigger deadline. */
async function moderatorRefused(
  deps: Pick<AppDeps, 'now'>,
  app: CometChatApp,
  userId: string,
): Promise<string | undefined> {
  const { log } = currentRequest();
  return editRefusal(app.access, userId, log, 'moderate', {
    withinMs: msLeft(OPEN_CHECK_DEADLINE_MS, deps.now),
  });
}

/** Approve, Block, Deliver, Keep blocked: the review of that decision, for a moderator. */
function createDecideButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, DecideValue, action.value);
    const refusal = await moderatorRefused(deps, app, body.user.id);
    if (refusal) return replyPrivately(deps, args, refusal);
    const modal = { triggerId: body.trigger_id, title: MODERATION_TITLE };
    await loadIntoModal(deps, modal, async (viewId) => {
      const queue = await readQueue(app.cometchat);
      const item = queue.find((candidate) => candidate.message.id === value.m);
      const problem = decisionProblem(item, value.m, value.d);
      if (problem || !item)
        return messageModal(MODERATION_TITLE, problem ?? notWaitingSentence(value.m));
      const where = {
        write: valueWriter(app),
        origin: viewId,
        app: app.name,
        appName: appNameIfMultiple(deps.apps, app),
      };
      return decisionReview(item, value.d, where, approvalFor(app, 'moderation')?.channel);
    });
  };
}

/** Why `decision` cannot be made on the item the queue holds now, or undefined. Pure. */
export function decisionProblem(
  item: QueuedMessage | undefined,
  id: string,
  decision: Decision,
): string | undefined {
  if (!item) return notWaitingSentence(id);
  if (offers(item.queue, decision)) return undefined;
  const allowed = DECISIONS[item.queue].join(' or ');
  return `Message ${code(id)} is ${item.queue} now: it takes ${allowed}. Nothing was sent.`;
}

/** "Decide several": the page's items to choose from and one decision, for a moderator. */
function createBulkButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, PageValue, action.value);
    const refusal = await moderatorRefused(deps, app, body.user.id);
    if (refusal) return replyPrivately(deps, args, refusal);
    const modal = { triggerId: body.trigger_id, title: MODERATION_TITLE };
    await loadIntoModal(deps, modal, async () => {
      const { items } = pageOf(await readQueue(app.cometchat), value.page);
      if (items.length === 0) return messageModal(MODERATION_TITLE, 'Nothing waits now.');
      return bulkPickView(items, valueWriter(app));
    });
  };
}
