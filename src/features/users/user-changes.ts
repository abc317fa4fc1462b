import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { View } from '@slack/types';
import { z } from 'zod';
import { appNameIfSeveral, type CometChatApp, openSealed, valueWriter } from '../../apps/apps.ts';
import { defaultPermissions, valueInWords } from '../../cometchat/catalogue.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import type { PermissionMap, Role } from '../../cometchat/schemas.ts';
import { failureMessage, messageModal, plain, section } from '../../slack/blocks.ts';
import { destinationOf, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { failInModal } from '../../slack/modal-outcome.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import type { KnownPermissions } from '../../store/store.ts';
import { failureSentence, InputError } from '../../voice/failure.ts';
import { inApp } from '../../voice/sentences.ts';
import { type AppDeps, USER_CHANGE_TITLE, type UserChange } from '../deps.ts';

// Changing a user: their role (a picker, then the review) or their account (deactivate,
// reactivate: the review at once). The review, approval, sending and audit are every change's
// (AppDeps.reviewUserChange); what is here is asking, and showing what the change means.

const PICK_BLOCK = 'user_role';
const PICK_INPUT = 'role';
/** How many differing keys the review lists before counting the rest. */
const DIFFERENCES_SHOWN = 12;

const UidValue = z.object({ uid: z.string().min(1).max(100) });
const AccountValue = UidValue.extend({ to: z.enum(['active', 'deactivated']) });
const PickValue = z.object({
  uid: z.string().min(1).max(100),
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
        `${code(key)}: ${code(truncate(valueInWords(before[key]), 60))} → *${code(truncate(valueInWords(after[key]), 60))}*`,
    );
  const more = differing.length - DIFFERENCES_SHOWN;
  return [head, ...lines, ...(more > 0 ? [`…and ${more} more.`] : [])];
}

/** The role picker: every role of the app but the user's own. Pure. */
export function rolePickerView(
  user: Pick<User, 'uid' | 'name' | 'role'>,
  roles: readonly Role[],
  privateMetadata: string,
  appName: string | undefined,
): View {
  const options = roles
    .filter((r) => r.role !== user.role)
    .slice(0, 100)
    .map((r) => ({
      text: plain(truncate(r.name && r.name !== r.role ? `${r.name} (${r.role})` : r.role, 75)),
      value: r.role,
    }));
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
        label: plain('New role'),
        element: { type: 'static_select', action_id: PICK_INPUT, options },
      },
    ],
  };
}

/** Why this person may not change the app's users, or undefined when they may. */
async function editorRefusal(app: CometChatApp, userId: string, scope: RequestScope) {
  const refusal = await app.access.editRefusal(userId, scope.log);
  if (refusal) scope.log.warn({ user: userId }, 'user change refused: not an editor');
  return refusal;
}

/** Opens "Loading…" on the trigger, then fills it with `build`, or with the failure. */
async function loadIntoModal(
  deps: AppDeps,
  triggerId: string,
  scope: RequestScope,
  build: (viewId: string) => Promise<View>,
): Promise<void> {
  const viewId = await deps.views.open({
    trigger_id: triggerId,
    view: messageModal(USER_CHANGE_TITLE, ':hourglass_flowing_sand: Asking CometChat…', {
      clearOnClose: true,
    }),
  });
  try {
    await deps.views.update({ view_id: viewId, view: await build(viewId) });
  } catch (error) {
    const message = failureMessage(failureSentence(error, deps.budgetSeconds), scope.ref);
    await failInModal(
      deps.views,
      { viewId },
      messageModal(USER_CHANGE_TITLE, message.blocks ?? []),
      error,
      scope.log,
    );
  }
}

async function knownOf(deps: AppDeps, app: CometChatApp, role: string, scope: RequestScope) {
  return deps.store.getKnownPermissions(app.name, role).catch((error: unknown) => {
    scope.log.warn({ err: error, role }, 'known permissions not read; shown as defaults');
    return undefined;
  });
}

/** The review of a role change, with what it changes in the permissions the app knows. */
async function roleChangeReview(
  deps: AppDeps,
  app: CometChatApp,
  user: Pick<User, 'uid' | 'name' | 'role'>,
  to: string,
  origin: string,
  scope: RequestScope,
): Promise<View> {
  const [fromKnown, toKnown] = await Promise.all([
    knownOf(deps, app, user.role, scope),
    knownOf(deps, app, to, scope),
  ]);
  const change: UserChange = {
    uid: user.uid,
    name: user.name,
    role: user.role,
    key: 'role',
    before: user.role,
    after: to,
    details: roleDifference({ role: user.role, known: fromKnown }, { role: to, known: toKnown }),
  };
  return deps.reviewUserChange(app, change, origin);
}

