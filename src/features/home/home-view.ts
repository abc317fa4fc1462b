import type { KnownBlock, PlainTextOption, StaticSelect, View } from '@slack/types';
import { counted } from '../../replies/sentences.ts';
import {
  actions,
  button,
  context,
  divider,
  header,
  plain,
  SELECT_OPTIONS_LIMIT,
  section,
} from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { ChannelAlerts, RecentChange } from '../deps.ts';
import { channelAlertBlocks } from './channel-alerts-view.ts';
import { differenceBlocks } from './differences-view.ts';
import type { PairSummary } from './role-differences.ts';

// The Home tab as Slack shows it: what needs this person first, then each CometChat app, the
// alerts in their channels, the roles that differ between apps, the last changes, and a button
// for each thing they do. Pure; within Slack's 100 blocks whatever it is given (the approvals
// part comes already bounded).

/** What is known of an app's roles (and so of its key) for the tab. */
export type AppSnapshot =
  | { state: 'loading' }
  | { state: 'ok'; roles: readonly { role: string; name: string }[] }
  | { state: 'refused'; ref: string }
  | { state: 'failed'; sentence: string; ref: string };

export interface HomeApp {
  name: string;
  region: string | undefined;
  snapshot: AppSnapshot;
  /** This person may edit the app's permissions (checked again when they do). */
  editable: boolean;
  /** A role picker option's value: the role, signed for the app (apps.ts, signedOption). */
  optionValue: (role: string) => string;
}

export interface HomeInput {
  /** Name each app (an install with one calls it nothing). */
  multiple: boolean;
  /** The approvals part: requests waiting for this person and their own open ones. */
  approvals: readonly KnownBlock[];
  apps: readonly HomeApp[];
  /**
   * The last changes, one line each (an applied one with _Revert_, shown where this person may
   * edit its app); undefined when the trail could not be read.
   */
  recent: readonly RecentChange[] | undefined;
  /**
   * The subscriptions of the channels the person is in (`unread`: their channels could not be
   * read); undefined shows no such section (not known yet).
   */
  alerts?: ChannelAlerts | 'unread' | undefined;
  /**
   * Each pair of apps the person may view, with its roles that differ (`unread`: the known maps
   * could not be read); undefined shows no such section (fewer than two apps to view).
   */
  differences?: readonly PairSummary[] | 'unread' | undefined;
  /** When the tab was drawn (Unix ms). */
  at: number;
}

/** Slack's limit of a Home tab. */
const MAX_BLOCKS = 100;
/** Roles named in an app's line before "and N more". */
const ROLES_LISTED = 25;
const MAX_OPTIONS = SELECT_OPTIONS_LIMIT;
/** The characters an option's value holds. */
const MAX_OPTION_VALUE = 75;

const MARK = {
  loading: ':hourglass_flowing_sand:',
  ok: ':large_green_circle:',
  refused: ':red_circle:',
  failed: ':warning:',
};

function keyLine(snapshot: AppSnapshot): string {
  switch (snapshot.state) {
    case 'loading':
      return 'Checking the key…';
    case 'ok':
      return `Key works · ${counted(snapshot.roles.length, 'role')}`;
    case 'refused':
      return `CometChat refused the key (ref \`${snapshot.ref}\`)`;
    case 'failed':
      return `${escapeMrkdwn(snapshot.sentence)} (ref \`${snapshot.ref}\`)`;
  }
}

/** The picker of an app's roles; none when no role fits an option. */
function rolePicker(
  app: HomeApp,
  roles: readonly { role: string; name: string }[],
): StaticSelect | undefined {
  const options: PlainTextOption[] = [];
  for (const r of roles) {
    if (options.length === MAX_OPTIONS) break;
    const value = app.optionValue(r.role);
    // A role whose signed value is longer than an option holds is left out of the picker; it is
    // still edited from its card (`/cometchat roles`).
    if (value.length <= MAX_OPTION_VALUE)
      options.push({ text: plain(`${r.name} (${r.role})`), value });
  }
  if (options.length === 0) return undefined;
  return {
    type: 'static_select',
    action_id: ACTIONS.homeEditRole,
    placeholder: plain('Edit a role…'),
    options,
  };
}

