import type { SlashCommand } from '@slack/bolt';
import { editRefusal } from '../../access/edit-refusal.ts';
import { appNameIfMultiple, type CometChatApp } from '../../apps/apps.ts';
import { type AskedRoleChange, ROLE_CHANGE_TITLE, reviewRoleChange } from '../../changes/index.ts';
import { defaultPermissions, holdsRoleIds, sameValue } from '../../cometchat/catalogue.ts';
import { MAX_ROLES } from '../../cometchat/id-rules.ts';
import type { PermissionMap, Role } from '../../cometchat/schemas.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { permissionValueText } from '../../replies/permission-value-text.ts';
import { counted, inApp, roleHoldersSentence, roleLimitSentence } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { messageModal, noticeMessage } from '../../slack/blocks.ts';
import type { Respond } from '../../slack/deliver.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { KnownPermissions } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import { presetNamed } from './presets.ts';
import type { RoleWords } from './role-words.ts';

// `/cometchat role create | rename | describe | delete`: what CometChat has is read, the change
// is worked out from it (roleChangeFor, pure), and the review opens. Sending, approval, claim
// and audit are every change's (src/changes).

/** What a role change is worked out from: read from CometChat and the store at the command. */
export interface RoleFacts {
  roles: readonly Role[];
  /** For `create ... from <role>`: that role's last known map (undefined: never seen). */
  known?: KnownPermissions | undefined;
  /** For `delete`: how many users hold the role, deactivated ones included. */
  holders?: number | undefined;
  appName?: string | undefined;
}

/** The change to review, or one sentence saying why there is none. Pure. */
export function roleChangeFor(words: RoleWords, facts: RoleFacts): AskedRoleChange | string {
  const role = facts.roles.find((r) => r.role === words.role);
  const id = code(words.role);
  const where = inApp(facts.appName);
  if (words.kind === 'create') {
    if (role) return `There is a role ${id}${where} already; see \`/cometchat roles\`.`;
    if (facts.roles.length >= MAX_ROLES) {
      return roleLimitSentence(facts.roles.length, facts.appName);
    }
    return createChange(words, facts);
  }
  if (!role) return `There is no role ${id}${where}; see \`/cometchat roles\`.`;
  if (words.kind === 'delete') return deleteChange(role, facts);
  const [key, before, after] =
    words.kind === 'rename'
      ? (['name', role.name, words.name] as const)
      : (['description', role.description, words.description] as const);
  if (before === after) return `${id} has that ${key} already; nothing to change.`;
  const shown = (text: string) => (text ? `*${escapeMrkdwn(truncate(text, 255))}*` : '_none_');
  return {
    action: 'update',
    role: words.role,
    changes: [{ key, before, after }],
    question: `Change the ${key} of ${id}${where} from ${shown(before)} to ${shown(after)}?`,
  };
}

/** Where a new role's permissions come from, and what they are. */
function startingPermissions(
  words: Extract<RoleWords, { kind: 'create' }>,
  facts: RoleFacts,
): { permissions: PermissionMap; source: string } | string {
  if (words.preset) {
    const preset = presetNamed(words.preset);
    return preset
      ? { permissions: preset.permissions, source: `preset ${code(preset.name)} (${preset.about})` }
      : `There is no preset ${code(words.preset)}.`;
  }
  if (!words.from) return { permissions: {}, source: 'none: it starts on the defaults' };
  if (!facts.roles.some((r) => r.role === words.from)) {
    return `There is no role ${code(words.from)}${inApp(facts.appName)} to copy; see \`/cometchat roles\`.`;
  }
  if (!facts.known) {
    return `This app has not seen the permissions of ${code(words.from)} yet (CometChat answers them only to a change), so it cannot copy them. Create the role empty, or apply a change to ${code(words.from)} first.`;
  }
  // Only what differs from the defaults is set: the rest is the default on the new role too.
  const defaults = defaultPermissions();
  const permissions = Object.fromEntries(
    Object.entries(facts.known.permissions).filter(([key, v]) => !sameValue(v, defaults[key])),
  );
  return { permissions, source: `a copy of ${code(words.from)} as this app last saw it` };
}

function createChange(words: Extract<RoleWords, { kind: 'create' }>, facts: RoleFacts) {
  const start = startingPermissions(words, facts);
  if (typeof start === 'string') return start;
  const keys = Object.entries(start.permissions);
  const change: AskedRoleChange = {
    action: 'create',
    role: words.role,
    changes: [
      { key: 'name', before: null, after: words.name },
      ...keys.map(([key, after]) => ({ key, before: null, after })),
    ],
    question: `Create role ${code(words.role)} named *${escapeMrkdwn(words.name)}*${inApp(facts.appName)}? Its permissions: ${start.source}.`,
    details: [
      `${counted(keys.length, 'permission')} set right after it is created; every other key keeps its default.`,
      ...keys.map(
        ([key, value]) =>
          `${permissionKeyText(key)}: ${permissionValueText(value, holdsRoleIds(key))}`,
      ),
      `This app has ${counted(facts.roles.length, 'role')} of the ${MAX_ROLES} CometChat keeps.`,
    ],
  };
  return change;
}

function deleteChange(role: Role, facts: RoleFacts): AskedRoleChange {
  const id = code(role.role);
  const holders = facts.holders ?? 0;
  const advice =
    holders === 0
      ? ''
      : ` CometChat does not document what becomes of their role when it goes: give them another role first (\`/cometchat users role:${role.role}\` lists them).`;
  const users = `${roleHoldersSentence(holders)}${advice}`;
  return {
    action: 'delete',
    role: role.role,
    changes: [{ key: 'role', before: role.role, after: null }],
    question: `Delete role ${id}${role.name && role.name !== role.role ? ` (*${escapeMrkdwn(truncate(role.name, 100))}*)` : ''}${inApp(facts.appName)}? ${users} This cannot be undone: CometChat keeps no deleted role.`,
  };
}

/** `/cometchat role ...`: the review in a modal, for an editor. */
export function createRoleChangeCommand(deps: AppDeps) {
  return async (
    app: CometChatApp,
    words: RoleWords,
    command: SlashCommand,
    respond: Respond,
  ): Promise<void> => {
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, command.user_id, log, 'change a role');
    if (refusal) return respond(noticeMessage(refusal));
    const modal = { triggerId: command.trigger_id, title: ROLE_CHANGE_TITLE };
    await loadIntoModal(deps, modal, async (viewId) => {
      const facts = await readFacts(deps, app, words);
      const change = roleChangeFor(words, facts);
      if (typeof change === 'string') return messageModal(ROLE_CHANGE_TITLE, change);
      return reviewRoleChange(app, change, viewId);
    });
  };
}

/** What the change is worked out from: the role list, and what this kind of change needs. */
async function readFacts(deps: AppDeps, app: CometChatApp, words: RoleWords): Promise<RoleFacts> {
  const [roles, known, holders] = await Promise.all([
    // Fresh: the count against CometChat's 25, and what the role is called, are read as they are.
    app.cometchat.listAllRoles({ fresh: true }),
    words.kind === 'create' && words.from
      ? deps.store.getKnownPermissions(app.name, words.from)
      : undefined,
    words.kind === 'delete'
      ? app.cometchat.countUsersWithRole(words.role, { withDeactivated: true })
      : undefined,
  ]);
  return { roles, known, holders, appName: appNameIfMultiple(deps.apps, app) };
}
