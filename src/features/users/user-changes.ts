import type { App, BlockAction, ButtonAction, SlashCommand } from '@slack/bolt';
import type { View } from '@slack/types';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import {
  appNameIfMultiple,
  type CometChatApp,
  openSigned,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
  valueWriter,
} from '../../apps/apps.ts';
import {
  type AskedUserChange,
  replyPrivately,
  reviewUserChange,
  USER_CHANGE_TITLE,
} from '../../changes/index.ts';
import { defaultPermissions, valueInWords } from '../../cometchat/catalogue.ts';
import { roleIdProblem, UidSchema } from '../../cometchat/id-rules.ts';
import { type Account, accountOf, type User } from '../../cometchat/model.ts';
import type { PermissionMap, Role } from '../../cometchat/schemas.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { messageModal, noticeMessage, plain, section } from '../../slack/blocks.ts';
import type { Respond } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { KnownPermissions } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import {
  createRoleOptions,
  type PickOrPaste,
  pasteBlock,
  pickedOrPasted,
  roleSelect,
} from '../options.ts';
import { knownOf } from './known-permissions.ts';
import { AccountValue, UidValue } from './user-values.ts';

// Changing a user: their role (a picker, then the review) or their account (deactivate,
// reactivate: the review at once). The review, approval, sending and audit are every change's
// (src/changes); what is here is asking, and showing what the change means.

const PICK_BLOCK = 'user_role';
const PICK_INPUT = 'role';
/** The role select, and the text field beside it for a role id typed or pasted. */
const ROLE_FIELDS: PickOrPaste = {
  pick: { block: PICK_BLOCK, action: PICK_INPUT },
  paste: { block: 'user_role_id', action: 'role_id' },
};
/** How many differing keys the review lists before counting the rest. */
const DIFFERENCES_SHOWN = 12;

const PickValue = z.object({
  uid: UidSchema,
  name: z.string().max(100),
  role: z.string().max(100),
});

/**
 * What changing from one role to the other changes, key by key, as far as the app knows the two
 * roles (the last map each update returned, else the documented defaults; said which). Pure.
 */
export function roleDifference(
  from: { role: string; known: KnownPermissions | undefined },
  to: { role: string; known: KnownPermissions | undefined },
): string[] {
  const defaults = defaultPermissions();
  const map = (k: KnownPermissions | undefined): PermissionMap => k?.permissions ?? defaults;
  const before = map(from.known);
  const after = map(to.known);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const differing = keys.filter(
    (key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null),
  );
  const source = (r: { role: string; known: KnownPermissions | undefined }) =>
    r.known ? `${code(r.role)} as this app last set it` : `${code(r.role)}: documented defaults`;
  const head = `Permissions that differ (${source(from)}; ${source(to)}; CometChat offers no read of a role's permissions):`;
  if (differing.length === 0) return [head, 'none: the two are the same as far as the app knows.'];
  const lines = differing
    .slice(0, DIFFERENCES_SHOWN)
    .map(
      (key) =>
        `${permissionKeyText(key)}: ${code(truncate(valueInWords(before[key]), 60))} → *${code(truncate(valueInWords(after[key]), 60))}*`,
    );
  const more = differing.length - DIFFERENCES_SHOWN;
  return [head, ...lines, ...(more > 0 ? [`…and ${more} more.`] : [])];
}

/**
 * The role picker: a select of the app's roles but the user's own (type-ahead, answered by
 * createRoleOptions), and beside it a field for a role id typed or pasted. Pure.
 */
export function rolePickerView(
  user: Pick<User, 'uid' | 'name' | 'role'>,
  privateMetadata: string,
  appName: string | undefined,
): View {
  return {
    type: 'modal',
    callback_id: CALLBACKS.userRolePick,
    title: plain(USER_CHANGE_TITLE, 24),
    submit: plain('Review', 24),
    close: plain('Cancel', 24),
    private_metadata: privateMetadata,
    blocks: [
      section(
        `*${escapeMrkdwn(truncate(user.name, 100))}* ${code(user.uid)}${inApp(appName)} has role ${code(user.role)}. Which role should they have?`,
      ),
      {
        type: 'input',
        block_id: PICK_BLOCK,
        optional: true,
        label: plain('New role'),
        element: roleSelect(PICK_INPUT),
      },
      pasteBlock(ROLE_FIELDS.paste, 'Or paste a role id', 100),
    ],
  };
}

/**
 * The role the picker gives, picked or pasted (and which), or the one sentence why not, on the
 * select. Pure.
 */
export function readPickedRole(
  values: SubmitArgs['view']['state']['values'],
): { to: string; pasted: boolean } | { errors: Record<string, string> } {
  const given = pickedOrPasted(values, ROLE_FIELDS);
  if ('problem' in given) return { errors: { [PICK_BLOCK]: given.problem } };
  if (given.id === '') return { errors: { [PICK_BLOCK]: 'Pick a role, or paste its id below.' } };
  const picked = values[PICK_BLOCK]?.[PICK_INPUT]?.selected_option?.value;
  return { to: given.id, pasted: picked !== given.id };
}

/** What a person asked to change about a user: their role, or their account. */
export type UserChangeAsked = { key: 'role'; to: string } | { key: 'status'; to: Account };

/**
 * Why a change to a user has nothing to review, or undefined when it has: a role that is no role
 * id, or not one of `roles` (when they were read), or what the user has already. One sentence a
 * case, whichever way the change was asked for. Pure.
 */
