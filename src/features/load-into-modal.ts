import type { SlashCommand } from '@slack/bolt';
import type { View } from '@slack/types';
import { onlyTo } from '../changes/index.ts';
import { currentRequest } from '../request-context.ts';
import { messageModal } from '../slack/blocks.ts';
import type { SlackMessage } from '../slack/deliver.ts';
import { failInModal } from '../slack/modal-outcome.ts';
import { failureSentence } from '../voice/failure.ts';
import { failureMessage } from '../voice/sentences.ts';
import type { FeatureDeps } from './deps.ts';

// What a change asked for on a trigger (a button, a command) does first, whichever feature asks:
// a modal at once, while CometChat is read for the review, then the review in its place; and the
// reply to a command (a sentence said to the person instead when they may not). A sentence to
// the person who clicked is the road's (tellClicker).

/** Opens "Asking CometChat…" on the trigger, then fills it with `build`, or with the failure. */
export async function loadIntoModal(
  deps: Pick<FeatureDeps, 'views' | 'budgetSeconds' | 'secrets'>,
  modal: { triggerId: string; title: string },
  build: (viewId: string) => Promise<View>,
): Promise<void> {
  const { title } = modal;
  const viewId = await deps.views.open({
    trigger_id: modal.triggerId,
    view: messageModal(title, ':hourglass_flowing_sand: Asking CometChat…', {
      clearOnClose: true,
    }),
  });
  try {
    await deps.views.update({ view_id: viewId, view: await build(viewId) });
  } catch (error) {
    const { ref, log } = currentRequest();
    const message = failureMessage(failureSentence(error, deps), ref);
    await failInModal(
      deps.views,
      { viewId },
      messageModal(title, message.blocks ?? []),
      error,
      log,
    );
  }
}

/**
 * A reply to a command, seen only by the person who typed it. The router hands a subcommand the
 * command, not Bolt's `respond`: the command's own response_url, through deliver (and its
 * fallbacks when Slack refuses it).
 */
export async function replyToCommand(
  deps: Pick<FeatureDeps, 'deliver'>,
  command: Pick<SlashCommand, 'response_url' | 'channel_id' | 'user_id'>,
  message: SlackMessage,
): Promise<void> {
  const destination = {
    responseUrl: command.response_url,
    channelId: command.channel_id,
    userId: command.user_id,
  };
  await deps.deliver(destination, message, currentRequest().log);
}

/** One sentence to the person who typed a command, seen only by them. */
export function tellTyper(
  deps: Pick<FeatureDeps, 'deliver'>,
  command: Pick<SlashCommand, 'response_url' | 'channel_id' | 'user_id'>,
  sentence: string,
): Promise<void> {
  return replyToCommand(deps, command, onlyTo(sentence));
}
