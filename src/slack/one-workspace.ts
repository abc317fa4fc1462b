import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { currentRequestIfAny } from '../request-context.ts';
import { ackOf, factsOf } from './body-facts.ts';

// The app is installed in one workspace, and its signing secret is the app's, not the
// workspace's: a request from another workspace the app is installed in (a second install, a
// test workspace) carries a valid signature too. Every request is checked against the team the
// bot token belongs to (auth.test), and one from another team is acknowledged and dropped
// before any listener runs: its users are not this workspace's editors or viewers.

/**
 * Whether a request names a team other than the installation's `installed`. `teams` are the
 * teams it is for, as Bolt reads them (BodyFacts.teams): a command's `team_id`, an interaction's
 * `team`, a view's installing team, an event's. Not the user's own `team_id`: in an Enterprise
 * Grid that is the user's home workspace, wherever they clicked, and not a view's `team_id`,
 * which names the channel's workspace for a modal opened from a Slack Connect channel.
 */
export function isOtherWorkspace(
  teams: readonly string[],
  context: { isEnterpriseInstall?: boolean | undefined },
  installed: string | undefined,
): boolean {
  // An organisation-wide install serves every workspace of the organisation.
  if (context.isEnterpriseInstall || installed === undefined) return false;
  return teams.some((team) => team !== installed);
}

/** Said to someone who runs the command from a workspace the app does not serve. */
export const OTHER_WORKSPACE =
  'This app serves another workspace; nothing was done. Ask its admins for an install of your own.';

export function refuseOtherWorkspaces(
  installedTeam: () => Promise<string | undefined>,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { body, context, next } = args;
    const { teams, kind } = factsOf(body);
    if (!isOtherWorkspace(teams, context, await installedTeam())) {
      await next();
      return;
    }
    currentRequestIfAny()?.log.warn({ teams }, 'request refused: from another workspace');
    // Acknowledged, so Slack does not show its own timeout error; a command is told why.
    await ackOf(args)?.(kind === 'command' ? OTHER_WORKSPACE : undefined);
  };
}
