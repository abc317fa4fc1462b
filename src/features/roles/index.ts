import { appNameIfMultiple } from '../../apps/apps.ts';
import { inApp } from '../../replies/sentences.ts';
import { PAGE_PROBLEM, pageWord } from '../command.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { PRESETS } from './presets.ts';
import { registerRoleDetails, roleUnfurler } from './role-card.ts';
import { createRoleChangeCommand } from './role-changes.ts';
import { createRolesCommand, registerRoleList } from './role-list.ts';
import { parseRoleWords, ROLE_USAGE } from './role-words.ts';

const USAGE = '`/cometchat roles [page]`';

/** `roles [page]`: the page, 1 when none is given. */
export function parseRolesWords(words: readonly string[]): number | Refusal {
  if (words.length > 1) return new Refusal(`Usage: ${USAGE}.`);
  const page = words[0] === undefined ? 1 : pageWord(words[0]);
  return page ?? new Refusal(PAGE_PROBLEM);
}

export const roles: Feature = {
  subcommands: [
    subcommand({
      names: ['roles'],
      usage: `${USAGE} - list the app's roles, with buttons to page and edit`,
      parse: parseRolesWords,
      progress: (page, { app, deps }) =>
        `Asking CometChat for the roles${page > 1 ? ` (page ${page})` : ''}${inApp(appNameIfMultiple(deps.apps, app))}…`,
      run: (page, { respond, app, deps }) => createRolesCommand(deps)(app, page, respond),
    }),
    subcommand({
      names: ['role'],
      usage: `${ROLE_USAGE} - make a role (empty, a copy, or from a preset: ${PRESETS.map((p) => `\`${p.name}\``).join(', ')}), rename, describe or delete it (editors)`,
      parse: parseRoleWords,
      // The review opens in a modal at once: no progress message to replace.
      run: (words, { body, respond, app, deps }) =>
        createRoleChangeCommand(deps)(app, words, body, respond),
    }),
  ],
  unfurlers: [roleUnfurler],
  register(bolt, deps) {
    registerRoleList(bolt, deps);
    registerRoleDetails(bolt, deps);
  },
};
