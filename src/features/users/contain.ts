import type { App, BlockAction, ButtonAction, SlashCommand } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
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
  type AskedContainment,
  CONTAIN_TITLE,
  MAX_CONTAINMENT_GROUPS,
  messagesSince,
  replyPrivately,
  reviewContainment,
} from '../../changes/index.ts';
import type { UserGroup } from '../../cometchat/account-model.ts';
import { GUID_PATTERN, UidSchema } from '../../cometchat/id-rules.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import { failureSentence } from '../../replies/failure.ts';
import { counted, failureMessage, inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { context, messageModal, noticeMessage, plain, section } from '../../slack/blocks.ts';
import type { Respond } from '../../slack/deliver.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, SubmitArgs } from '../../slack/listener-args.ts';
import { failInModal } from '../../slack/modal-outcome.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import { parseTimeBound, resolveSearch, type TimeBound } from '../call-filters.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';
import { UidValue } from './user-values.ts';

// Containing an account in trouble: what to do besides revoking and deactivating (ban from the
// groups, delete messages since a time) is chosen first, then counted and reviewed as one change
// (src/changes/containment-view.ts); the road applies it. Nothing is sent from here.

const GROUPS_BLOCK = BLOCKS.containGroups;
const GROUPS_INPUT = 'ban';
const SINCE_BLOCK = BLOCKS.containSince;
const SINCE_INPUT = 'since';

/** What the choice carries to its submission (signed for the app). */
const ChoiceValue = z.object({
  uid: UidSchema,
  name: z.string().max(100),
  role: z.string().max(100),
  groups: z.array(z.string().regex(GUID_PATTERN)).max(MAX_CONTAINMENT_GROUPS),
  more: z.number().int().nonnegative(),
});
type Choice = z.infer<typeof ChoiceValue>;

/** Why a user cannot be contained, or undefined when they can: a deactivated account. Pure. */
export function containProblem(user: Pick<User, 'uid' | 'deactivatedAt'>): string | undefined {
  return accountOf(user) === 'deactivated'
    ? `${code(user.uid)} is deactivated already: CometChat answers their uid as unknown, so their sessions, bans and messages cannot be reached until they are reactivated.`
    : undefined;
}

/** The choice: what a containment does besides revoking and deactivating. Pure. */
export function containChoiceView(
  user: Pick<User, 'uid' | 'name'>,
  groups: readonly UserGroup[],
  privateMetadata: string,
  appName: string | undefined,
): View {
  const who = `*${escapeMrkdwn(truncate(user.name, 100))}* ${code(user.uid)}${inApp(appName)}`;
  const listed = groups.slice(0, MAX_CONTAINMENT_GROUPS);
  const names = listed.map((g) => `${escapeMrkdwn(truncate(g.name, 40))} ${code(g.guid)}`);
  const more = groups.length - listed.length;
  const banBlocks: KnownBlock[] =
    listed.length === 0
      ? [context(['They are in no group: there is no group to ban them from.'])]
      : [
          section(
            `Their groups: ${names.join(', ')}${more > 0 ? `, and ${more} more (a containment bans from ${MAX_CONTAINMENT_GROUPS} at most)` : ''}.`,
          ),
          {
            type: 'input',
            block_id: GROUPS_BLOCK,
            optional: true,
            label: plain('Groups'),
            element: {
              type: 'checkboxes',
              action_id: GROUPS_INPUT,
              options: [
                {
                  text: plain(`Ban them from ${counted(listed.length, 'group')}`),
                  description: plain('They leave each and cannot rejoin until unbanned.'),
                  value: 'ban',
                },
              ],
            },
          },
        ];
  return {
    type: 'modal',
    callback_id: CALLBACKS.userContainOptions,
    title: plain(CONTAIN_TITLE, 24),
    submit: plain('Review', 24),
    close: plain('Cancel', 24),
    private_metadata: privateMetadata,
    blocks: [
      section(
        `Contain ${who}: every session is revoked and the account deactivated, last. Choose what else to do; the next step counts it and shows every step before anything is sent.`,
      ),
      ...banBlocks,
      {
        type: 'input',
        block_id: SINCE_BLOCK,
        optional: true,
        label: plain('Soft-delete their messages sent since'),
        hint: plain(
          '2h, 3d (back from now) or a day such as 2026-11-20 (in your time zone). Empty: none is deleted.',
          150,
        ),
        element: {
          type: 'plain_text_input',
          action_id: SINCE_INPUT,
          max_length: 30,
          placeholder: plain('3d'),
        },
      },
    ],
  };
}

/** What the choice asked for: the bans, and from when to delete (undefined: none). */
export interface Chosen {
  ban: boolean;
  since: TimeBound | undefined;
}

/**
 * What the choice asked for, read from the submitted view's state; or the one sentence that
 * refuses a time that cannot be read (under its input). Pure.
 */
export function chosen(
  values: SubmitArgs['view']['state']['values'],
): Chosen | { problem: string } {
  const ban = (values[GROUPS_BLOCK]?.[GROUPS_INPUT]?.selected_options ?? []).length > 0;
  const typed = values[SINCE_BLOCK]?.[SINCE_INPUT]?.value?.trim() ?? '';
  if (typed === '') return { ban, since: undefined };
  const since = parseTimeBound(typed);
  return since
    ? { ban, since }
    : {
        problem: `${code(truncate(typed, 30))} is not a time: write 2h, 3d or a day such as 2026-11-20.`,
      };
}

/** The choice, read from CometChat: the user and their groups; or why there is none. */
async function choiceView(deps: AppDeps, app: CometChatApp, uid: string): Promise<View> {
  const user = await app.cometchat.getUser(uid);
  const problem = containProblem(user);
  if (problem) return messageModal(CONTAIN_TITLE, problem);
  const groups = await app.cometchat.listUserGroups(uid);
  // A guid the service wrote otherwise than it documents cannot be sent back: not carried.
  const carried = groups
    .map((g) => g.guid)
    .filter((guid) => GUID_PATTERN.test(guid))
    .slice(0, MAX_CONTAINMENT_GROUPS);
  const value: Choice = {
    uid: user.uid,
    name: truncate(user.name, 100),
    role: user.role,
    groups: carried,
    more: groups.length - carried.length,
  };
  return containChoiceView(
    user,
    groups,
    valueWriter(app)(value),
    appNameIfMultiple(deps.apps, app),
  );
}

/** `/cometchat user <uid> contain`, and the card's _Contain…_: the choice, for an editor. */
async function openChoice(
  deps: AppDeps,
  app: CometChatApp,
  who: { userId: string; triggerId: string; uid: string },
): Promise<string | undefined> {
  const refusal = await editRefusal(app.access, who.userId, currentRequest().log, 'change a user');
  if (refusal) return refusal;
  await loadIntoModal(deps, { triggerId: who.triggerId, title: CONTAIN_TITLE }, () =>
    choiceView(deps, app, who.uid),
  );
  return undefined;
}

export function createContainCommand(deps: AppDeps) {
  return async (
    app: CometChatApp,
    words: { uid: string },
    command: SlashCommand,
    respond: Respond,
  ): Promise<void> => {
    const who = { userId: command.user_id, triggerId: command.trigger_id, uid: words.uid };
    const refusal = await openChoice(deps, app, who);
    if (refusal) await respond(noticeMessage(refusal));
  };
}

function createContainButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, UidValue, action.value);
    const who = { userId: body.user.id, triggerId: body.trigger_id, uid: value.uid };
    const refusal = await openChoice(deps, app, who);
    if (refusal) await replyPrivately(deps, args, refusal);
  };
}

