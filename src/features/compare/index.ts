import { type Feature, subcommand } from '../feature.ts';
import { createCompareCommand } from './compare-command.ts';
import { COMPARE_USAGE, parseCompareWords } from './compare-words.ts';

// Two roles' permissions side by side, as this app knows them: two roles of one app, or one
// role in two apps.

export const compare: Feature = {
  subcommands: [
    subcommand({
      names: ['compare'],
      usage: `${COMPARE_USAGE} - where two roles' permissions differ, key by key, as this app last set them (else the documented defaults)`,
      parse: parseCompareWords,
      // No progress message: nothing waits on CometChat, the answer is read from the store.
      run: (words, { respond, app, deps }) => createCompareCommand(deps)(words, app, respond),
    }),
  ],
  // Its reply has no buttons.
  register: () => {},
};
