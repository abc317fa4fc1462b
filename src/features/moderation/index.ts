import { appNameIfMultiple } from '../../apps/apps.ts';
import { messageIdProblem } from '../../cometchat/id-rules.ts';
import { inApp } from '../../replies/sentences.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { registerAlertReview } from './alert-review.ts';
import { queueDetails, queuePage, registerModeration } from './listeners.ts';

// The moderation desk: the messages people flagged and the messages rules blocked, read from
// CometChat, decided from Slack through the change road. Moderators (MODERATORS) see a message's
// text and decide; everyone allowed to view sees ids, senders, conversations, rules and counts.

export { homeModeration } from './waiting.ts';

export const MODERATION_USAGE = '`/cometchat [app] moderation [message id]`';

/** The words after `moderation`: none (the queue), or one message id (its details). Pure. */
export function parseModerationWords(
  words: readonly string[],
): { kind: 'queue' } | { kind: 'details'; id: string } | Refusal {
  if (words.length === 0) return { kind: 'queue' };
  const [id] = words;
  // A word that cannot be a message id (messageIdProblem, the one rule) is not one.
  if (words.length === 1 && id !== undefined && messageIdProblem(id) === undefined) {
    return { kind: 'details', id };
  }
  return new Refusal('`moderation` takes nothing, or one message id (its details).');
}

export const moderation: Feature = {
  subcommands: [
    subcommand({
      names: ['moderation'],
      usage: `${MODERATION_USAGE} - flagged and blocked messages, newest first, to approve, block, deliver or keep blocked (moderators); with an id, one message in full`,
      parse: parseModerationWords,
      progress: (words, { app, deps }) => {
        const where = inApp(appNameIfMultiple(deps.apps, app));
        return words.kind === 'queue'
          ? `Reading the moderation queue${where}…`
          : `Looking up message ${code(words.id)} in the moderation queue${where}…`;
      },
      run: async (words, { body, respond, app, deps }) =>
        respond(
          words.kind === 'queue'
            ? await queuePage(deps, app, body.user_id, 1)
            : await queueDetails(app, body.user_id, words.id),
        ),
    }),
  ],
  register: (bolt, deps) => {
    registerModeration(bolt, deps);
    registerAlertReview(bolt, deps);
  },
};
