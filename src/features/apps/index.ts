import { counted } from '../../replies/sentences.ts';
import { noWords } from '../command.ts';
import { type Feature, subcommand } from '../feature.ts';
import { checkAppsAtStart, createAppsCommand } from './apps-command.ts';

const USAGE = '`/cometchat apps`';

export const apps: Feature = {
  subcommands: [
    subcommand({
      names: ['apps'],
      usage: `${USAGE} - the CometChat apps this install serves, and whether their keys work`,
      parse: noWords(USAGE),
      progress: (_, { deps }) =>
        `Checking ${counted(deps.apps.all.length, "app's key", "apps' keys")}…`,
      run: (_, { respond, deps }) => createAppsCommand(deps)(respond),
    }),
  ],
  // Its reply has no buttons.
  register: () => {},
  atStart: checkAppsAtStart,
};