export function userChangeProblem(
  user: Pick<User, 'uid' | 'role' | 'deactivatedAt'>,
  roles: readonly Pick<Role, 'role'>[] | undefined,
  asked: UserChangeAsked,
  appName?: string,
): string | undefined {
  if (asked.key === 'status') {
    return accountOf(user) === asked.to
      ? `${code(user.uid)} is ${asked.to} already; nothing to change.`
      : undefined;
  }
  const idProblem = roleIdProblem(asked.to);
  if (idProblem) return idProblem;
  if (roles && !roles.some((r) => r.role === asked.to)) {
    return `There is no role ${code(asked.to)}${inApp(appName)}; see \`/cometchat roles\`.`;
  }
  return user.role === asked.to
    ? `${code(user.uid)} has role ${code(user.role)} already; nothing to change.`
    : undefined;
}

/** The review of a role change, with what it changes in the permissions the app knows. */
async function roleChangeReview(
  deps: AppDeps,
  app: CometChatApp,
  user: Pick<User, 'uid' | 'name' | 'role'>,
  to: string,
  origin: string,
): Promise<View> {
  const [fromKnown, toKnown] = await Promise.all([
    knownOf(deps, app, user.role),
    knownOf(deps, app, to),
  ]);
  const change: AskedUserChange = {
    uid: user.uid,
    name: user.name,
    role: user.role,
    key: 'role',
    before: user.role,
    after: to,
    details: roleDifference({ role: user.role, known: fromKnown }, { role: to, known: toKnown }),
  };
  return reviewUserChange(deps.apps, app, change, origin);
}

/** Where a user change's modal opens, and under which title. */
const changeModal = (triggerId: string) => ({ triggerId, title: USER_CHANGE_TITLE });

/** "Change role" on a card: the picker, for an editor. */
function createChangeRoleButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, UidValue, action.value);
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, body.user.id, log, 'change a user');
    if (refusal) return replyPrivately(deps, args, refusal);
    await loadIntoModal(deps, changeModal(body.trigger_id), async () => {
      // The roles are the select's to read, as the person types.
      const user = await app.cometchat.getUser(value.uid);
      const metadata = valueWriter(app)({
        uid: user.uid,
        name: truncate(user.name, 100),
        role: user.role,
      });
      return rolePickerView(user, metadata, appNameIfMultiple(deps.apps, app));
    });
  };
}

/** The picker submitted: the review in its place (Slack waits three seconds for it). */
function createRolePicked(deps: AppDeps) {
  return async ({ ack, view }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, PickValue, view.private_metadata);
    if (!opened) {
      await ack({
        response_action: 'update',
        view: messageModal(USER_CHANGE_TITLE, UNSIGNED_REFUSAL),
      });
      return;
    }
    const { app, value } = opened;
    const read = readPickedRole(view.state.values);
    if ('errors' in read)
      return void (await ack({ response_action: 'errors', errors: read.errors }));
    const { to, pasted } = read;
    // A picked role came from the role list; a pasted one is checked against it (cached, and
    // Slack waits three seconds).
    const roles = pasted ? await app.cometchat.listAllRoles() : undefined;
    const problem = userChangeProblem(
      value,
      roles,
      { key: 'role', to },
      appNameIfMultiple(deps.apps, app),
    );
    if (problem) {
      const block = pasted ? ROLE_FIELDS.paste.block : PICK_BLOCK;
      await ack({ response_action: 'errors', errors: { [block]: problem } });
      return;
    }
    const review = await roleChangeReview(deps, app, value, to, view.id);
    await ack({ response_action: 'update', view: review });
  };
}

/** "Deactivate" / "Reactivate" on a card: the review at once, naming the user. */
function createAccountButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, AccountValue, action.value);
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, body.user.id, log, 'change a user');
    if (refusal) return replyPrivately(deps, args, refusal);
    await loadIntoModal(deps, changeModal(body.trigger_id), async (viewId) => {
      const user = await app.cometchat.getUser(value.uid);
      const problem = userChangeProblem(user, undefined, { key: 'status', to: value.to });
      if (problem) return messageModal(USER_CHANGE_TITLE, problem);
      const change: AskedUserChange = {
        uid: user.uid,
        name: user.name,
        role: user.role,
        key: 'status',
        before: accountOf(user),
        after: value.to,
      };
      return reviewUserChange(deps.apps, app, change, viewId);
    });
  };
}

/** `/cometchat user <uid> role <role>`: the same review as the card's, opened on the command. */
export function createRoleCommand(deps: AppDeps) {
  return async (
    app: CometChatApp,
    words: { uid: string; role: string },
    command: SlashCommand,
    respond: Respond,
  ): Promise<void> => {
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, command.user_id, log, 'change a user');
    if (refusal) return respond(noticeMessage(refusal));
    await loadIntoModal(deps, changeModal(command.trigger_id), async (viewId) => {
      const [user, roles] = await Promise.all([
        app.cometchat.getUser(words.uid),
        app.cometchat.listAllRoles(),
      ]);
      const asked: UserChangeAsked = { key: 'role', to: words.role };
      const problem = userChangeProblem(user, roles, asked, appNameIfMultiple(deps.apps, app));
      if (problem) return messageModal(USER_CHANGE_TITLE, problem);
      return roleChangeReview(deps, app, user, words.role, viewId);
    });
  };
}

export function registerUserChanges(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userChangeRole, createChangeRoleButton(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userAccount, createAccountButton(deps));
  bolt.view(CALLBACKS.userRolePick, createRolePicked(deps));
  bolt.options(
    { type: 'block_suggestion', block_id: PICK_BLOCK, action_id: PICK_INPUT },
    createRoleOptions((body) => {
      const opened = tryOpenSigned(deps.apps, PickValue, body.view?.private_metadata);
      return opened && { app: opened.app, except: opened.value.role };
    }),
  );
}
