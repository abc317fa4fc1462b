import { appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { CometChatError } from '../../cometchat/errors.ts';
import { idProblem, MAX_SESSION_ID } from '../../cometchat/id-rules.ts';
import type { Call, CallSummary } from '../../cometchat/model.ts';
import { inApp } from '../../replies/sentences.ts';
import { button, context, section } from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { codeUpTo, escapeMrkdwn } from '../../slack/mrkdwn.ts';
import type { LinkUnfurler, UnfurlCard, UnfurlContext } from '../feature.ts';
import { callLine } from './call-search-view.ts';
import type { CallRef } from './call-view.ts';

// A dashboard link to a call, as a card: the call's line as the search shows it, and the same
// Details button, which answers only the person who clicks it.

/** The call as the search lists it: counts in place of its participants. */
export function summaryOf(call: Call): CallSummary {
  const { participants, recordings, transcriptions, ...facts } = call;
  const neverJoined = participants.filter((p) => p.joinedAt === undefined).length;
  return { ...facts, neverJoined };
}

/** The card of a call. Pure. */
export function callCard(call: Call, app: CometChatApp, appName: string | undefined): UnfurlCard {
  const details = valueWriter(app)({ sessionId: call.sessionId, page: 1 } satisfies CallRef);
  return {
    blocks: [
      // The line is bounded by its parts (each cut, then escaped), never cut whole.
      section(
        callLine(summaryOf(call)),
        details.length <= 2000 ? button('Details', ACTIONS.callDetails, details) : undefined,
      ),
      context([`CometChat call ${codeUpTo(call.sessionId, 200)}${inApp(appName)}`]),
    ],
  };
}

/** What a link to a call the app does not have shows: so a stale link says so. Pure. */
export function missingCallCard(sessionId: string, appName: string | undefined): UnfurlCard {
  return {
    blocks: [
      context([
        `CometChat has no call ${codeUpTo(sessionId, 200)}${inApp(appName)}: ${escapeMrkdwn('the link may be old or from another app')}.`,
      ]),
    ],
  };
}

export const callUnfurler: LinkUnfurler = {
  section: 'calls',
  idProblem: (id) => idProblem(id, 'A session id', MAX_SESSION_ID, { spaces: true }),
  async card(id, { app, deps }: UnfurlContext) {
    const appName = appNameIfMultiple(deps.apps, app);
    try {
      const call = await app.cometchat.getCall(id);
      return callCard(call, app, appName);
    } catch (error) {
      if (error instanceof CometChatError && error.kind === 'not_found') {
        return missingCallCard(id, appName);
      }
      throw error;
    }
  },
};
