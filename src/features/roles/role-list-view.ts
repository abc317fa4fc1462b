import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import type { RolePage } from '../../cometchat/model.ts';
import type { Role } from '../../cometchat/schemas.ts';
import { ROLE_ID } from '../../cometchat/schemas.ts';
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
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';

/** Roles per page of the list. CometChat allows 25 roles per app, so most apps need 3 pages. */
export const ROLES_PER_PAGE = 10;
const MAX_ENTRIES = 6;

export interface RoleListValue {
  page: number;
  [key: string]: unknown;
}

export interface RoleListOptions {
  /** Writes the page and share buttons' values (signed for the app). */
  value?: ValueWriter;
  /** Writes an "Edit permissions" button's value (the role id; signed for the app). */
  roleValue?: (role: string) => string;
  /** The app's name, shown when several apps are configured. */
  appName?: string | undefined;
  /** How many users hold each role (CometChat's count); a role missing or undefined: unknown. */
  holders?: ReadonlyMap<string, number | undefined>;
}

/**
 * The role list as a message: a table of the page's roles, a button row per role that can be
 * edited, then page buttons. Pure.
 */
export function roleListMessage(result: RolePage, options: RoleListOptions = {}): SlackMessage {
  const { roles, pagination } = result;
  const page = pagination.current_page;
  const pages = Math.max(1, pagination.total_pages);
  const title = options.appName ? `CometChat roles · ${options.appName}` : 'CometChat roles';
  const blocks: KnownBlock[] = [
    header(title),
    context([
      `${page > pages ? `Page ${page} (the last is ${pages})` : `Page ${page} of ${pages}`} · ${counted(pagination.total, 'role')}`,
    ]),
  ];
  if (roles.length === 0) {
    blocks.push(
      section(
        page > pages
          ? `There is no page ${page}; the last page is ${pages}.`
          : 'This app has no roles.',
      ),
    );
  } else {
    blocks.push(
      roleTable(roles, options.holders),
      ...editRows(roles, options.roleValue ?? ((r) => r)),
    );
  }
  blocks.push(divider(), actions(navigation(page, pages, options.value ?? JSON.stringify)));
  return {
    // `text` is mrkdwn too: role ids come from the service and are escaped like the blocks.
    text: `${escapeMrkdwn(title)}, page ${page} of ${pages}: ${roles.map((r) => code(r.role)).join(', ')}`,
    blocks,
  };
}

/**
 * One row per role. Settings and metadata stay, as the last two columns (wrapped): the list has
 * always shown them, and at the end they do not push apart the columns a reader scans (name, id).
 * Cells are cut so that ten rows stay well inside a message's text budget (about 13,000).
 */
function roleTable(
  roles: readonly Role[],
  holders: ReadonlyMap<string, number | undefined> = new Map(),
): KnownBlock {
  return table(
    ['#', 'Name', 'Role id', 'Users', 'Description', 'Created', 'Updated', 'Settings', 'Metadata'],
    roles.map((role, i) => [
      rawText(String(i + 1)),
      rawText(role.name || role.role, 100),
      // Exact, so it can be copied into `/cometchat perms`: a documented id has at most 100
      // characters; one the service let through beyond that is cut (it cannot be edited anyway).
      rawText(role.role, 100),
      // Who a change to the role reaches; `unknown` when CometChat did not say in time.
      rawText(String(holders.get(role.role) ?? 'unknown')),
      rawText(role.description ?? '', 250),
      dateCell(role.createdAt),
      dateCell(role.updatedAt),
      entriesCell(role.settings),
      entriesCell(role.metadata),
    ]),
    [
      { align: 'right' },
      { is_wrapped: true },
      {},
      { align: 'right' },
      { is_wrapped: true },
      {},
      {},
      { is_wrapped: true },
      { is_wrapped: true },
    ],
  );
}

/**
 * An "Edit <role id>" button for each role the editor can take, each in an actions block of its
 * own: a table cell cannot hold a button, and Slack refuses an action_id repeated within one
 * block, while the editor's listener answers `edit_permissions` exactly. So the buttons keep the
 * action_id and value they had beside each role, and name the row they act on instead.
 */
function editRows(roles: readonly Role[], roleValue: (role: string) => string): KnownBlock[] {
  // The editor takes documented role ids only; an id the service let through otherwise gets no
  // button (it could not be edited, and one of 2000+ characters would make Slack refuse the list).
  return roles
    .filter((role) => ROLE_ID.test(role.role))
    .map((role) =>
      actions([button(`Edit ${role.role}`, ACTIONS.editPermissions, roleValue(role.role))]),
    );
}

/** A record's `key: value` pairs, long values cut, and how many more there are. */
function entries(record: Record<string, unknown> | undefined): { shown: string[]; more: number } {
  const all = Object.entries(record ?? {});
  return {
    shown: all
      .slice(0, MAX_ENTRIES)
      .map(([key, value]) =>
        truncate(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`, 60),
      ),
    more: Math.max(0, all.length - MAX_ENTRIES),
  };
}

/** The pairs as one cell's text: `key: value · key: value +2 more`, or `—`. */
function entriesCell(record: Record<string, unknown> | undefined) {
  const { shown, more } = entries(record);
  return rawText(`${shown.join(' · ')}${more > 0 ? ` +${more} more` : ''}`, 200);
}

/** `Label: key: value · key: value` with long values cut and extra entries counted. */
export function compact(
  label: string,
  record: Record<string, unknown> | undefined,
): string | undefined {
  const { shown, more } = entries(record);
  if (shown.length === 0) return undefined;
  return `${label}: ${shown.map(code).join(' · ')}${more > 0 ? ` +${more} more` : ''}`;
}

function navigation(page: number, pages: number, write: ValueWriter): Button[] {
  const value = (p: number) => write({ page: p } satisfies RoleListValue);
  const buttons: Button[] = [];
  if (page > 1)
    buttons.push({
      ...button('◀ Previous', ACTIONS.rolesPage, value(Math.min(page - 1, pages))),
      action_id: `${ACTIONS.rolesPage}_prev`,
    });
  if (page < pages)
    buttons.push({
      ...button('Next ▶', ACTIONS.rolesPage, value(page + 1)),
      action_id: `${ACTIONS.rolesPage}_next`,
    });
  buttons.push(
    button('Share in channel', ACTIONS.shareRoles, write({ page } satisfies RoleListValue)),
  );
  return buttons;
}
