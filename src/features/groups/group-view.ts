import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import {
  type BannedPage,
  GROUP_SCOPES,
  type Group,
  type GroupMember,
  type GroupPage,
  type GroupScope,
  type MemberPage,
} from '../../cometchat/group-model.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { actions, button, context, fields, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { GroupSearch } from './group-words.ts';

// A CometChat group as Slack shows it, pure: the card (who leads it, how many are in it), a page
// of its members (filtered by scope) with an editor's buttons per member, a page of its banned
// users with Unban, and the group search. Names are escaped; guids and uids are code, to copy.

/** Members, banned users and groups a page shows: two blocks each stay well inside 50. */
export const PER_PAGE = 10;

export interface GroupViewOptions {
  write: ValueWriter;
  appName?: string | undefined;
  /** The person may change members (the edit rule): offered the buttons that do. */
  editor: boolean;
}

/** The first page of a group's admins and of its moderators, read with it. */
export interface Leaders {
  admins: MemberPage;
  moderators: MemberPage;
}

/** What a member page button carries: the group, the scope filter, the page. */
export interface MembersValue {
  g: string;
  s?: GroupScope | undefined;
  p: number;
}

/** `*Ana* \`ana\``, or the uid alone when the service gives no name. Pure. */
function whoText(member: { uid: string; name?: string | undefined }): string {
  const name = member.name ? `*${escapeMrkdwn(truncate(member.name, 80))}* ` : '';
  return `${name}${code(member.uid)}`;
}

/** A scope's leaders in one line: the first page, then how many more. Pure. */
function leadersLine(label: string, page: MemberPage): string {
  const { members, pagination } = page;
  if (members.length === 0) return `*${label}*: none`;
  const more = Math.max(0, pagination.total - members.length);
  const named = members.map(whoText).join(', ');
  return `*${label}* (${pagination.total}): ${named}${more > 0 ? `, and ${more} more` : ''}`;
}

/** The group's card: what it is, who leads it, and Members and Banned. Pure. */
export function groupCard(group: Group, leaders: Leaders, options: GroupViewOptions): SlackMessage {
  const name = truncate(group.name, 140);
  const open = (label: string, actionId: string, value: Record<string, unknown>) =>
    button(label, actionId, options.write(value));
  const blocks: KnownBlock[] = [
    header(name),
    fields([
      `*Guid*\n${code(group.guid)}`,
      `*Type*\n${escapeMrkdwn(truncate(group.type, 40))}`,
      `*Owner*\n${group.owner ? code(group.owner) : '_not given_'}`,
      `*Members*\n${group.membersCount}`,
      `*Created*\n${group.createdAt ? slackDate(group.createdAt) : '_not given_'}`,
    ]),
    ...(group.description
      ? [section(`> ${escapeMrkdwn(truncate(group.description.replace(/\s+/g, ' '), 300))}`)]
      : []),
    section(
      `${leadersLine('Admins', leaders.admins)}\n${leadersLine('Moderators', leaders.moderators)}`,
    ),
    actions([
      open('Members', ACTIONS.groupMembersPage, { g: group.guid, p: 1 }),
      open('Banned', ACTIONS.groupBannedPage, { g: group.guid, p: 1 }),
    ]),
    // Each scope's permissions, in the permission editor (the permissions feature's listener).
    ...(options.editor
      ? [
          actions(
            GROUP_SCOPES.map((scope) =>
              open(
                `${SCOPE_WORDS[scope]} permissions`,
                `${ACTIONS.editScopePermissions}:${scope}`,
                { guid: group.guid, scope },
              ),
            ),
          ),
        ]
      : []),
    context([
      ...(options.appName ? [`App: *${escapeMrkdwn(options.appName)}*`] : []),
      options.editor
        ? 'Change a member’s scope, kick or ban them from _Members_; lift a ban from _Banned_.'
        : 'Only editors change members.',
    ]),
  ];
  return { text: `Group ${escapeMrkdwn(name)} (${group.guid})`, blocks };
}

/** A member's line: who, their scope, their role, when they joined. Pure. */
export function memberLine(member: GroupMember): string {
  const role = member.role ? ` · role ${code(member.role)}` : '';
  const joined = member.joinedAt ? ` · joined ${slackDate(member.joinedAt)}` : '';
  return `${whoText(member)} · scope ${code(member.scope)}${role}${joined}`;
}

/** An editor's buttons for one member: Change scope, Kick, Ban. */
function memberButtons(guid: string, member: GroupMember, write: ValueWriter): KnownBlock {
  const value = write({ g: guid, u: member.uid, s: member.scope });
  return actions([
    button('Change scope', ACTIONS.groupMemberScope, value),
    button('Kick', ACTIONS.groupMemberKick, value, 'danger'),
    button('Ban', ACTIONS.groupMemberBan, value, 'danger'),
  ]);
}

/** A scope as a button names it. */
const SCOPE_WORDS: Readonly<Record<GroupScope, string>> = {
  admin: 'Admin',
  moderator: 'Moderator',
  participant: 'Participant',
};

const SCOPE_FILTERS: readonly { label: string; scope?: GroupScope; id: string }[] = [
  { label: 'All', id: 'all' },
  { label: 'Admins', scope: 'admin', id: 'admin' },
  { label: 'Moderators', scope: 'moderator', id: 'moderator' },
  { label: 'Participants', scope: 'participant', id: 'participant' },
];

