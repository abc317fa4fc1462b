import { noWords } from '../command.ts';
import { type Feature, subcommand } from '../feature.ts';
import { createAppsCommand } from './apps-command.ts';

const USAGE = '`/cometchat apps`';

export const apps: Feature = {
  subcommands: [
    subcommand({
      names: ['apps'],
      usage: `${USAGE} - the CometChat apps this install serves, and whether their keys work`,
      parse: noWords(USAGE),
      run: (_, { body, scope, deps }) => createAppsCommand(deps)(body, scope),
    }),
  ],
  // Its reply has no buttons.
  register: () => {},
};
