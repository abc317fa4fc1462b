import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import { type Apps, openSigned } from '../../apps/apps.ts';
import { currentRequest } from '../../request-context.ts';
import { type Deliverer, recipientOf, respondOrFallBack } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import type { Store } from '../../store/store.ts';
import { claimedBlocks, isClaimed, PostedBlocksSchema } from './moderation-view.ts';

// A moderation alert's Claim: the first moderator who claims a post is named on it, once across
// replicas (a claim in the store). Claimed per post, on the event and its channel: the app keeps
// no record of where else the same event was posted, so a claim in one channel cannot name its
// moderator on the other channels' posts; each channel's post is claimed on its own, and says so
// only when someone claimed that very post. (Its _Review_ is the moderation feature's listener:
// the queue's Details of that message.)

/**
 * How long an alert's claim is kept: past the life of any alert someone still acts on. Beyond
 * it, the post itself still says it is claimed (read from the message clicked).
 */
export const ALERT_CLAIM_SECONDS = 90 * 24 * 60 * 60;

/** The claim of one post: an event's alert in one channel. */
export function alertClaimId(eventId: string, channel: string): string {
  return `moderation-claim:${eventId}:${channel}`;
}

const ClaimValue = z.object({ id: z.string().min(1).max(64) });

export interface ModerationButtonDeps {
  apps: Apps;
  store: Pick<Store, 'claim' | 'release'>;
  deliver: Deliverer;
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
    const refusal = await editRefusal(app.access, userId, log, 'moderate');
    if (refusal) return reply(refusal);
    const channel = body.channel?.id;
    const message = body.message;
    const blocks = PostedBlocksSchema.safeParse(message?.blocks);
    if (!channel || !message || !blocks.success) {
      return reply('Claim works on the alert as posted in its channel. Nothing was changed.');
    }
    const claim = alertClaimId(value.id, channel);
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

export function registerModerationButtons(bolt: App, deps: ModerationButtonDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.claimModerationAlert, createClaimButton(deps));
}
