import type { AnyMiddlewareArgs, Context } from '@slack/bolt';
import type { Logger } from 'pino';
import { isCometChatError } from '../cometchat/errors.ts';
import { runInRequest } from '../request-context.ts';
import { messageModal } from '../slack/blocks.ts';
import { factsOf } from '../slack/body-facts.ts';
import { type Deliverer, destinationOf, type SlackMessage } from '../slack/deliver.ts';
import { requestContextOf } from '../slack/request-context.ts';
import type { Views } from '../slack/views.ts';
import {
  AlreadyShownError,
  failureSentence,
  isUserFailure,
  ReportedFailure,
  type SentenceDeps,
} from './failure.ts';
import { failureMessage } from './sentences.ts';

export interface ErrorHandlerDeps extends SentenceDeps {
  deliver: Deliverer;
  views: Views;
  logger: Logger;
}

/** What Bolt gives its error handler (ExtendedErrorHandlerArgs), as far as it is read here. */
type Failed = { error: Error; context: Context; body: AnyMiddlewareArgs['body'] };

/**
 * Bolt's global error handler: every listener failure ends here, once. It logs the cause under
 * the request's reference and tells the user one sentence, wherever they are (a response_url,
 * or the modal they are looking at). A failure already shown (AlreadyShownError, in a modal) is
 * logged only; one the command router logged and told (ReportedFailure) is left alone.
 */
export function createErrorHandler(deps: ErrorHandlerDeps) {
  const handle = async ({ error, context, body }: Failed) => {
    const request = requestContextOf(context);
    const raw = unwrapped(error);
    if (raw instanceof ReportedFailure) return;
    const shown = raw instanceof AlreadyShownError;
    const cause = shown ? raw.cause : raw;
    const log = request?.log ?? deps.logger;
    // The user is shown their own request's reference. A CometChat error may carry another
    // one (a cached role list shared by concurrent requests): it is logged beside it.
    const ref = request?.ref ?? (isCometChatError(cause) ? cause.ref : 'none');
    logFailure(cause, log, ref, request?.ref);
    if (shown) return;
    await tell(deps, body, failureMessage(failureSentence(cause, deps), ref), log);
  };
  // Bolt calls its error handler once the request has left the middleware's AsyncLocalStorage
  // run: the request's context is entered again from what the first middleware left on Bolt's
  // `context` (and its span, with traces on), so that the reply and its lines belong to it.
  return async (failed: Failed) => {
    const request = requestContextOf(failed.context);
    if (request === undefined) return handle(failed);
    const asTheRequest = () => runInRequest(request, () => handle(failed));
    return request.resumeSpan ? request.resumeSpan(asTheRequest) : asTheRequest();
  };
}

/** Bolt wraps a listener's error that is not its own in an UnknownError with `original`. */
function unwrapped(error: Error): unknown {
  return ('original' in error ? error.original : undefined) ?? error;
}

/**
 * A failure's one line: `info` for the person's own (bad input), `error` for the app's. `ref` is
 * the reference the person is shown; `carried`, the one `log` carries already, if any.
 */
export function logFailure(
  cause: unknown,
  log: Logger,
  ref: string,
  carried: string | undefined,
): void {
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
  const logged = { ...(ref === carried ? fields : { ...fields, ref }), ...upstreamRef };
  if (isUserFailure(cause)) log.info(logged, 'request refused: %s', cause.message);
  else log.error(logged, 'request failed');
}

/**
 * Tells the person: in the modal the request came from, else as a reply. Bolt gives its error
 * handler no `respond`, so the reply goes through the deliverer, which posts to the body's
 * response_url when it has one and otherwise to the channel or a direct message.
 */
async function tell(
  deps: ErrorHandlerDeps,
  body: AnyMiddlewareArgs['body'],
  message: SlackMessage,
  log: Logger,
): Promise<void> {
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
}
