import type { KnownBlock } from '@slack/types';
import { counted } from '../../replies/sentences.ts';
import { context, divider, header, section } from '../../slack/blocks.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { PairSummary } from './role-differences.ts';

// The Home tab's "Roles that differ between apps": a section for each pair of apps where roles
// differ (each role with its count of differing keys and the command that shows them), then the
// other pairs a line each. Pure; at most the blocks it is given room for.

export const DIFFERENCES_TITLE = 'Roles that differ between apps';

/** Differing roles listed under a pair before "and N more". */
const ROLES_LISTED = 5;
/** Roles named in "known in one app only", per app, before "and N more". */
const ONLY_LISTED = 3;
/** Lines of pairs with nothing listed per section: each well under Slack's 3,000 characters. */
const LINES_PER_SECTION = 5;

const WHY =
  "From this app's own record of what it set (a role it never changed has the documented defaults): a change made in CometChat's dashboard does not show.";

const app = (name: string) => `*${escapeMrkdwn(name)}*`;
const pairTitle = (pair: PairSummary) => `${app(pair.left)} and ${app(pair.right)}`;

/** `/cometchat compare <role> <app> <other app>`, in a code span so it copies as one. */
export function compareCommand(role: string, left: string, right: string): string {
  return code(`/cometchat compare ${role} ${left} ${right}`);
}

function rolesNamed(roles: readonly string[]): string {
  const named = roles.slice(0, ONLY_LISTED).map((role) => code(truncate(role, 40)));
  const more = roles.length > ONLY_LISTED ? ` and ${roles.length - ONLY_LISTED} more` : '';
  return `${named.join(' ')}${more}`;
}

/** "Known in one app only: …", or nothing when both apps list the same roles. */
function onlyInOne(pair: Extract<PairSummary, { state: 'compared' }>): string | undefined {
  const sides = [
    [pair.left, pair.onlyLeft],
    [pair.right, pair.onlyRight],
  ] as const;
  const named = sides
    .filter(([, roles]) => roles.length > 0)
    .map(([name, roles]) => `${app(name)} ${rolesNamed(roles)}`);
  return named.length > 0 ? `Known in one app only: ${named.join(' · ')}.` : undefined;
}

/** A pair where roles differ: its own section. */
function differingSection(pair: Extract<PairSummary, { state: 'compared' }>): string {
  const n = pair.differing.length;
  const lines = [`${pairTitle(pair)}: *${counted(n, 'role')} ${n === 1 ? 'differs' : 'differ'}*`];
  for (const { role, keys } of pair.differing.slice(0, ROLES_LISTED)) {
    const differ = `${counted(keys, 'key')} ${keys === 1 ? 'differs' : 'differ'}`;
    lines.push(`• ${code(role)} · ${differ} · ${compareCommand(role, pair.left, pair.right)}`);
  }
  if (n > ROLES_LISTED) lines.push(`_…and ${n - ROLES_LISTED} more_`);
  const only = onlyInOne(pair);
  if (only) lines.push(only);
  return lines.join('\n');
}

/** A pair with nothing to list, in one line. */
function pairLine(pair: PairSummary): string {
  if (pair.state === 'compared') {
    const only = onlyInOne(pair);
    return `${pairTitle(pair)}: no role known in both differs.${only ? ` ${only}` : ''}`;
  }
  const whose = `the roles of ${pair.missing.map(app).join(' and ')}`;
  return pair.state === 'loading'
    ? `:hourglass_flowing_sand: ${pairTitle(pair)}: waiting for ${whose}.`
    : `:warning: ${pairTitle(pair)}: not compared, ${whose} could not be read.`;
}

/** The section's blocks, each with how many pairs it tells: differing pairs first. */
function pairBlocks(pairs: readonly PairSummary[]): { block: KnownBlock; pairs: number }[] {
  const differing = pairs.filter(
    (p): p is Extract<PairSummary, { state: 'compared' }> =>
      p.state === 'compared' && p.differing.length > 0,
  );
  const rest = pairs.filter((p) => p.state !== 'compared' || p.differing.length === 0);
  const blocks = differing.map((pair) => ({ block: section(differingSection(pair)), pairs: 1 }));
  for (let i = 0; i < rest.length; i += LINES_PER_SECTION) {
    const lines = rest.slice(i, i + LINES_PER_SECTION).map(pairLine);
    blocks.push({ block: section(lines.join('\n')), pairs: lines.length });
  }
  return blocks;
}

/**
 * The section for `pairs` (or a warning when the known maps could not be read), in at most
 * `room` blocks: pairs beyond it are counted, not shown. Nothing when not even one fits.
 */
export function differenceBlocks(
  pairs: readonly PairSummary[] | 'unread',
  room: number,
): KnownBlock[] {
  const body =
    pairs === 'unread'
      ? [
          {
            block: section(':warning: The known permission maps could not be read just now.'),
            pairs: 0,
          },
        ]
      : pairBlocks(pairs);
  // The divider, the header and the closing context take three.
  const fit = room - 3;
  if (fit < 1) return [];
  const left = body.slice(fit).reduce((sum, b) => sum + b.pairs, 0);
  const notes = left > 0 ? [`${counted(left, 'more pair')} of apps not shown.`, WHY] : [WHY];
  return [
    divider(),
    header(DIFFERENCES_TITLE),
    ...body.slice(0, fit).map((b) => b.block),
    context([notes.join(' ')]),
  ];
}
