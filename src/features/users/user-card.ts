import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import { defaultPermissions, valueInWords } from '../../cometchat/catalogue.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import type { Role } from '../../cometchat/schemas.ts';
import { ROLE_ID } from '../../cometchat/schemas.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { actions, button, context, fields, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { KnownPermissions } from '../../store/store.ts';
import { openInCometChat } from '../unfurl.ts';
import { containBlock, type SessionsRead, sessionsBlocks } from './sessions-view.ts';

// A CometChat user as one card: who they are, their role, their account, what the app knows of
// their role's permissions, and the buttons to act. Pure.

/** How many of the role's set keys the card lists before counting the rest. */
const KEYS_SHOWN = 6;

export interface UserCardOptions {
  /** The role's record, when the app's role list has it (for its name). */
  role?: Role | undefined;
  /** What the app last saw of the role's permissions (its last change through this app). */
  known?: KnownPermissions | undefined;
  /** Writes a button's value, signed for the app. */
  write: ValueWriter;
  /** The person looking may change this app's users: offered Change role and (De)activate. */
  editor?: boolean | undefined;
  appName?: string | undefined;
  /** The app's CometChat id: the card links to the user's dashboard page (none when unknown). */
  appId?: string | undefined;
  /**
   * The user's sessions as read with the user, and when (Unix seconds, for their ages); absent:
   * the card shows none.
   */
  sessions?: { read: SessionsRead; nowSeconds: number } | undefined;
}

/** `*Support agent* \`support_agent\``: the role's name when known, its id always. */
export function roleText(roleId: string, role?: Role): string {
  const name =
    role?.name && role.name !== roleId ? `*${escapeMrkdwn(truncate(role.name, 80))}* ` : '';
  return `${name}${code(roleId)}`;
}

/**
 * The role's permissions in short: the keys whose last known value differs from the documented
 * default, and what the rest are. Without a known map, says that nothing better than the
 * defaults is known (the service offers no read).
 */
export function permissionsInShort(roleId: string, known: KnownPermissions | undefined): string {
  if (!known) {
    return `This app has never changed ${code(roleId)}: its permissions are the documented defaults, unless CometChat's dashboard changed them (CometChat offers no read of a role's permissions).`;
  }
  const defaults = defaultPermissions();
  const set = Object.entries(known.permissions).filter(
    ([key, value]) => JSON.stringify(value ?? null) !== JSON.stringify(defaults[key] ?? null),
  );
  const seen = slackDate(Math.floor(known.seenAt / 1000));
  if (set.length === 0) {
    return `As this app last saw ${code(roleId)} (${seen}), every key has its documented default.`;
  }
  const shown = set
    .slice(0, KEYS_SHOWN)
    .map(
      ([key, value]) => `${permissionKeyText(key)} = ${code(truncate(valueInWords(value), 60))}`,
    );
  const more = set.length > KEYS_SHOWN ? ` and ${set.length - KEYS_SHOWN} more` : '';
  return `As this app last saw ${code(roleId)} (${seen}), ${counted(set.length, 'key')} differ from the documented defaults: ${shown.join(' · ')}${more}. The rest are documented defaults.`;
}

function accountText(user: User): string {
  return accountOf(user) === 'deactivated'
    ? `:no_entry: deactivated ${slackDate(user.deactivatedAt)}`
    : ':large_green_circle: active';
}

function facts(user: User, options: UserCardOptions): string[] {
  const optional = [
    user.createdAt !== undefined ? `*Created*\n${slackDate(user.createdAt)}` : undefined,
    user.lastActiveAt !== undefined ? `*Last active*\n${slackDate(user.lastActiveAt)}` : undefined,
  ].filter((fact): fact is string => fact !== undefined);
  return [
    `*Uid*\n${code(user.uid)}`,
    `*Name*\n${escapeMrkdwn(truncate(user.name, 200))}`,
    `*Role*\n${roleText(user.role, options.role)}`,
    `*Status*\n${escapeMrkdwn(user.status)}`,
    `*Account*\n${accountText(user)}`,
    ...optional,
  ];
}

function cardButtons(user: User, options: UserCardOptions): Button[] {
  const uid = options.write({ uid: user.uid });
  const buttons: Button[] = [];
  if (options.editor) {
    const to = accountOf(user) === 'active' ? 'deactivated' : 'active';
    buttons.push(
      button('Change role', ACTIONS.userChangeRole, uid),
      to === 'deactivated'
        ? button('Deactivate', ACTIONS.userAccount, options.write({ uid: user.uid, to }), 'danger')
        : button('Reactivate', ACTIONS.userAccount, options.write({ uid: user.uid, to })),
    );
  }
  // An id the editor cannot take gets no button (it could not be edited).
  if (ROLE_ID.test(user.role)) {
    buttons.push(
      button(
        "Edit the role's permissions",
        ACTIONS.editPermissions,
        options.write({ role: user.role }),
      ),
    );
  }
  buttons.push(button('Find their calls', ACTIONS.userCalls, uid));
  const open = openInCometChat(options.appId, 'users', user.uid);
  return open ? [...buttons, open] : buttons;
}

/**
 * The sessions, and for an editor of an active account _Contain…_, each action beside what it
 * acts on (a section's button), after what the card says of the role.
 */
function userSessionsBlocks(user: User, options: UserCardOptions): KnownBlock[] {
  const editor = options.editor === true;
  const { sessions: read } = options;
  const sessions = read
    ? sessionsBlocks(read.read, {
        uid: user.uid,
        write: options.write,
        editor,
        nowSeconds: read.nowSeconds,
      })
    : [];
  const contain =
    editor && accountOf(user) === 'active' ? [containBlock(options.write, user.uid)] : [];
  return [...sessions, ...contain];
}

/** The card as a message, only for the person who asked. */
export function userCardMessage(user: User, options: UserCardOptions): SlackMessage {
  const blocks: KnownBlock[] = [
    // The uid, not the name: a header is plain text, shown as it is, and a name is anyone's.
    header(`User ${truncate(user.uid, 140)}`),
    fields(facts(user, options)),
    section(permissionsInShort(user.role, options.known)),
    ...userSessionsBlocks(user, options),
  ];
  const buttons = cardButtons(user, options).filter((b) => (b.value ?? '').length <= 2000);
  if (buttons.length > 0) blocks.push(actions(buttons));
  blocks.push(context([`CometChat user${inApp(options.appName)}`]));
  return {
    response_type: 'ephemeral',
    text: `User ${code(user.uid)}${inApp(options.appName)}: role ${code(user.role)}${accountOf(user) === 'deactivated' ? ', deactivated' : ''}`,
    blocks,
  };
}
