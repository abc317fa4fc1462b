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
  type AskedMemberChange,
  isBanned,
  MEMBER_CHANGE_TITLE,
  memberScope,
  replyPrivately,
  reviewMemberChange,
  type Standing,
} from '../../changes/index.ts';
import { GROUP_SCOPES, type GroupScope } from '../../cometchat/group-model.ts';
import { GuidSchema, UidSchema } from '../../cometchat/id-rules.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { messageModal, noticeMessage, plain, section } from '../../slack/blocks.ts';
import type { Respond } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import { type MemberAction, SCOPE_PROBLEM, scopeWord } from './group-words.ts';

// Changing a group's member: their scope (a picker, then the review), a kick, a ban, the ban
// lifted (the review at once), from the member lists' buttons or the command. What is here is
// asking and checking it is a change at all; the review, approval, sending, audit and revert are
// every change's (src/changes).

const PICK_BLOCK = 'group_scope';
const PICK_INPUT = 'scope';

/** What a member's button carries: the group, the member, their scope when listed. */
const MemberValue = z.object({
  g: GuidSchema,
  u: UidSchema,
  s: z.enum(GROUP_SCOPES).optional(),
});

/** What the scope picker carries to its submission: the group (and its name), the member. */
const PickValue = z.object({
  g: GuidSchema,
  n: z.string().max(100),
  u: UidSchema,
  s: z.enum(GROUP_SCOPES),
});

/** A change to a member as asked: a scope to give, or a kick, ban or unban. */
export type MemberAsk = { key: 'scope'; to: GroupScope } | { key: MemberAction };

/**
 * The change an ask is, from where the user stands, or the one sentence why there is none: not
 * a member (a scope change, a kick), the scope they have, banned already, not banned. Pure.
 */
export function askedChangeOf(
  guid: string,
  uid: string,
  standing: Standing,
  ask: MemberAsk,
): Pick<AskedMemberChange, 'key' | 'before' | 'after'> | string {
  const who = `${code(uid)} in group ${code(guid)}`;
  const notMember = `${code(uid)} is not a member of group ${code(guid)}; nothing was changed.`;
  switch (ask.key) {
    case 'scope':
      if (standing.scope === undefined) return notMember;
      return standing.scope === ask.to
        ? `${who} has scope ${code(ask.to)} already; nothing to change.`
        : { key: 'scope', before: standing.scope, after: ask.to };
    case 'kick':
      return standing.scope === undefined
        ? notMember
        : { key: 'membership', before: 'member', after: 'kicked' };
    case 'ban':
      return standing.banned
        ? `${who} is banned already; nothing to change.`
        : { key: 'ban', before: 'none', after: 'banned' };
    case 'unban':
      return standing.banned
        ? { key: 'ban', before: 'banned', after: 'none' }
        : `${who} is not banned; nothing to lift.`;
  }
}

/** Where the user stands in the group now, as far as `ask` needs to know. */
async function standingFor(app: CometChatApp, guid: string, uid: string, ask: MemberAsk) {
  const banNeeded = ask.key === 'ban' || ask.key === 'unban';
  const [scope, banned] = await Promise.all([
    banNeeded ? undefined : memberScope(app.cometchat, guid, uid),
    banNeeded ? isBanned(app.cometchat, guid, uid) : false,
  ]);
  return { scope, banned };
}

/**
 * The review of `ask`, read from CometChat now (an unknown group is the client's `not_found`),
 * or the modal with the one sentence why there is nothing to review.
 */
async function memberReview(
  deps: AppDeps,
  app: CometChatApp,
  target: { guid: string; uid: string },
  ask: MemberAsk,
  origin: string,
): Promise<View> {
  const { guid, uid } = target;
  const [group, standing] = await Promise.all([
    app.cometchat.getGroup(guid),
    standingFor(app, guid, uid, ask),
  ]);
  const change = askedChangeOf(guid, uid, standing, ask);
  if (typeof change === 'string') return messageModal(MEMBER_CHANGE_TITLE, change);
  const asked: AskedMemberChange = { guid, groupName: group.name, uid, ...change };
  return reviewMemberChange(deps.apps, app, asked, origin);
}

