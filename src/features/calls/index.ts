import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { appNameIfMultiple } from '../../apps/apps.ts';
import { idProblem, MAX_SESSION_ID, storedUid, uidProblem } from '../../cometchat/id-rules.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code, truncate } from '../../slack/mrkdwn.ts';
import { parseCallSearch } from '../call-filters.ts';
import type { AppDeps } from '../deps.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { callCard, callUnfurler } from './call-card.ts';
import { createCallCommand, registerCallLookup } from './call-lookup.ts';
import { createCallsCommand, registerCallSearch } from './call-search.ts';
import { registerCallSteps } from './call-steps.ts';
import { lookupFormView } from './lookup-modal-view.ts';
import { resolvedFor, workingDescription } from './search-time.ts';

/** A call's card, for another feature's post about it (AppDeps.callCard). */
export function callCardBlocks(apps: Pick<AppDeps['apps'], 'multiple'>): AppDeps['callCard'] {
  return (app, call) => callCard(call, app, appNameIfMultiple(apps, app)).blocks;
}

const CALL_USAGE = '`/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]`';

export interface CallWords {
  sessionId: string;
  onBehalfOf?: string | undefined;
}

/** `call <sessionId> [as <uid>]`. */
export function parseCallWords(words: readonly string[]): CallWords | Refusal {
  const usage = new Refusal(
    `Usage: ${CALL_USAGE}. For a session id with spaces, use the *Look up a call* shortcut.`,
  );
  const [sessionId, as, uid, ...extra] = words;
  if (sessionId === undefined || extra.length > 0) return usage;
  if (as !== undefined && (as.toLowerCase() !== 'as' || uid === undefined)) return usage;
  const problem =
    idProblem(sessionId, 'A session id', MAX_SESSION_ID) ??
    (uid === undefined ? undefined : uidProblem(uid));
  if (problem) return new Refusal(problem);
  return { sessionId, onBehalfOf: uid === undefined ? undefined : storedUid(uid) };
}

/** The Home tab's call buttons open the lookup form. */
function registerHomeButtons(bolt: App, deps: AppDeps): void {
  const openForm = async ({ ack, body }: ButtonArgs) => {
    await ack();
    const names = deps.apps.all.map((a) => a.name);
    await deps.views.open({ trigger_id: body.trigger_id, view: lookupFormView(names) });
  };
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.homeFindCalls, openForm);
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.homeLookupCall, openForm);
}

export const calls: Feature = {
  subcommands: [
    subcommand({
      names: ['call'],
      usage: `${CALL_USAGE} - look up a call; \`as\` acts on behalf of a user`,
      parse: parseCallWords,
      progress: ({ sessionId }, { app, deps }) =>
        `Looking up call ${code(truncate(sessionId, 80))}${inApp(appNameIfMultiple(deps.apps, app))}…`,
      run: ({ sessionId, onBehalfOf }, { respond, app, deps }) =>
        createCallCommand(deps)(app, sessionId, onBehalfOf, respond),
    }),
    subcommand({
      names: ['calls'],
      usage:
        '`/cometchat calls [&lt;uid&gt;] [filters] [as &lt;uid&gt;]` - find calls, newest first; filters in any order: `status:ongoing|ended|unanswered|rejected|initiated|canceled`, `type:audio|video`, `mode:call|meet|presenter`, `to:user|group`, `recorded`, `transcribed`, `since:30m|2h|3d|2026-11-20`, `until:` (same forms; a day is read in your Slack time zone)',
      parse: (words) => {
        const search = parseCallSearch(words);
        return 'problem' in search ? new Refusal(search.problem) : search;
      },
      progress: (search, { app, deps }) =>
        `Searching ${workingDescription(search, currentRequest().receivedAt)}${inApp(appNameIfMultiple(deps.apps, app))}…`,
      run: async (search, { body, respond, app, deps }) =>
        createCallsCommand(deps)(app, await resolvedFor(search, body.user_id, deps), respond),
    }),
  ],
  unfurlers: [callUnfurler],
  register(bolt, deps) {
    registerCallLookup(bolt, deps);
    registerCallSearch(bolt, deps);
    registerHomeButtons(bolt, deps);
    registerCallSteps(bolt, deps);
  },
};