/** "Change role" on a card: the picker, for an editor. */
function createChangeRoleButton(deps: AppDeps) {
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, UidValue, action.value);
    const refusal = await editorRefusal(app, body.user.id, scope);
    if (refusal) return tell(deps, body, refusal, scope);
    await loadIntoModal(deps, body.trigger_id, scope, async () => {
      const request = { ref: scope.ref, logger: scope.log };
      const [user, roles] = await Promise.all([
        app.cometchat.getUser(value.uid, request),
        app.cometchat.listAllRoles(request),
      ]);
      const metadata = valueWriter(app)({
        uid: user.uid,
        name: truncate(user.name, 100),
        role: user.role,
      });
      return rolePickerView(user, roles, metadata, appNameIfSeveral(deps.apps, app));
    });
  };
}

/** The picker submitted: the review in its place (store reads only: Slack waits three seconds). */
function createRolePicked(deps: AppDeps) {
  return async ({ ack, view, context }: SubmitArgs) => {
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, PickValue, view.private_metadata);
    const to = view.state.values[PICK_BLOCK]?.[PICK_INPUT]?.selected_option?.value;
    if (!to || to === value.role) {
      await ack({
        response_action: 'errors',
        errors: { [PICK_BLOCK]: 'Choose a role other than the current one.' },
      });
      return;
    }
    const review = await roleChangeReview(deps, app, value, to, view.id, scope);
    await ack({ response_action: 'update', view: review });
  };
}

/** "Deactivate" / "Reactivate" on a card: the review at once, naming the user. */
function createAccountButton(deps: AppDeps) {
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, AccountValue, action.value);
    const refusal = await editorRefusal(app, body.user.id, scope);
    if (refusal) return tell(deps, body, refusal, scope);
    await loadIntoModal(deps, body.trigger_id, scope, async (viewId) => {
      const user = await app.cometchat.getUser(value.uid, { ref: scope.ref, logger: scope.log });
      const now = accountOf(user);
      if (now === value.to) {
        return messageModal(
          USER_CHANGE_TITLE,
          `${code(user.uid)} is ${now} already; nothing to change.`,
        );
      }
      const change: UserChange = {
        uid: user.uid,
        name: user.name,
        role: user.role,
        key: 'status',
        before: now,
        after: value.to,
      };
      return deps.reviewUserChange(app, change, viewId);
    });
  };
}

/** `/cometchat user <uid> role <role>`: the same review as the card's, opened on the command. */
export function createRoleCommand(deps: AppDeps) {
  return async (
    app: CometChatApp,
    words: { uid: string; role: string },
    body: { trigger_id: string; user_id: string },
    scope: RequestScope,
  ): Promise<void> => {
    const refusal = await editorRefusal(app, body.user_id, scope);
    if (refusal) return tell(deps, body, refusal, scope);
    await loadIntoModal(deps, body.trigger_id, scope, async (viewId) => {
      const request = { ref: scope.ref, logger: scope.log };
      const [user, roles] = await Promise.all([
        app.cometchat.getUser(words.uid, request),
        app.cometchat.listAllRoles(request),
      ]);
      if (!roles.some((r) => r.role === words.role)) {
        throw new InputError(
          `There is no role ${code(words.role)}${inApp(appNameIfSeveral(deps.apps, app))}; see \`/cometchat roles\`.`,
        );
      }
      if (user.role === words.role) {
        return messageModal(
          USER_CHANGE_TITLE,
          `${code(user.uid)} has role ${code(user.role)} already; nothing to change.`,
        );
      }
      return roleChangeReview(deps, app, user, words.role, viewId, scope);
    });
  };
}

async function tell(deps: AppDeps, body: unknown, sentence: string, scope: RequestScope) {
  const message: SlackMessage = {
    response_type: 'ephemeral',
    replace_original: false,
    text: sentence,
  };
  await deps.deliver(destinationOf(body), message, scope.log);
}

export function registerUserChanges(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userChangeRole, createChangeRoleButton(deps));
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userAccount, createAccountButton(deps));
  bolt.view(CALLBACKS.userRolePick, createRolePicked(deps));
}
