import { randomBytes } from 'node:crypto';
import type { IssuedIds } from './control-routes.ts';
import { isRecord } from './is-record.ts';
import type { ResponseUrlPost, SlackStandIn, StoredView, WebApiCall } from './server.ts';
import { waitFor } from './wait-for.ts';

// A Slack stand-in running in another process (`npm run standins`), seen from here as the
// records of one in this process: what the app sent since the connection, kept up to date by
// polling its /standin/ routes (control-routes.ts). With it, a driver here drives an app
// started apart (`npm run try -- --app`) and reads what the app sent back to "Slack".

export type RemoteSlackStandIn = Pick<
  SlackStandIn,
  | 'url'
  | 'calls'
  | 'responses'
  | 'views'
  | 'homes'
  | 'responseUrl'
  | 'triggerId'
  | 'waitFor'
  | 'nextResponse'
  | 'nextCall'
> & {
  /** Acts on a view_submission's answer there, as Slack would; the view it leaves, if any. */
  applyViewResponse(submittedViewId: string, response: unknown): Promise<StoredView | undefined>;
  /**
   * Issues there the response_urls and trigger_ids handed out here since the last time: give it
   * to the driver as `beforeSend`, so the app never sees an id the stand-in does not know.
   */
  issuePending(): Promise<void>;
  /** Catches up with the stand-in's records now (the poll does it every `pollMs`). */
  refresh(): Promise<void>;
  /** Stops polling. */
  close(): void;
};

/** How often the records are read while connected. */
const POLL_MS = 25;
/** A loopback stand-in answers at once; one that does not is gone. */
const REQUEST_TIMEOUT_MS = 5_000;

function isStoredView(value: unknown): value is StoredView {
  return isRecord(value) && typeof value.id === 'string' && typeof value.hash === 'string';
}

/** The records' fields as the route sends them: arrays of what server.ts records. */
const recordsOf = (body: Record<string, unknown>) => ({
  callCount: Number(body.callCount),
  responseCount: Number(body.responseCount),
  calls: Array.isArray(body.calls) ? (body.calls as WebApiCall[]) : [],
  responses: Array.isArray(body.responses) ? (body.responses as ResponseUrlPost[]) : [],
});

/**
 * Connects to the stand-in at `url` (`http://host:port`, as it prints). Its records start empty
 * here: what happened before the connection is not this driver's.
 */
export async function connectSlackStandIn(url: string): Promise<RemoteSlackStandIn> {
  const base = url.replace(/\/+$/, '');
  const ask = async (route: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}/standin/${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    const answer: unknown = response.ok ? JSON.parse(text) : undefined;
    if (!isRecord(answer) || answer.ok !== true) {
      throw new Error(
        response.status === 404
          ? `the Slack stand-in at ${base} does not serve /standin/ (start it with npm run standins)`
          : `the Slack stand-in at ${base} answered /standin/${route} with ${response.status} ${text}`,
      );
    }
    return answer;
  };

  const calls: WebApiCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const views = new Map<string, StoredView>();
  const homes = new Map<string, StoredView>();
  const start = recordsOf(await ask('records'));
  const pending: IssuedIds = { responseUrlIds: [], triggerIds: [] };
  let minted = 0;
  let failure: unknown;

  /** The views a call's answer carries: opened, pushed, updated, or a Home tab published. */
  const learn = (call: WebApiCall): void => {
    const view = call.answer?.view;
    if (!isStoredView(view)) return;
    views.set(view.id, view);
    if (call.method === 'views.publish' && typeof call.args.user_id === 'string') {
      homes.set(call.args.user_id, view);
    }
  };

  const catchUp = async (): Promise<void> => {
    // A call is recorded before it is answered: read again from the first one still unanswered.
    const unanswered = calls.findIndex((call) => call.answer === undefined);
    const from = unanswered === -1 ? calls.length : unanswered;
    const records = recordsOf(
      await ask(
        `records?calls=${start.callCount + from}&responses=${start.responseCount + responses.length}`,
      ),
    );
    records.calls.forEach((call, i) => {
      // In place: a caller may hold the call and wait for its answer.
      const known = calls[from + i];
      if (known) Object.assign(known, call);
      else calls.push(call);
      learn(call);
    });
    responses.push(...records.responses);
  };

  let chain: Promise<void> = Promise.resolve();
  const refresh = (): Promise<void> => {
    chain = chain.then(catchUp);
    return chain;
  };
  let timer: NodeJS.Timeout | undefined;
  let open = true;
  const poll = (): void => {
    if (!open) return;
    timer = setTimeout(() => {
      refresh().then(poll, (error: unknown) => {
        failure = error;
      });
    }, POLL_MS);
    timer.unref();
  };
  poll();

  /** What a wait sees: the mirror, or the reason it stopped being kept up to date. */
  const watched =
    <T>(pick: () => T | undefined) =>
    (): T | undefined => {
      if (failure !== undefined) throw failure;
      return pick();
    };

  return {
    url: base,
    calls,
    responses,
    views,
    homes,
    responseUrl() {
      minted += 1;
      const id = `remote-${minted}-${randomBytes(12).toString('hex')}`;
      pending.responseUrlIds.push(id);
      return `${base}/response/${id}`;
    },
    triggerId() {
      minted += 1;
      const id = `${minted}.${Math.floor(Date.now() / 1000)}.${randomBytes(16).toString('hex')}`;
      pending.triggerIds.push(id);
      return id;
    },
    async issuePending() {
      if (pending.responseUrlIds.length === 0 && pending.triggerIds.length === 0) return;
      await ask('issue', {
        responseUrlIds: pending.responseUrlIds.splice(0),
        triggerIds: pending.triggerIds.splice(0),
      });
    },
    async applyViewResponse(submittedViewId, response) {
      const { view } = await ask('view-response', { viewId: submittedViewId, response });
      if (!isStoredView(view)) return undefined;
      views.set(view.id, view);
      return view;
    },
    refresh,
    waitFor: (pick, timeoutMs) => waitFor(watched(pick), timeoutMs),
    nextResponse: (afterIndex = 0, timeoutMs = 5_000) =>
      waitFor(
        watched(() => responses[afterIndex]),
        timeoutMs,
        () => `a response_url post #${afterIndex} (accepted so far: ${responses.length})`,
      ),
    nextCall: (method, afterIndex = 0, timeoutMs = 5_000) =>
      waitFor(
        watched(() => calls.slice(afterIndex).find((call) => call.method === method)),
        timeoutMs,
        () =>
          `a ${method} call at index ${afterIndex} or later (calls so far: [${calls.map((c) => c.method).join(', ')}])`,
      ),
    close() {
      open = false;
      clearTimeout(timer);
    },
  };
}
