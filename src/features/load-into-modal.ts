import type { View } from '@slack/types';
import { messageModal } from '../slack/blocks.ts';
import { destinationOf, type SlackMessage } from '../slack/deliver.ts';
import { failInModal } from '../slack/modal-outcome.ts';
import type { RequestScope } from '../slack/request-context.ts';
import { failureSentence } from '../voice/failure.ts';
import { failureMessage } from '../voice/sentences.ts';
import type { FeatureDeps } from './deps.ts';

// What a change asked for on a trigger (a button, a command) does first, whichever feature asks:
// a modal at once, while CometChat is read for the review, then the review in its place.

/** Opens "Asking CometChat…" on the trigger, then fills it with `build`, or with the failure. */
export async function loadIntoModal(
  deps: Pick<FeatureDeps, 'views' | 'budgetSeconds' | 'secrets'>,
  request: { triggerId: string; title: string; scope: RequestScope },
  build: (viewId: string) => Promise<View>,
): Promise<void> {
  const { title, scope } = request;
  const viewId = await deps.views.open({
    trigger_id: request.triggerId,
    view: messageModal(title, ':hourglass_flowing_sand: Asking CometChat…', {
      clearOnClose: true,
    }),
  });
  try {
    await deps.views.update({ view_id: viewId, view: await build(viewId) });
  } catch (error) {
    const message = failureMessage(failureSentence(error, deps), scope.ref);
    await failInModal(
      deps.views,
      { viewId },
      messageModal(title, message.blocks ?? []),
      error,
      scope.log,
    );
  }
}

/** One sentence to the person who clicked or typed, seen only by them. */
export async function tellPerson(
  deps: Pick<FeatureDeps, 'deliver'>,
  body: unknown,
  sentence: string,
  scope: RequestScope,
): Promise<void> {
  const message: SlackMessage = {
    response_type: 'ephemeral',
    replace_original: false,
    text: sentence,
  };
  await deps.deliver(destinationOf(body), message, scope.log);
}
