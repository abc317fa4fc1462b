import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';

// The app is installed in one workspace, and its signing secret is the app's, not the
// workspace's: a request from another workspace the app is installed in (a second install, a
// test workspace) carries a valid signature too. Every request is checked against the team the
// bot token belongs to (auth.test), and one from another team is acknowledged and dropped
// before any listener runs: its users are not this workspace's editors or viewers.

/**
 * Every team a request names: the command's `team_id`, the payload's `team`, its user's home
 * team, and a view's teams. Bolt takes one of them (a view's installing team first); a request
 * is the workspace's only when all of them are.
 */
export function teamsOf(body: unknown): string[] {
  const teams: unknown[] = [];
  if (typeof body === 'object' && body !== null) {
    const b = body as {
      team_id?: unknown;
      team?: { id?: unknown } | null;
      user?: { team_id?: unknown };
      view?: { team_id?: unknown; app_installed_team_id?: unknown };
    };
    teams.push(
      b.team_id,
      b.team?.id,
      b.user?.team_id,
      b.view?.team_id,
      b.view?.app_installed_team_id,
    );
  }
  return teams.filter((team): team is string => typeof team === 'string' && team !== '');
}

/** Whether a request names a team other than the installation's `installed`. */
export function isOtherWorkspace(
  body: unknown,
  context: { isEnterpriseInstall?: boolean | undefined },
  installed: string | undefined,
): boolean {
  // An organisation-wide install serves every workspace of the organisation.
  if (context.isEnterpriseInstall || installed === undefined) return false;
  return teamsOf(body).some((team) => team !== installed);
}

export function refuseOtherWorkspaces(
  installedTeam: () => Promise<string | undefined>,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { body, context, next } = args;
    if (!isOtherWorkspace(body, context, await installedTeam())) {
      await next();
      return;
    }
    const log = (context.scope as { log?: Logger } | undefined)?.log;
    log?.warn({ teams: teamsOf(body) }, 'request refused: from another workspace');
    // Acknowledged, so Slack does not show its own timeout error, and nothing else.
    const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
    await ack?.();
  };
}
