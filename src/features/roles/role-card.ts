import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import {
  appNameIfMultiple,
  type CometChatApp,
  openRoleButton,
  roleButtonValue,
} from '../../apps/apps.ts';
import { roleIdProblem } from '../../cometchat/id-rules.ts';
import type { Role } from '../../cometchat/schemas.ts';
import { ROLE_ID } from '../../cometchat/schemas.ts';
import { inApp } from '../../replies/sentences.ts';
import { actions, button, context, section } from '../../slack/blocks.ts';
import { recipientOf, respondOrFallBack, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { FeatureDeps } from '../deps.ts';
import type { LinkUnfurler, UnfurlCard } from '../feature.ts';
import { openInCometChat } from '../unfurl.ts';
import { compact } from './role-list-view.ts';

// One role, outside the list: the card a dashboard link to it unfurls into, and what its Details
// button answers (only to the person who clicks).

function nameLine(role: Role): string {
  return `*${escapeMrkdwn(truncate(role.name || role.role, 100))}*  ${code(role.role)}`;
}

function datesLine(role: Role): string | undefined {
  const dates = [
    role.createdAt !== undefined ? `Created ${slackDate(role.createdAt)}` : undefined,
    role.updatedAt !== undefined ? `Updated ${slackDate(role.updatedAt)}` : undefined,
  ].filter(Boolean);
  return dates.length > 0 ? dates.join(' · ') : undefined;
}

/** The card of a role: its name, id, description and a Details button. Pure. */
export function roleCard(role: Role, app: CometChatApp, appName: string | undefined): UnfurlCard {
  const description = role.description
    ? escapeMrkdwn(truncate(role.description, 200))
    : '_No description_';
  const details = ROLE_ID.test(role.role)
    ? button('Details', ACTIONS.roleDetails, roleButtonValue(app, role.role))
    : undefined;
  return {
    blocks: [
      section(`${nameLine(role)}\n${description}`, details),
      context([[`CometChat role${inApp(appName)}`, datesLine(role)].filter(Boolean).join(' · ')]),
    ],
  };
}

/** What a link to a role the app does not have shows. Pure. */
export function missingRoleCard(role: string, appName: string | undefined): UnfurlCard {
  return {
    blocks: [
      context([
        `CometChat has no role ${code(role)}${inApp(appName)}: the link may be old or from another app.`,
      ]),
    ],
  };
}

/** A role in full, for the person who asked: every field the list shows, and the editor. Pure. */
export function roleDetailsMessage(
  role: Role,
  app: CometChatApp,
  appName: string | undefined,
): SlackMessage {
  const lines = [
    nameLine(role),
    role.description ? escapeMrkdwn(truncate(role.description, 1000)) : '_No description_',
    datesLine(role),
    compact('Settings', role.settings),
    compact('Metadata', role.metadata),
  ].filter((line): line is string => Boolean(line));
  const blocks: KnownBlock[] = [section(lines.join('\n'))];
  const edit = ROLE_ID.test(role.role)
    ? button('Edit permissions', ACTIONS.editPermissions, roleButtonValue(app, role.role))
    : undefined;
  const buttons = [edit, openInCometChat(app.appId, 'roles', role.role)].filter(
    (b) => b !== undefined,
  );
  if (buttons.length > 0) blocks.push(actions(buttons));
  return {
    response_type: 'ephemeral',
    replace_original: false,
    text: `Role ${code(role.role)}${inApp(appName)}`,
    blocks,
  };
}

/** The app's role `id`, from the (cached) list: an app has 25 roles at most. */
async function findRole(app: CometChatApp, id: string) {
  const roles = await app.cometchat.listAllRoles();
  return roles.find((role) => role.role === id);
}

export const roleUnfurler: LinkUnfurler = {
  section: 'roles',
  idProblem: roleIdProblem,
  async card(id, { app, deps }) {
    const appName = appNameIfMultiple(deps.apps, app);
    const role = await findRole(app, id);
    return role ? roleCard(role, app, appName) : missingRoleCard(id, appName);
  },
};

/** A role card's Details button. */
export function registerRoleDetails(bolt: App, deps: FeatureDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    ACTIONS.roleDetails,
    async ({ ack, body, action, respond }: ButtonArgs) => {
      await ack();
      const { app, role: id } = openRoleButton(deps.apps, action.value);
      const appName = appNameIfMultiple(deps.apps, app);
      const role = await findRole(app, id);
      const message = role
        ? roleDetailsMessage(role, app, appName)
        : {
            response_type: 'ephemeral' as const,
            replace_original: false,
            ...missingRoleCard(id, appName),
            text: `No role ${code(id)}`,
          };
      await respondOrFallBack(respond, recipientOf(body), deps.deliver)(message);
    },
  );
}
