import { appNameIfMultiple } from '../../apps/apps.ts';
import { inApp } from '../../replies/sentences.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type Feature, subcommand } from '../feature.ts';
import {
  bannedPageOf,
  groupCardOf,
  groupListOf,
  membersPageOf,
  registerGroupLookup,
} from './group-lookup.ts';
import { describeGroupSearch } from './group-view.ts';
import {
  GROUP_USAGE,
  GROUPS_USAGE,
  type GroupWords,
  parseGroupsWords,
  parseGroupWords,
} from './group-words.ts';
import { createMemberCommand, registerMemberChanges } from './member-changes.ts';

// Groups: a group's card (who leads it, its members by scope, its banned users), the group
// search, "Look up group" on a message, and, for editors, a member's scope changed, a kick, a
// ban and its lifting, each through the road of changes.

/** The progress line of words that wait on CometChat; none for a change (a modal at once). */
function progressOf(words: GroupWords, where: string): string | undefined {
  const guid = code(words.guid);
  switch (words.kind) {
    case 'card':
      return `Looking up group ${guid}${where}…`;
    case 'members':
      return `Reading the members of ${guid}${where}…`;
    case 'banned':
      return `Reading who is banned from ${guid}${where}…`;
    default:
      return undefined;
  }
}

export const groups: Feature = {
  subcommands: [
    subcommand({
      names: ['group'],
      usage: `${GROUP_USAGE} - a group's card: type, owner, admins and moderators, _Members_ (by scope) and _Banned_; an editor changes a member's scope, kicks, bans or lifts a ban`,
      parse: parseGroupWords,
      progress: (words, { app, deps }) =>
        progressOf(words, inApp(appNameIfMultiple(deps.apps, app))),
      run: async (words, { body, respond, app, deps }) => {
        const viewer = body.user_id;
        switch (words.kind) {
          case 'card':
            return respond(await groupCardOf(deps, app, words.guid, viewer));
          case 'members':
            return respond(
              await membersPageOf(
                deps,
                app,
                { g: words.guid, s: words.scope, p: words.page },
                viewer,
              ),
            );
          case 'banned':
            return respond(await bannedPageOf(deps, app, { g: words.guid, p: words.page }, viewer));
          case 'scope': {
            const ask = { key: 'scope', to: words.scope } as const;
            return createMemberCommand(deps)(app, { ...words, ask }, body, respond);
          }
          case 'member':
            return createMemberCommand(deps)(
              app,
              { ...words, ask: { key: words.action } },
              body,
              respond,
            );
        }
      },
    }),
    subcommand({
      names: ['groups'],
      usage: `${GROUPS_USAGE} - find groups by the start of their guid or name, or by type`,
      parse: parseGroupsWords,
      progress: (search, { app, deps }) =>
        `Searching groups: ${describeGroupSearch(search)}${inApp(appNameIfMultiple(deps.apps, app))}…`,
      run: async (search, { respond, app, deps }) => respond(await groupListOf(deps, app, search)),
    }),
  ],
  register(bolt, deps) {
    registerGroupLookup(bolt, deps);
    registerMemberChanges(bolt, deps);
  },
};
