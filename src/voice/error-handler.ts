import type { Context } from '@slack/bolt';
import type { Logger } from 'pino';
import { isCometChatError } from '../cometchat/errors.ts';
import { runInRequest } from '../request-context.ts';
import { messageModal } from '../slack/blocks.ts';
import { factsOf } from '../slack/body-facts.ts';
import { type Deliverer, destinationOf } from '../slack/deliver.ts';
import { scopeIfAny } from '../slack/request-context.ts';
import type { Views } from '../slack/views.ts';
import { failureSentence, isUserFailure, type SentenceDeps, ShownFailure } from './failure.ts';
import { failureMessage } from './sentences.ts';

export interface ErrorHandlerDeps extends SentenceDeps {
  deliver: Deliverer;
  views: Views;
  logger: Logger;
}

type Failed = { error: Error; context: Context; body: unknown };

/**
 * Bolt's global error handler: every listener failure ends here, once. It logs the cause under
 * the request's reference and tells the user one sentence, wherever they are (a response_url,
 * or the modal they are looking at).
 */
export function createErrorHandler(deps: ErrorHandlerDeps) {
  const handle = async ({ error, context, body }: Failed) => {
    // Bolt wraps listener errors that are not its own in an UnknownError with `original`.
    const raw: unknown = (error as { original?: unknown }).original ?? error;
    const shown = raw instanceof ShownFailure;
    const cause = shown ? raw.cause : raw;
    const scope = scopeIfAny(context);
    const log = scope?.log ?? deps.logger;
    // The user is shown their own request's reference. A CometChat error may carry another
    // one (a cached role list shared by concurrent requests): it is logged beside it.
    const ref = scope?.ref ?? (isCometChatError(cause) ? cause.ref : 'none');
    const fields = isCometChatError(cause)
      ? {
          kind: cause.kind,
          status: cause.status,
          code: cause.serviceCode,
          cause: cause.detail,
          operation: cause.operation,
        }
      : { err: cause };
    // The request's logger already carries its ref; a second `ref` key would make the line
    // JSON with a duplicate key, which some log pipelines refuse.
    const upstreamRef =
      isCometChatError(cause) && cause.ref !== ref ? { upstreamRef: cause.ref } : {};
    const logged = { ...(ref === scope?.ref ? fields : { ...fields, ref }), ...upstreamRef };
    if (isUserFailure(cause)) log.info(logged, 'request refused: %s', (cause as Error).message);
    else log.error(logged, 'request failed');
    if (shown) return;

    const failure = failureMessage(failureSentence(cause, deps), ref);
    const message = scope?.replacesWorkingLine ? { ...failure, replace_original: true } : failure;
    const { view, responseUrl } = factsOf(body);
    if (view?.id && view.type === 'modal' && !responseUrl) {
      try {
        await deps.views.update({
          view_id: view.id,
          view: messageModal('Something went wrong', message.blocks ?? []),
        });
        return;
      } catch (updateError) {
        log.warn(
          { err: updateError },
          'could not show the failure in the modal; sending it as a message',
        );
      }
    }
    await deps.deliver(destinationOf(body), message, log);
  };
  // Bolt calls its error handler outside the middleware chain: the request's reference (and
  // span, with traces on) is set again, so that the reply and its lines belong to the request.
  return async (failed: Failed) => {
    const scope = scopeIfAny(failed.context);
    if (scope === undefined) return handle(failed);
    const asTheRequest = () => runInRequest(scope, () => handle(failed));
    return scope.resumeSpan ? scope.resumeSpan(asTheRequest) : asTheRequest();
  };
}
