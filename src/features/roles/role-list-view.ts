import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import type { RolePage } from '../../cometchat/model.ts';
import type { Role } from '../../cometchat/schemas.ts';
import { ROLE_ID } from '../../cometchat/schemas.ts';
import { actions, button, context, divider, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import { counted } from '../../voice/sentences.ts';

/** Roles per page of the list. CometChat allows 25 roles per app, so most apps need 3 pages. */
export const ROLES_PER_PAGE = 10;
const MAX_ENTRIES = 6;

export interface RoleListValue {
  page: number;
  [key: string]: unknown;
}

export interface RoleListOptions {
  /** Writes the page and share buttons' values (sealed for the app). */
  value?: ValueWriter;
  /** Writes an "Edit permissions" button's value (the role id; sealed for the app). */
  roleValue?: (role: string) => string;
  /** The app's name, shown when several apps are configured. */
  appName?: string | undefined;
}

/** The role list as a message: one section per role, then page buttons. Pure. */
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
  }
  for (const role of roles) blocks.push(roleSection(role, options.roleValue ?? ((r) => r)));
  blocks.push(divider(), actions(navigation(page, pages, options.value ?? JSON.stringify)));
  return {
    // `text` is mrkdwn too: role ids come from the service and are escaped like the blocks.
    text: `${escapeMrkdwn(title)}, page ${page} of ${pages}: ${roles.map((r) => code(r.role)).join(', ')}`,
    blocks,
  };
}

function roleSection(role: Role, roleValue: (role: string) => string): KnownBlock {
  const lines = [
    `*${escapeMrkdwn(truncate(role.name || role.role, 100))}*  ${code(role.role)}`,
    role.description ? escapeMrkdwn(truncate(role.description, 300)) : '_No description_',
    [
      role.createdAt !== undefined ? `Created ${slackDate(role.createdAt)}` : undefined,
      role.updatedAt !== undefined ? `Updated ${slackDate(role.updatedAt)}` : undefined,
    ]
      .filter(Boolean)
      .join(' · '),
    compact('Settings', role.settings),
    compact('Metadata', role.metadata),
  ].filter((line): line is string => Boolean(line));
  // The editor takes documented role ids only; an id the service let through otherwise gets no
  // button (it could not be edited, and one of 2000+ characters would make Slack refuse the list).
  const edit = ROLE_ID.test(role.role)
    ? button('Edit permissions', ACTIONS.editPermissions, roleValue(role.role))
    : undefined;
  return section(lines.join('\n'), edit);
}

/** `Label: key: value · key: value` with long values cut and extra entries counted. */
export function compact(
  label: string,
  record: Record<string, unknown> | undefined,
): string | undefined {
  if (!record) return undefined;
  const entries = Object.entries(record);
  if (entries.length === 0) return undefined;
  const shown = entries
    .slice(0, MAX_ENTRIES)
    .map(([key, value]) =>
      code(truncate(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`, 60)),
    );
  const more = entries.length > MAX_ENTRIES ? ` +${entries.length - MAX_ENTRIES} more` : '';
  return `${label}: ${shown.join(' · ')}${more}`;
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
