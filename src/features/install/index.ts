import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { currentRequest } from '../../request-context.ts';
import type { Store } from '../../store/store.ts';
import type { SharedDeps } from '../deps.ts';
import type { Feature } from '../feature.ts';

// When the app is uninstalled from the workspace, or its bot token revoked, every call it makes
// to Slack fails from then on: the replica that gets the event marks the installation stopped in
// the store, where every replica sees it, and the periodic work (sweeps, reminders, retries of
// posts) stops on all of them. Nothing is deleted. The mark is keyed by a hash of the bot token
// (never the token): a new token, after a reinstall and a restart, is a new installation and is
// served again.

/**
 * The mark lives in the store's claims, which every backend shares across replicas: a claim
 * taken for a century is a flag that stays, and renewClaim answers whether it is held.
 */
const FOREVER_SECONDS = 100 * 365 * 86_400;

/** What names an installation in the store: a hash of its bot token, never the token. */
export function installationId(botToken: string): string {
  return createHash('sha256').update(botToken).digest('hex').slice(0, 16);
}

/** What the features are given of the settings for the installation and its audit trail. */
export function installSettings(config: Pick<Config, 'slack' | 'auditRetentionDays'>) {
  return {
    installation: installationId(config.slack.botToken),
    auditRetentionDays: config.auditRetentionDays,
  };
}

const stoppedMark = (installation: string) => `stopped:${installation}`;

/** The sentence the log says when the app stops serving the workspace, and what to do. */
export function stoppedSentence(why: string): string {
  return `${why}: the app has stopped serving this workspace (no periodic work, no posts to Slack); nothing was deleted. To serve it again, reinstall the app, set the new SLACK_BOT_TOKEN and restart.`;
}

type InstallDeps = Pick<SharedDeps, 'installation'> & {
  store: Pick<Store, 'claim' | 'renewClaim'>;
};

/** Marks the installation stopped, for every replica, and says so once in the log. */
export async function markStopped(deps: InstallDeps, why: string, log: Logger): Promise<void> {
  await deps.store.claim(stoppedMark(deps.installation), FOREVER_SECONDS);
  log.error({ event: 'app_stopped', installation: deps.installation }, stoppedSentence(why));
}

/** Whether this installation was marked stopped (by any replica). */
export async function isStopped(deps: InstallDeps): Promise<boolean> {
  return deps.store.renewClaim(stoppedMark(deps.installation), FOREVER_SECONDS);
}

/**
 * Runs the periodic work unless the installation is stopped; the first time a replica finds it
 * stopped, it says so (the event reached one replica only).
 */
export function unlessStopped(deps: InstallDeps, work: (log: Logger) => Promise<unknown>) {
  let told = false;
  return async (log: Logger): Promise<unknown> => {
    if (!(await isStopped(deps))) return work(log);
    if (!told)
      log.error(
        { event: 'app_stopped', installation: deps.installation },
        stoppedSentence('The app was uninstalled or its token revoked'),
      );
    told = true;
    return undefined;
  };
}

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
