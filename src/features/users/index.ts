import { appNameIfMultiple } from '../../apps/apps.ts';
import { inApp } from '../../replies/sentences.ts';
import { code, truncate } from '../../slack/mrkdwn.ts';
import { type Feature, subcommand } from '../feature.ts';
import { createContainCommand, registerContain } from './contain.ts';
import { createRoleCommand, registerUserChanges } from './user-changes.ts';
import { describeUserSearch } from './user-list-view.ts';
import { createCan, createUserCard, createUserList, registerUserLookup } from './user-lookup.ts';
import { registerUserSessions } from './user-sessions.ts';
import { registerUserShortcuts } from './user-shortcuts.ts';
import { registerUserSteps } from './user-steps.ts';
import { userUnfurler } from './user-unfurl.ts';
import { parseUsersWords, parseUserWords, USER_USAGE, USERS_USAGE } from './user-words.ts';

// People, not only roles: a user's card, the user search, and why a user can or cannot do
// something.

export const users: Feature = {
  subcommands: [
    subcommand({
      names: ['user'],
      usage: `${USER_USAGE} - a user's card; \`can\` explains whether they may do an action (such as \`sendMessage\`), towards another user if named, or in a group (both layers: the role, then the member's scope); \`role\` changes their role, \`contain\` revokes their sessions and deactivates them, with bans and deletions if chosen (editors)`,
      parse: parseUserWords,
      progress: (words, { app, deps }) => {
        // A role change or a containment opens a modal at once: no progress message to replace.
        if (words.kind === 'role' || words.kind === 'contain') return undefined;
        const uid = code(truncate(words.uid, 100));
        const where = inApp(appNameIfMultiple(deps.apps, app));
        const inGroup = words.kind === 'can' && words.group ? ` in group ${code(words.group)}` : '';
        return words.kind === 'can'
          ? `Working out whether ${uid} can ${code(words.action)}${inGroup}${where}…`
          : `Looking up user ${uid}${where}…`;
      },
      run: async (words, { body, respond, app, deps }) => {
        if (words.kind === 'role') return createRoleCommand(deps)(app, words, body, respond);
        if (words.kind === 'contain') return createContainCommand(deps)(app, words, body, respond);
        if (words.kind === 'can') return respond(await createCan(deps)(app, words));
        return respond(await createUserCard(deps)(app, words.uid, body.user_id));
      },
    }),
    subcommand({
      names: ['users'],
      usage: `${USERS_USAGE} - find users by the start of their uid or name, on one role, or deactivated`,
      parse: parseUsersWords,
      progress: (search, { app, deps }) =>
        `Searching users: ${describeUserSearch(search)}${inApp(appNameIfMultiple(deps.apps, app))}…`,
      run: async (search, { respond, app, deps }) =>
        respond(await createUserList(deps)(app, search)),
    }),
  ],
  unfurlers: [userUnfurler],
  register(bolt, deps) {
    registerUserLookup(bolt, deps);
    registerUserChanges(bolt, deps);
    registerContain(bolt, deps);
    registerUserSessions(bolt, deps);
    registerUserShortcuts(bolt, deps);
    registerUserSteps(bolt, deps);
  },
};