/**
 * The choice submitted: "Counting…" at once (Slack waits three seconds), then the review, with
 * the sessions read again and the messages to delete counted.
 */
function createChoiceSubmitted(deps: AppDeps) {
  return async ({ ack, view, body }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, ChoiceValue, view.private_metadata);
    if (!opened) {
      await ack({ response_action: 'update', view: messageModal(CONTAIN_TITLE, UNSIGNED_REFUSAL) });
      return;
    }
    const asked = chosen(view.state.values);
    if ('problem' in asked) {
      await ack({ response_action: 'errors', errors: { [SINCE_BLOCK]: asked.problem } });
      return;
    }
    await ack({
      response_action: 'update',
      view: messageModal(CONTAIN_TITLE, ':hourglass_flowing_sand: Counting what it would do…'),
    });
    const { app, value } = opened;
    try {
      const at = asked.since && (await sinceSecond(deps, asked.since, body.user.id));
      const review = await containmentReview(deps, app, value, { ban: asked.ban, at }, view.id);
      await deps.views.update({ view_id: view.id, view: review });
    } catch (error) {
      const { ref, log } = currentRequest();
      const message = failureMessage(failureSentence(error, deps), ref);
      const failed = messageModal(CONTAIN_TITLE, message.blocks ?? []);
      await failInModal(deps.views, { viewId: view.id }, failed, error, log);
    }
  };
}

/** The containment's review: its sessions read now, its messages to delete counted now. */
async function containmentReview(
  deps: AppDeps,
  app: CometChatApp,
  choice: Choice,
  asked: { ban: boolean; at: number | undefined },
  origin: string,
): Promise<View> {
  const { at } = asked;
  const [sessions, ids] = await Promise.all([
    app.cometchat.listSessions(choice.uid),
    at
      ? messagesSince(app.cometchat, {
          sender: choice.uid,
          since: at,
          hideDeleted: true,
          limit: 100,
        })
      : undefined,
  ]);
  const containment: AskedContainment = {
    uid: choice.uid,
    name: choice.name,
    role: choice.role,
    sessions: sessions.length,
    groups: asked.ban ? choice.groups : undefined,
    groupsLeftOut: asked.ban ? choice.more : undefined,
    since: at && ids ? { at, count: ids.length } : undefined,
  };
  return reviewContainment(deps.apps, app, containment, origin);
}

/** The first second a typed time allows: back from now, or the day's start in their zone. */
async function sinceSecond(deps: AppDeps, since: TimeBound, userId: string): Promise<number> {
  const zone = 'day' in since ? await deps.timeZones.of(userId, currentRequest().log) : undefined;
  const resolved = resolveSearch({ since }, Math.floor(deps.now() / 1000), zone);
  return resolved.since ?? 0;
}

export function registerContain(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.userContain, createContainButton(deps));
  bolt.view(CALLBACKS.userContainOptions, createChoiceSubmitted(deps));
}
