import { idProblem, MAX_SESSION_ID, uidProblem } from '../cometchat/id-rules.ts';
import { ROLE_ID } from '../cometchat/schemas.ts';
import { type CallSearch, parseCallSearch } from './call-filters.ts';
import { code, truncate } from './mrkdwn.ts';
import { MAX_PAGE } from './values.ts';

// Parses the text of `/cometchat ...` into a subcommand. Pure: the router decides what to do.

export type Subcommand =
  | { name: 'help' }
  | { name: 'roles'; page: number }
  | { name: 'perms'; role: string }
  | { name: 'call'; sessionId: string; onBehalfOf?: string | undefined }
  | { name: 'calls'; search: CallSearch }
  | { name: 'audit'; role?: string | undefined; page: number }
  | { name: 'apps' }
  | { name: 'approvals' }
  | { name: 'invalid'; problem: string };

export { idProblem, MAX_SESSION_ID, MAX_UID, uidProblem } from '../cometchat/id-rules.ts';

/** A subcommand, and the CometChat app it names (`/cometchat staging roles`), if any. */
export type Command = Subcommand & { app?: string | undefined };

/**
 * Slack sends `&`, `<` and `>` in command text as HTML entities. (The other way round, the
 * problems below are mrkdwn: a literal `<role>` would be read as a link, so it is `&lt;role&gt;`.)
 */
export function decodeSlackEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * `/cometchat [<app>] <subcommand> ...`. `apps` are the configured app names: when the first
 * word is one of them, it chooses the app and the rest is the subcommand.
 */
export function parseCommand(rawText: string, apps: readonly string[] = []): Command {
  const words = decodeSlackEntities(rawText).trim().split(/\s+/).filter(Boolean);
  const app = words[0]?.toLowerCase();
  if (app !== undefined && apps.includes(app))
    return { ...parseSubcommand(words.slice(1), apps), app };
  return parseSubcommand(words, apps);
}

function parseSubcommand(words: string[], apps: readonly string[]): Subcommand {
  const [first, ...rest] = words;
  switch (first?.toLowerCase()) {
    case undefined:
    case 'help':
      return { name: 'help' };
    case 'roles':
      return parseRoles(rest);
    case 'perms':
    case 'permissions':
      return parsePerms(rest);
    case 'call':
      return parseCall(rest);
    case 'calls': {
      const search = parseCallSearch(rest);
      return 'problem' in search ? invalid(search.problem) : { name: 'calls', search };
    }
    case 'audit':
      return parseAudit(rest);
    case 'apps':
      return rest.length > 0 ? invalid('Usage: `/cometchat apps`.') : { name: 'apps' };
    case 'approvals':
      return rest.length > 0 ? invalid('Usage: `/cometchat approvals`.') : { name: 'approvals' };
    default:
      // Said, not just answered with help: a typo should not look like the command was ignored.
      return invalid(
        apps.length > 1
          ? `There is no subcommand or app ${code(truncate(first ?? '', 40))}. The apps are ${apps.map(code).join(', ')}.`
          : `There is no subcommand ${code(truncate(first ?? '', 40))}.`,
      );
  }
}

function parseRoles(args: string[]): Subcommand {
  if (args.length > 1) return invalid('Usage: `/cometchat roles [page]`.');
  const page = args[0] === undefined ? 1 : parsePage(args[0]);
  return page === undefined
    ? invalid(`The page must be a whole number from 1 to ${MAX_PAGE}.`)
    : { name: 'roles', page };
}

function parsePerms(args: string[]): Subcommand {
  if (args.length !== 1 || args[0] === undefined) {
    return invalid(
      'Usage: `/cometchat perms &lt;role&gt;`, for example `/cometchat perms default`.',
    );
  }
  const role = checkRoleId(args[0]);
  return typeof role === 'string' ? { name: 'perms', role } : role;
}

function parseCall(args: string[]): Subcommand {
  const usage =
    'Usage: `/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]`. For a session id with spaces, use the *Look up a call* shortcut.';
  const [sessionId, as, uid, ...extra] = args;
  if (sessionId === undefined || extra.length > 0) return invalid(usage);
  if (as !== undefined && (as.toLowerCase() !== 'as' || uid === undefined)) return invalid(usage);
  const sessionProblem = idProblem(sessionId, 'A session id', MAX_SESSION_ID);
  if (sessionProblem) return invalid(sessionProblem);
  if (uid !== undefined) {
    const problem = uidProblem(uid);
    if (problem) return invalid(problem);
  }
  return { name: 'call', sessionId, onBehalfOf: uid };
}

function parseAudit(args: string[]): Subcommand {
  if (args.length > 2) return invalid('Usage: `/cometchat audit [role] [page]`.');
  let role: string | undefined;
  let page = 1;
  for (const arg of args) {
    const asPage = /^\d+$/.test(arg) ? parsePage(arg) : undefined;
    if (asPage !== undefined) page = asPage;
    else if (role === undefined) {
      const checked = checkRoleId(arg);
      if (typeof checked !== 'string') return checked;
      role = checked;
    } else return invalid('Usage: `/cometchat audit [role] [page]`.');
  }
  return { name: 'audit', role, page };
}

/** A role id as the service accepts it; the service lower-cases ids, so we do too. */
export function checkRoleId(input: string): string | Subcommand {
  const role = input.toLowerCase();
  return ROLE_ID.test(role)
    ? role
    : invalid(
        'A role id is 1 to 100 characters of a-z, 0-9, `-` and `_` (see `/cometchat roles`).',
      );
}

function parsePage(text: string): number | undefined {
  if (!/^\d{1,6}$/.test(text)) return undefined;
  const page = Number(text);
  return page >= 1 && page <= MAX_PAGE ? page : undefined;
}

function invalid(problem: string): Subcommand {
  return { name: 'invalid', problem };
}