/** The scope picker: the two scopes the member does not have. Pure. */
export function scopePickerView(
  value: z.infer<typeof PickValue>,
  metadata: string,
  appName: string | undefined,
): View {
  const options = GROUP_SCOPES.filter((s) => s !== value.s).map((s) => ({
    text: plain(s),
    value: s,
  }));
  return {
    type: 'modal',
    callback_id: CALLBACKS.groupScopePick,
    title: plain(MEMBER_CHANGE_TITLE, 24),
    submit: plain('Review', 24),
    close: plain('Cancel', 24),
    private_metadata: metadata,
    blocks: [
      section(
        `${code(value.u)} has scope ${code(value.s)} in *${escapeMrkdwn(truncate(value.n, 100))}* ${code(value.g)}${inApp(appName)}. Which scope should they have?`,
      ),
      {
        type: 'input',
        block_id: PICK_BLOCK,
        label: plain('New scope'),
        element: { type: 'static_select', action_id: PICK_INPUT, options },
      },
    ],
  };
}

const modalOn = (triggerId: string) => ({ triggerId, title: MEMBER_CHANGE_TITLE });

/** A member's button, for an editor: the picker (Change scope) or the review (the rest). */
function createMemberButton(deps: AppDeps, action: 'scope' | MemberAction) {
  return async (args: ButtonArgs) => {
    const { ack, body } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, MemberValue, args.action.value);
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, body.user.id, log, 'change a group member');
    if (refusal) return replyPrivately(deps, args, refusal);
    const target = { guid: value.g, uid: value.u };
    await loadIntoModal(deps, modalOn(body.trigger_id), async (viewId) => {
      if (action !== 'scope') return memberReview(deps, app, target, { key: action }, viewId);
      const [group, scope] = await Promise.all([
        app.cometchat.getGroup(value.g),
        memberScope(app.cometchat, value.g, value.u),
      ]);
      if (scope === undefined) {
        return messageModal(
          MEMBER_CHANGE_TITLE,
          `${code(value.u)} is not a member of group ${code(value.g)}; nothing was changed.`,
        );
      }
      const pick = { g: value.g, n: truncate(group.name, 100), u: value.u, s: scope };
      const appName = appNameIfMultiple(deps.apps, app);
      return scopePickerView(pick, valueWriter(app)(pick), appName);
    });
  };
}

/** The picker submitted: the review in its place (nothing read: Slack waits three seconds). */
function createScopePicked(deps: AppDeps) {
  return async ({ ack, view }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, PickValue, view.private_metadata);
    if (!opened) {
      await ack({
        response_action: 'update',
        view: messageModal(MEMBER_CHANGE_TITLE, UNSIGNED_REFUSAL),
      });
      return;
    }
    const { app, value } = opened;
    const to = scopeWord(view.state.values[PICK_BLOCK]?.[PICK_INPUT]?.selected_option?.value ?? '');
    if (to === undefined || to === value.s) {
      await ack({ response_action: 'errors', errors: { [PICK_BLOCK]: SCOPE_PROBLEM } });
      return;
    }
    const asked: AskedMemberChange = {
      guid: value.g,
      groupName: value.n,
      uid: value.u,
      key: 'scope',
      before: value.s,
      after: to,
    };
    await ack({
      response_action: 'update',
      view: reviewMemberChange(deps.apps, app, asked, view.id),
    });
  };
}

/**
 * `/cometchat group <guid> scope <uid> <scope>` and `... (kick | ban | unban) <uid>`: the same
 * review as the buttons', opened on the command.
 */
export function createMemberCommand(deps: AppDeps) {
  return async (
    app: CometChatApp,
    words: { guid: string; uid: string; ask: MemberAsk },
    command: SlashCommand,
    respond: Respond,
  ): Promise<void> => {
    const log = currentRequest().log;
    const refusal = await editRefusal(app.access, command.user_id, log, 'change a group member');
    if (refusal) return respond(noticeMessage(refusal));
    await loadIntoModal(deps, modalOn(command.trigger_id), (viewId) =>
      memberReview(deps, app, words, words.ask, viewId),
    );
  };
}

export function registerMemberChanges(bolt: App, deps: AppDeps): void {
  const on = (actionId: string, action: 'scope' | MemberAction) =>
    bolt.action<BlockAction<ButtonAction>>(actionId, createMemberButton(deps, action));
  on(ACTIONS.groupMemberScope, 'scope');
  on(ACTIONS.groupMemberKick, 'kick');
  on(ACTIONS.groupMemberBan, 'ban');
  on(ACTIONS.groupMemberUnban, 'unban');
  bolt.view(CALLBACKS.groupScopePick, createScopePicked(deps));
}