function appBlocks(app: HomeApp, multiple: boolean): KnownBlock[] {
  const { snapshot } = app;
  const title = multiple || app.name !== 'default' ? `*${escapeMrkdwn(app.name)}*` : '*CometChat*';
  const blocks: KnownBlock[] = [
    section(
      `${MARK[snapshot.state]} ${title}${app.region ? ` · ${escapeMrkdwn(app.region)}` : ''} · ${keyLine(snapshot)}`,
    ),
  ];
  if (snapshot.state !== 'ok') return blocks;
  const listed = snapshot.roles
    .slice(0, ROLES_LISTED)
    .map((r) => code(truncate(r.role, 60)))
    .join(' ');
  const more =
    snapshot.roles.length > ROLES_LISTED ? ` and ${snapshot.roles.length - ROLES_LISTED} more` : '';
  blocks.push(context([listed === '' ? 'No roles.' : `${listed}${more}`]));
  const picker = app.editable ? rolePicker(app, snapshot.roles) : undefined;
  if (picker) {
    blocks.push({ type: 'actions', elements: [picker] });
  }
  return blocks;
}

export function homeView(input: HomeInput): View {
  const blocks: KnownBlock[] = [
    header('CometChat Ops'),
    actions([
      button('Find calls', ACTIONS.homeFindCalls, 'find', 'primary'),
      button('Look up a call', ACTIONS.homeLookupCall, 'lookup'),
      button('Look up a user', ACTIONS.homeLookupUser, 'user'),
      button('Help', ACTIONS.homeHelp, 'help'),
    ]),
    context([
      `Updated ${slackDate(Math.floor(input.at / 1000))}. It refreshes each time you open it.`,
    ]),
  ];
  if (input.approvals.length > 0) blocks.push(divider(), ...input.approvals);
  blocks.push(divider(), header(input.multiple ? 'CometChat apps' : 'CometChat app'));
  for (const app of input.apps) blocks.push(...appBlocks(app, input.multiple));
  const editable = new Set(input.apps.filter((app) => app.editable).map((app) => app.name));
  const recent = recentBlocks(input.recent, editable);
  // What is left of Slack's 100 blocks once the rest is drawn: the alerts take theirs (a few
  // sections), then the differences what remains.
  blocks.push(...channelAlertBlocks(input.alerts, MAX_BLOCKS - blocks.length - recent.length));
  if (input.differences !== undefined) {
    blocks.push(...differenceBlocks(input.differences, MAX_BLOCKS - blocks.length - recent.length));
  }
  blocks.push(...recent);
  return { type: 'home', blocks: blocks.slice(0, MAX_BLOCKS) };
}

function recentBlocks(
  recent: readonly RecentChange[] | undefined,
  editable: ReadonlySet<string>,
): KnownBlock[] {
  const blocks = [divider(), header('Recent permission changes')];
  if (recent === undefined) {
    blocks.push(section(':warning: The audit trail could not be read just now.'));
  } else if (recent.length === 0) {
    blocks.push(section('No permission change yet.'));
  } else {
    // Five lines a section keeps each well under Slack's 3,000 characters; a change with
    // _Revert_ has a section of its own, the button beside it.
    let lines: string[] = [];
    const flush = () => {
      if (lines.length > 0) blocks.push(section(lines.join('\n')));
      lines = [];
    };
    for (const change of recent) {
      const revert = editable.has(change.app) ? change.revert : undefined;
      if (revert) {
        flush();
        blocks.push(section(change.line, revert));
      } else {
        lines.push(change.line);
        if (lines.length === 5) flush();
      }
    }
    flush();
  }
  return blocks;
}

/** The Home tab of someone who may not use the app. */
export function noAccessHome(sentence: string): View {
  return { type: 'home', blocks: [header('CometChat Ops'), section(escapeMrkdwn(sentence))] };
}
