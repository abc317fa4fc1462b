import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Apps, type CometChatApp, openSigned } from '../../apps/apps.ts';
import { currentRequest } from '../../request-context.ts';
import { type Deliverer, recipientOf, respondOrFallBack } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import type { Views } from '../../slack/views.ts';
import type { Store } from '../../store/store.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import { claimedBlocks, isClaimed, PostedBlocksSchema, reviewModal } from './moderation-view.ts';

// A moderation alert's buttons. _Claim_: the first moderator who claims an alert is named on its
// post, once across replicas (a claim in the store, on the alert's event id, so one alert posted
// in two channels is claimed once). _Review_: opens a blocked message for a moderator.

/** Who may moderate `app`: the sentence refusing `userId`, or undefined when they may. */
export type ModeratorRefusal = (
  app: CometChatApp,
  userId: string,
  log: Logger,
) => Promise<string | undefined>;

/** The app's moderators (MODERATORS, or the app's own; its editors when unset) may. */
export const appModerators: ModeratorRefusal = (app, userId, log) =>
  app.access.moderatorRefusal(userId, log);

/**
 * How long an alert's claim is kept: past the life of any alert someone still acts on. Beyond
 * it, the post itself still says it is claimed (read from the message clicked).
 */
export const ALERT_CLAIM_SECONDS = 90 * 24 * 60 * 60;

export function alertClaimId(eventId: string): string {
  return `moderation-claim:${eventId}`;
}

const ClaimValue = z.object({ id: z.string().min(1).max(64) });
export const ReviewValue = z.object({
  queue: z.literal('blocked'),
  id: z.string().min(1).max(100),
});

export interface ModerationButtonDeps {
  apps: Apps;
  store: Pick<Store, 'claim' | 'release'>;
  deliver: Deliverer;
  views: Views;
  budgetSeconds: number;
  secrets: readonly string[];
  moderatorRefusal: ModeratorRefusal;
  now: () => number;
}

const CLAIMED_FIRST = 'Someone claimed this alert first: its post names who. Nothing was changed.';

/** _Claim_: refused to anyone who may not moderate the app; else the first claim only. */
export function createClaimButton(deps: ModerationButtonDeps) {
  return async ({ ack, body, action, respond, client }: ButtonArgs) => {
    await ack();
    const { log } = currentRequest();
    // The clicker alone is told; a refusal or a late claim changes nothing on the post.
    const reply = (text: string) =>
      respondOrFallBack(
        respond,
        recipientOf(body),
        deps.deliver,
      )({ text, replace_original: false });
    const { app, value } = openSigned(deps.apps, ClaimValue, action.value);
    const userId = body.user.id;
    const refusal = await deps.moderatorRefusal(app, userId, log);
    if (refusal) return reply(refusal);
    const channel = body.channel?.id;
    const message = body.message;
    const blocks = PostedBlocksSchema.safeParse(message?.blocks);
    if (!channel || !message || !blocks.success) {
      return reply('Claim works on the alert as posted in its channel. Nothing was changed.');
    }
    const claim = alertClaimId(value.id);
    if (isClaimed(blocks.data) || !(await deps.store.claim(claim, ALERT_CLAIM_SECONDS))) {
      log.info({ app: app.name, alert: value.id, user: userId }, 'alert claimed already');
      return reply(CLAIMED_FIRST);
    }
    try {
      await client.chat.update({
        channel,
        ts: message.ts,
        text: typeof message.text === 'string' ? message.text : 'A moderation alert',
        blocks: claimedBlocks(blocks.data, userId, Math.floor(deps.now() / 1000)),
      });
    } catch (error) {
      // Not shown on the post: nobody holds it, so the next click may claim it.
      await deps.store.release(claim).catch(() => undefined);
      throw error;
    }
    log.info({ app: app.name, alert: value.id, user: userId }, 'alert claimed');
  };
}

/**
 * _Review_ on a blocked message's alert: for a moderator, the item as CometChat lists it now, its
 * text included, in a modal (opened at once, as the trigger lasts three seconds): seen by them
 * alone. Anyone else is told why not, and nothing is read. The queue's own Details view takes
 * this button's place once wired (the action id and value are the queue's item).
 */
export function createReviewButton(deps: ModerationButtonDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { log } = currentRequest();
    const { app, value } = openSigned(deps.apps, ReviewValue, action.value);
    const refusal = await deps.moderatorRefusal(app, body.user.id, log);
    if (refusal) {
      return respondOrFallBack(
        respond,
        recipientOf(body),
        deps.deliver,
      )({
        text: refusal,
        replace_original: false,
      });
    }
    log.info({ app: app.name, message: value.id, user: body.user.id }, 'blocked message reviewed');
    await loadIntoModal(
      deps,
      { triggerId: body.trigger_id, title: 'Blocked message' },
      async () => {
        const waiting = await app.cometchat.listBlockedMessages();
        return reviewModal(
          value.id,
          waiting.find((item) => item.message.id === value.id),
        );
      },
    );
  };
}

export function registerModerationButtons(bolt: App, deps: ModerationButtonDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.claimModerationAlert, createClaimButton(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.reviewModerationItem, createReviewButton(deps));
}
