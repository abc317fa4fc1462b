import { appNameIfMultiple } from '../../apps/apps.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { code } from '../../slack/mrkdwn.ts';
import { namesADay } from '../call-filters.ts';
import { type Feature, subcommand } from '../feature.ts';
import { registerMessageDeletion } from './delete.ts';
import { messagePage, registerMessagePages } from './message-list.ts';
import { filterOf, MESSAGES_USAGE, parseMessageWords } from './message-words.ts';

// One user's messages, for an account in trouble: what they sent, where and when, paged by
// CometChat's cursor; the text for moderators only; Delete (soft, or permanently for a
// moderator after a last confirmation) through the road of changes.

export const messages: Feature = {
  subcommands: [
    subcommand({
      names: ['messages'],
      usage: `${MESSAGES_USAGE} - what a user sent, newest first (text for moderators only); _Delete_ for editors`,
      parse: parseMessageWords,
      progress: (words, { app, deps }) =>
        `Reading the messages of ${code(words.uid)}${inApp(appNameIfMultiple(deps.apps, app))}…`,
      run: async (words, { body, respond, app, deps }) => {
        const { log, receivedAt } = currentRequest();
        // A calendar day is read in the person's own time zone, as the call search reads it.
        const zone = namesADay(words) ? await deps.timeZones.of(body.user_id, log) : undefined;
        const filter = filterOf(words, Math.floor(receivedAt / 1000), zone);
        return respond(await messagePage(deps, app, body.user_id, { f: filter }));
      },
    }),
  ],
  register(bolt, deps) {
    registerMessagePages(bolt, deps);
    registerMessageDeletion(bolt, deps);
  },
};
