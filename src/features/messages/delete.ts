import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import {
  appNameIfMultiple,
  approvalFor,
  type CometChatApp,
  openSigned,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
  valueWriter,
} from '../../apps/apps.ts';
import {
  DELETE_MESSAGES_TITLE,
  messageDeletionOf,
  messageDeletionReview,
  messageGoneSentence,
  messageIfAny,
  OPEN_CHECK_DEADLINE_MS,
  replyPrivately,
} from '../../changes/index.ts';
import { messageIdProblem } from '../../cometchat/id-rules.ts';
import { currentRequest, msLeft } from '../../request-context.ts';
import { messageModal } from '../../slack/blocks.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import {
  askedOf,
  type CarriedMessage,
  ChoiceValueSchema,
  carriedLine,
  carriedMessage,
  choiceProblem,
  chooseView,
  HOW_BLOCK,
  HOW_INPUT,
  MESSAGES_BLOCK,
  MESSAGES_INPUT,
  permanentReviewView,
} from './delete-view.ts';
import { readerOf } from './message-list.ts';
import { PageValueSchema, readPage } from './message-page.ts';

// Delete, and "Delete several…": for editors. A soft delete goes the road from its review; a
// permanent one (offered to moderators only) from a last confirmation that names it as
// permanent, after its review. Nothing is sent from here: the road sends, checks the person
// again (a permanent delete: editor and moderator), reads each message again, and audits.

const MessageValue = z.object({ m: z.string().refine((id) => messageIdProblem(id) === undefined) });

export function registerMessageDeletion(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.messagesDelete}:`),
    createDeleteButton(deps),
  );
  bolt.action<BlockAction<ButtonAction>>(
    ACTIONS.messagesDeleteSeveral,
    createDeleteSeveralButton(deps),
  );
  bolt.view(CALLBACKS.messagesDeleteChoose, createChoiceSubmission(deps));
  bolt.view(CALLBACKS.messagesDeletePermanent, createPermanentSubmission(deps));
}

/** The edit rule before a modal opens, within Slack's trigger deadline. */
function editorRefused(deps: Pick<AppDeps, 'now'>, app: CometChatApp, userId: string) {
  const withinMs = msLeft(OPEN_CHECK_DEADLINE_MS, deps.now);
  return editRefusal(app.access, userId, currentRequest().log, 'change a user', { withinMs });
}

/** Where a review is shown: its app's writer, name and approvals. */
function whereOf(deps: Pick<AppDeps, 'apps'>, app: CometChatApp) {
  return {
    write: valueWriter(app),
    appName: appNameIfMultiple(deps.apps, app),
    approvalChannel: approvalFor(app, 'message-deletion')?.channel,
  };
}

/**
 * A message's Delete: for an editor, the soft delete's review at once; for a moderator, the
 * choice with this message chosen, where "permanently" is offered too.
 */
function createDeleteButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, MessageValue, action.value);
    const refusal = await editorRefused(deps, app, body.user.id);
    if (refusal) return replyPrivately(deps, args, refusal);
    const modal = { triggerId: body.trigger_id, title: DELETE_MESSAGES_TITLE };
    await loadIntoModal(deps, modal, async (viewId) => {
      const [message, reader] = await Promise.all([
        messageIfAny(app.cometchat, value.m),
        readerOf(app, body.user.id),
      ]);
      if (!message) return messageModal(DELETE_MESSAGES_TITLE, messageGoneSentence(value.m));
      const item = carriedMessage(message);
      if (reader.moderator) {
        const options = { write: valueWriter(app), permanent: true, preselected: item.i };
        return chooseView(message.sender, [item], options);
      }
      if (item.d) {
        return messageModal(
          DELETE_MESSAGES_TITLE,
          `Message ${code(item.i)} is deleted already; only a moderator can delete it permanently.`,
        );
      }
      const asked = askedOf(message.sender, [item], false);
      const change = messageDeletionOf(app.name, asked, viewId);
      return messageDeletionReview(change, [carriedLine(item)], whereOf(deps, app));
    });
  };
}

/** "Delete several…": the page read again, its messages to choose from. */
function createDeleteSeveralButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, PageValueSchema, action.value);
    const refusal = await editorRefused(deps, app, body.user.id);
    if (refusal) return replyPrivately(deps, args, refusal);
    const modal = { triggerId: body.trigger_id, title: DELETE_MESSAGES_TITLE };
    await loadIntoModal(deps, modal, async () => {
      const [page, reader] = await Promise.all([
        readPage(app.cometchat, value.f, value.c),
        readerOf(app, body.user.id),
      ]);
      // A soft-deleted message can only be deleted permanently, by a moderator.
      const items = page.messages
        .filter((message) => reader.moderator || message.deletedAt === undefined)
        .map(carriedMessage);
      if (items.length === 0) {
        return messageModal(DELETE_MESSAGES_TITLE, 'Nothing on this page can be deleted now.');
      }
      return chooseView(value.f.u, items, { write: valueWriter(app), permanent: reader.moderator });
    });
  };
}

/**
 * The choice submitted (nothing read: Slack waits three seconds): a soft delete's review, whose
 * Delete goes the road; or a permanent one's review, which leads to the last confirmation.
 */
function createChoiceSubmission(deps: AppDeps) {
  return async ({ ack, view }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, ChoiceValueSchema, view.private_metadata);
    if (!opened) {
      const refused = messageModal(DELETE_MESSAGES_TITLE, UNSIGNED_REFUSAL);
      await ack({ response_action: 'update', view: refused });
      return;
    }
    const { app, value } = opened;
    const values = view.state.values;
    const picked = new Set(
      (values[MESSAGES_BLOCK]?.[MESSAGES_INPUT]?.selected_options ?? []).map((o) => o.value),
    );
    const chosen = value.ms.filter((item) => picked.has(item.i));
    // "Permanently" counts only where it was offered: to a moderator (the road checks again).
    const how = values[HOW_BLOCK]?.[HOW_INPUT]?.selected_option?.value;
    const permanent = value.p === true && how === 'permanent';
    const problem = choiceProblem(chosen, permanent);
    if (problem) {
      await ack({ response_action: 'errors', errors: { [MESSAGES_BLOCK]: problem } });
      return;
    }
    const change = messageDeletionOf(app.name, askedOf(value.u, chosen, permanent), view.id);
    const where = whereOf(deps, app);
    const next = permanent
      ? permanentReviewView(change, { u: value.u, ms: chosen, p: true }, where)
      : messageDeletionReview(change, chosen.map(carriedLine), where);
    await ack({ response_action: 'update', view: next });
  };
}

/** A permanent deletion's review submitted: the last confirmation, which names it as permanent. */
function createPermanentSubmission(deps: AppDeps) {
  return async ({ ack, view }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, ChoiceValueSchema, view.private_metadata);
    if (!opened?.value.p) {
      const refused = messageModal(DELETE_MESSAGES_TITLE, UNSIGNED_REFUSAL);
      await ack({ response_action: 'update', view: refused });
      return;
    }
    const { app, value } = opened;
    const chosen: readonly CarriedMessage[] = value.ms;
    const change = messageDeletionOf(app.name, askedOf(value.u, chosen, true), view.id);
    const last = messageDeletionReview(change, chosen.map(carriedLine), whereOf(deps, app));
    await ack({ response_action: 'update', view: last });
  };
}
