import { currentRequest } from '../../request-context.ts';
import type { Feature } from '../feature.ts';
import { markStopped } from '../installation.ts';

// The events that end the app's service of the workspace: uninstalled, or its bot token revoked.
// What that stops, and how a replica finds out, is src/features/installation.ts.

export const install: Feature = {
  subcommands: [],
  register(bolt, deps) {
    bolt.event('app_uninstalled', async () => {
      await markStopped(deps, 'The app was uninstalled from the workspace', currentRequest().log);
    });
    bolt.event('tokens_revoked', async ({ event }) => {
      const { log } = currentRequest();
      // A person's token revoked leaves the bot's working: only the bot's stops the app.
      if ((event.tokens.bot ?? []).length === 0) {
        log.info(
          { users: event.tokens.oauth?.length ?? 0 },
          'user tokens revoked; the bot token still works',
        );
        return;
      }
      await markStopped(deps, 'The bot token was revoked', log);
    });
  },
};
