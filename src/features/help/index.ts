import type { BlockAction, ButtonAction } from '@slack/bolt';
import { plain } from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { type Feature, subcommand } from '../feature.ts';

// Usage: what `/cometchat help` and the Home tab's Help button show (features/index.ts draws it
// from every subcommand's usage line).

export const help: Feature = {
  subcommands: [
    subcommand({
      names: ['help'],
      usage: '`/cometchat help` - this message',
      // Words after `help` are ignored: whoever typed them wants the usage.
      parse: () => true,
      run: (_, { respond, deps }) => respond(deps.help()),
    }),
  ],
  register(app, deps) {
    app.action<BlockAction<ButtonAction>>(ACTIONS.homeHelp, async ({ ack, body }) => {
      await ack();
      await deps.views.open({
        trigger_id: body.trigger_id,
        view: {
          type: 'modal',
          title: plain('Help', 24),
          close: plain('Close', 24),
          blocks: (deps.help().blocks ?? []).slice(0, 100),
        },
      });
    });
  },
};
