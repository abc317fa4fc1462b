import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import { accountOf, type User, type UserPage } from '../../cometchat/model.ts';
import { counted } from '../../replies/sentences.ts';
import {
  actions,
  button,
  context,
  dateCell,
  divider,
  header,
  rawText,
  section,
  table,
} from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, truncate } from '../../slack/mrkdwn.ts';
import type { UserSearch } from './user-words.ts';

// The user search as a message: a table of the page's users (uids exact, for copying), a
// Details button per user, and page buttons that keep the filters. Pure.

export const USERS_PER_PAGE = 10;

export interface UserListOptions {
  write: ValueWriter;
  appName?: string | undefined;
}

/** The filters in words: `starting with \`ann\` · role \`support\` · deactivated`. */
export function describeUserSearch(search: Omit<UserSearch, 'page'>): string {
  const parts = [
    search.text !== undefined ? `uid or name starting with ${code(search.text)}` : undefined,
    search.role !== undefined ? `role ${code(search.role)}` : undefined,
    search.deactivated ? 'deactivated' : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(' · ') : 'all active users';
}

function userTable(users: readonly User[]): KnownBlock {
  return table(
    ['#', 'Uid', 'Name', 'Role', 'Status', 'Account', 'Last active'],
    users.map((user, i) => [
      rawText(String(i + 1)),
      rawText(user.uid, 100),
      rawText(user.name, 100),
      rawText(user.role, 100),
      rawText(user.status, 20),
      rawText(accountOf(user), 20),
      dateCell(user.lastActiveAt),
    ]),
    [{ align: 'right' }, {}, { is_wrapped: true }],
  );
}

/**
 * A Details button per user, each in its own actions block (Slack refuses an action_id twice in
 * one block, and the listener answers `user_details` exactly), naming the uid it opens.
 */
function detailRows(users: readonly User[], write: ValueWriter): KnownBlock[] {
  return users
    .map((user) => ({ user, value: write({ uid: user.uid }) }))
    .filter(({ value }) => value.length <= 2000)
    .map(({ user, value }) =>
      actions([button(truncate(`Details ${user.uid}`, 75), ACTIONS.userDetails, value)]),
    );
}

function navigation(search: UserSearch, page: number, pages: number, write: ValueWriter): Button[] {
  const { page: _, ...filters } = search;
  const value = (p: number) => write({ s: filters, page: p });
  const buttons: Button[] = [];
  if (page > 1) {
    buttons.push({
      ...button('◀ Previous', ACTIONS.usersPage, value(Math.min(page - 1, pages))),
      action_id: `${ACTIONS.usersPage}_prev`,
    });
  }
  if (page < pages) {
    buttons.push({
      ...button('Next ▶', ACTIONS.usersPage, value(page + 1)),
      action_id: `${ACTIONS.usersPage}_next`,
    });
  }
  return buttons;
}

export function userListMessage(
  result: UserPage,
  search: UserSearch,
  options: UserListOptions,
): SlackMessage {
  const { users, pagination } = result;
  const page = search.page;
  const pages = Math.max(1, pagination.total_pages);
  const title = options.appName ? `CometChat users · ${options.appName}` : 'CometChat users';
  const filters = describeUserSearch(search);
  const blocks: KnownBlock[] = [
    header(title),
    context([`${filters} · page ${page} of ${pages} · ${counted(pagination.total, 'user')}`]),
  ];
  if (users.length === 0) {
    blocks.push(
      section(
        page > pages
          ? `There is no page ${page}; the last is ${pages}.`
          : `No user matches: ${filters}.`,
      ),
    );
  } else {
    blocks.push(userTable(users), ...detailRows(users, options.write));
  }
  const nav = navigation(search, page, pages, options.write);
  if (nav.length > 0) blocks.push(divider(), actions(nav));
  return {
    response_type: 'ephemeral',
    text: `${title}: ${filters}, ${counted(pagination.total, 'user')}, page ${page} of ${pages}`,
    blocks,
  };
}