/** The scope filter and the page buttons, keeping the filter. Pure. */
function memberNavigation(value: MembersValue, totalPages: number, write: ValueWriter): Button[] {
  const to = (v: MembersValue, label: string, suffix: string) =>
    button(label, `${ACTIONS.groupMembersPage}_${suffix}`, write({ ...v }));
  const filters = SCOPE_FILTERS.filter((f) => f.scope !== value.s).map((f) =>
    to({ g: value.g, ...(f.scope ? { s: f.scope } : {}), p: 1 }, f.label, f.id),
  );
  const pages = [
    ...(value.p > 1 ? [to({ ...value, p: value.p - 1 }, '◀ Previous', 'previous')] : []),
    ...(value.p < totalPages ? [to({ ...value, p: value.p + 1 }, 'Next ▶', 'next')] : []),
  ];
  return [...filters, ...pages];
}

/** One page of a group's members, by scope when filtered, with an editor's buttons. Pure. */
export function memberPageMessage(
  value: MembersValue,
  page: MemberPage,
  options: GroupViewOptions,
): SlackMessage {
  const which = value.s ? ` with scope ${code(value.s)}` : '';
  const title = `Members of ${code(value.g)}${which}${inApp(options.appName)}`;
  const { members, pagination } = page;
  const blocks: KnownBlock[] = [
    section(
      members.length === 0
        ? `*${title}*: none${value.p > 1 ? ' on this page' : ''}.`
        : `*${title}*: ${counted(pagination.total, 'member')}, page ${value.p} of ${Math.max(1, pagination.total_pages)}.`,
    ),
    ...members.flatMap((member) => [
      section(memberLine(member)),
      ...(options.editor ? [memberButtons(value.g, member, options.write)] : []),
    ]),
  ];
  const nav = memberNavigation(value, pagination.total_pages, options.write);
  if (nav.length > 0) blocks.push(actions(nav));
  return { text: `${title}: ${counted(members.length, 'member')} on this page.`, blocks };
}

/** One page of the users banned from a group, each with Unban for an editor. Pure. */
export function bannedPageMessage(
  value: { g: string; p: number },
  page: BannedPage,
  options: GroupViewOptions,
): SlackMessage {
  const title = `Banned from ${code(value.g)}${inApp(options.appName)}`;
  const { banned, pagination } = page;
  const blocks: KnownBlock[] = [
    section(
      banned.length === 0
        ? `*${title}*: nobody${value.p > 1 ? ' on this page' : ''}.`
        : `*${title}*: ${counted(pagination.total, 'user')}, page ${value.p} of ${Math.max(1, pagination.total_pages)}.`,
    ),
    ...banned.map((user) =>
      options.editor
        ? section(
            whoText(user),
            button('Unban', ACTIONS.groupMemberUnban, options.write({ g: value.g, u: user.uid })),
          )
        : section(whoText(user)),
    ),
  ];
  const to = (p: number, label: string, suffix: string) =>
    button(label, `${ACTIONS.groupBannedPage}_${suffix}`, options.write({ g: value.g, p }));
  const nav = [
    ...(value.p > 1 ? [to(value.p - 1, '◀ Previous', 'previous')] : []),
    ...(value.p < pagination.total_pages ? [to(value.p + 1, 'Next ▶', 'next')] : []),
  ];
  if (nav.length > 0) blocks.push(actions(nav));
  return { text: `${title}: ${counted(banned.length, 'user')} on this page.`, blocks };
}

/** The search in words: "guid or name starting with `hik` · private". Pure. */
export function describeGroupSearch(search: Omit<GroupSearch, 'page'>): string {
  const parts = [
    search.text !== undefined ? `guid or name starting with ${code(search.text)}` : undefined,
    search.type !== undefined ? search.type : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(' · ') : 'all groups';
}

/** A group in one line: its name, guid, type and how many are in it. Pure. */
export function groupLine(group: Group): string {
  return `*${escapeMrkdwn(truncate(group.name, 80))}* ${code(group.guid)} · ${escapeMrkdwn(truncate(group.type, 40))} · ${counted(group.membersCount, 'member')}`;
}

/** One page of the group search, each group with its Card. Pure. */
export function groupListMessage(
  search: GroupSearch,
  page: GroupPage,
  options: Omit<GroupViewOptions, 'editor'>,
): SlackMessage {
  const title = `Groups: ${describeGroupSearch(search)}${inApp(options.appName)}`;
  const { groups, pagination } = page;
  if (groups.length === 0) {
    const none = `${title}: none${search.page > 1 ? ' on this page' : ''}.`;
    return { text: none, blocks: [section(none)] };
  }
  const blocks: KnownBlock[] = [
    section(
      `*${title}*: ${counted(pagination.total, 'group')}, page ${search.page} of ${Math.max(1, pagination.total_pages)}.`,
    ),
    ...groups.map((group) =>
      section(
        groupLine(group),
        button('Card', ACTIONS.groupDetails, options.write({ g: group.guid })),
      ),
    ),
  ];
  const to = (p: number, label: string, suffix: string) =>
    button(
      label,
      `${ACTIONS.groupsPage}_${suffix}`,
      options.write({
        ...(search.text ? { t: search.text } : {}),
        ...(search.type ? { y: search.type } : {}),
        p,
      }),
    );
  const nav = [
    ...(search.page > 1 ? [to(search.page - 1, '◀ Previous', 'previous')] : []),
    ...(search.page < pagination.total_pages ? [to(search.page + 1, 'Next ▶', 'next')] : []),
  ];
  if (nav.length > 0) blocks.push(actions(nav));
  return { text: `${title}: ${counted(groups.length, 'group')}.`, blocks };
}
