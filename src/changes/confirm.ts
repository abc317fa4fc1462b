import { approvalFor, tryOpenSigned, UNSIGNED_REFUSAL } from '../apps/apps.ts';
import type { SubmitArgs } from '../slack/listener-args.ts';
import { ChangeSchema } from './change.ts';
import { appLabel, type ChangeDeps } from './deps.ts';
import { submittedView } from './outcome.ts';
import { submitChange } from './submit.ts';
import { EDITOR_TITLE, messageView, reasonOf } from './views.ts';

/** The answer to a review whose metadata is not one this app signed. */
const OUTDATED_REVIEW = messageView(EDITOR_TITLE, UNSIGNED_REFUSAL);

/**
 * "Apply" or "Request approval" on the review of any change: acknowledged at once with a pending
 * view; the change then goes the road (submit.ts), and the view shows the outcome.
 */
export function createConfirmSubmission(deps: ChangeDeps) {
  return async ({ ack, view, body, client }: SubmitArgs) => {
    // Signed for its app: a review made by hand or edited to name another app is refused.
    const opened = tryOpenSigned(deps.apps, ChangeSchema, view.private_metadata);
    if (!opened) {
      await ack({ response_action: 'update', view: OUTDATED_REVIEW });
      return;
    }
    const { app, value: change } = opened;
    const label = appLabel(deps.apps, app);
    const needsApproval = approvalFor(app, change.kind) !== undefined;
    await ack({
      response_action: 'update',
      view: submittedView(change, label.appName, needsApproval),
    });
    await submitChange(deps, client, {
      app,
      change,
      label,
      userId: body.user.id,
      teamId: body.team?.id ?? body.user.team_id ?? '',
      reason: reasonOf(view.state.values),
      viewId: view.id,
    });
  };
}
