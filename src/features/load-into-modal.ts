import type { View } from '@slack/types';
import { failureSentence } from '../replies/failure.ts';
import { failureMessage } from '../replies/sentences.ts';
import { currentRequest } from '../request-context.ts';
import { messageModal } from '../slack/blocks.ts';
import { failInModal } from '../slack/modal-outcome.ts';
import type { FeatureDeps } from './deps.ts';

// What a change asked for on a trigger (a button, a command) does first, whichever feature asks:
// a modal at once, while CometChat is read for the review, then the review in its place.

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
