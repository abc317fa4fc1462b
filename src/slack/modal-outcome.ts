import type { View } from '@slack/types';
import type { Logger } from 'pino';
import { type Deliverer, type Destination, type SlackMessage, slackErrorCode } from './deliver.ts';
import type { Views } from './views.ts';

// A modal that says "Loading…" or "Applying…" must end in an outcome the person sees. When
// Slack refuses to update it (closed meanwhile, Slack failing), the words reach them another way.

/**
 * A failure the person has been told of already (in the modal they were looking at): the global
 * handler logs its cause under the request's reference and says nothing more.
 */
export class AlreadyShownError extends Error {
  override readonly name = 'AlreadyShownError';
  constructor(override readonly cause: unknown) {
    super('a failure the person has seen', { cause });
  }
}

/** Where a modal's content goes: a modal already open, or a new one on a trigger. */
export type ModalTarget = { viewId: string } | { triggerId: string };

/** Puts `view` in the target: updates the open modal, or opens one with the trigger. */
export async function showModal(views: Views, target: ModalTarget, view: View): Promise<void> {
  if ('viewId' in target) await views.update({ view_id: target.viewId, view });
  else await views.open({ trigger_id: target.triggerId, view });
}

/**
 * Shows a failure in the modal and rethrows the error for the global handler to log, as a
 * AlreadyShownError only once the modal shows it: when Slack refuses the view, the handler
 * reaches the person another way (the response_url, an ephemeral message, or a DM).
 */
export async function failInModal(
  views: Views,
  target: ModalTarget,
  view: View,
  error: unknown,
  log: Logger,
): Promise<never> {
  try {
    await showModal(views, target, view);
  } catch (updateError) {
    log.warn(
      { cause: slackErrorCode(updateError) },
      'could not show the failure in the modal; it goes to the error handler',
    );
    throw error;
  }
  throw new AlreadyShownError(error);
}

/**
 * Shows an outcome (not a failure) in the modal; when Slack refuses the update, the same words
 * are delivered as a message, so an applied change is never left looking unapplied.
 */
export async function showInModal(
  deps: { views: Views; deliver: Deliverer },
  target: { viewId: string; destination: Destination },
  view: View,
  message: SlackMessage,
  log: Logger,
): Promise<void> {
  try {
    await deps.views.update({ view_id: target.viewId, view });
  } catch (updateError) {
    log.warn(
      { cause: slackErrorCode(updateError) },
      'could not show the outcome in the modal; sending it as a message',
    );
    await deps.deliver(target.destination, message, log);
  }
}
