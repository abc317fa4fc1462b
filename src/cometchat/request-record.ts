import type { Logger } from 'pino';
import type { CometChatAddress } from './errors.ts';

/**
 * What the app keeps of one CometChat request beyond what ky keeps, for the rules of the host's
 * ky instance (ky-instance.ts) to read and note as the request goes. It travels in ky's
 * `context`, which ky hands to every hook, and holds only what ky cannot tell them:
 * - the end of the budget on the client's clock (`deadline`): ky's `totalTimeout` runs on the
 *   machine's clock, and its `shouldRetry` sees neither the budget nor what is left of it;
 * - the wait ky was given before a retry (its `beforeRetry` hook is not told it);
 * - whether an earlier attempt went unanswered (ky keeps the last failure only);
 * - whether a timeout would be the budget's or an attempt's own (ky throws one TimeoutError for
 *   both);
 * - the status of the latest answer, for a body that then cannot be read.
 */
export class RequestRecord {
  /** The start on the machine's clock, as ky's `totalTimeout` counts it (ky starts a moment later). */
  readonly started = performance.now();
  /** Which of the app's two hosts the request went to. */
  address: CometChatAddress | undefined;
  /** It changes something (a PUT, a POST, a DELETE): a gateway's failure does not say it did not. */
  changes = false;
  status: number | undefined;
  /** The wait before the coming retry. */
  waitedMs = 0;
  /** An attempt before the last went unanswered after it may have been sent. */
  unanswered = false;
  /** A timeout now would be the budget's (`totalTimeout`), not an attempt's own (`timeout`). */
  byBudget = false;
  #log: Logger | undefined;

  constructor(
    readonly ref: string,
    readonly operation: string,
    /** The end of the budget on the client's clock. */
    readonly deadline: number,
    private readonly parent: Logger,
  ) {}

  elapsedMs(): number {
    return Math.round(performance.now() - this.started);
  }

  /**
   * Made when first needed (a retry, a failure, debug level): most requests log nothing, and a
   * child logger serialises its bindings as it is made. A request's logger already carries the
   * ref; it is bound only once. A request under another reference (a role list shared by
   * concurrent requests) keeps the logger's and names its own as `upstreamRef`, as the error
   * handler does: a line holds one `ref`.
   */
  get log(): Logger {
    const { parent, ref, operation } = this;
    const carried = parent.bindings().ref;
    this.#log ??= parent.child(
      carried === undefined
        ? { ref, operation }
        : carried === ref
          ? { operation }
          : { upstreamRef: ref, operation },
    );
    return this.#log;
  }

  /** Whether debug lines are written at all, asked before any child logger is made. */
  get debugging(): boolean {
    return this.parent.isLevelEnabled('debug');
  }
}

/** The request's record, which the client puts in ky's `context` (send.ts). */
export function recordOf(context: Readonly<Record<string, unknown>> | undefined): RequestRecord {
  const record = context?.record;
  if (record instanceof RequestRecord) return record;
  throw new Error('a CometChat request is sent with its record in the ky context');
}
