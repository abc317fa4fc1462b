import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import type { CometChatApp } from '../../apps/apps.ts';
import { currentRequest } from '../../request-context.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import type { AppDeps } from '../deps.ts';
import { signedButton } from '../signed-button.ts';
import { queueDetails } from './listeners.ts';

// _Review_ on a moderation alert (the alerts feature draws the button, signed with the queue's
// item value): the queue's own Details of that message, with its decision buttons, in a reply
// only the one who clicked sees. For moderators alone: anyone else is told why, nothing is read.

const ReviewValue = z.object({ m: z.string().min(1).max(100) });

export function registerAlertReview(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.reviewModerationItem, async (args: ButtonArgs) => {
    const userId = args.body.user.id;
    const render = async (app: CometChatApp, { m }: { m: string }) => {
      const refusal = await app.access.moderatorRefusal(userId, currentRequest().log);
      if (refusal) return { text: refusal, replace_original: false };
      currentRequest().log.info({ app: app.name, message: m }, 'moderation alert reviewed');
      return queueDetails(app, userId, m);
    };
    await signedButton(deps, ReviewValue, render, (message) => message)(args);
  });
}
