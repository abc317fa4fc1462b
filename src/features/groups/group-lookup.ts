import type { App, BlockAction, ButtonAction, MessageShortcut } from '@slack/bolt';
import { z } from 'zod';
import { appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { CometChatError } from '../../cometchat/errors.ts';
import { GROUP_SCOPES } from '../../cometchat/group-model.ts';
import { findGuidCandidates, GuidSchema } from '../../cometchat/id-rules.ts';
import { currentRequest } from '../../request-context.ts';
import { recipientOf, respondOrFallBack, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import type { ButtonArgs, ShortcutArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import {
  bannedPageMessage,
  groupCard,
  groupListMessage,
  type MembersValue,
  memberPageMessage,
  PER_PAGE,
} from './group-view.ts';
import { GROUP_TYPES, type GroupSearch } from './group-words.ts';

// Reading a group for Slack, thin: the group and the first page of its admins and moderators
// asked at once with whether the person edits; the pages of its members and banned users; the
// search; "Look up group" on a message. Drawn by group-view.ts.

type Deps = Pick<AppDeps, 'apps' | 'deliver'>;

/** Whether the person may change members (a check Slack cannot answer counts as no). */
function editorOf(app: CometChatApp, userId: string): Promise<boolean> {
  return app.access.canEdit(userId, currentRequest().log);
}

/** The group's card for `userId`; an unknown group is the client's `not_found`. */
export async function groupCardOf(
  deps: Pick<AppDeps, 'apps'>,
  app: CometChatApp,
  guid: string,
  userId: string,
): Promise<SlackMessage> {
  const leaders = (scope: 'admin' | 'moderator') =>
    app.cometchat.listGroupMembers(guid, { scopes: [scope], page: 1, perPage: PER_PAGE });
  const [group, admins, moderators, editor] = await Promise.all([
    app.cometchat.getGroup(guid),
    leaders('admin'),
    leaders('moderator'),
    editorOf(app, userId),
  ]);
  const options = { write: valueWriter(app), appName: appNameIfMultiple(deps.apps, app), editor };
  return groupCard(group, { admins, moderators }, options);
}

/** What Members, its filter and its pages carry back. */
export const MembersValueSchema = z.object({
  g: GuidSchema,
  s: z.enum(GROUP_SCOPES).optional(),
  p: z.number().int().min(1).max(100_000),
});

export const BannedValueSchema = z.object({
  g: GuidSchema,
  p: z.number().int().min(1).max(100_000),
});

/** One page of the group's members (of one scope when filtered). */
export async function membersPageOf(
  deps: Pick<AppDeps, 'apps'>,
  app: CometChatApp,
  value: MembersValue,
  userId: string,
): Promise<SlackMessage> {
  const [page, editor] = await Promise.all([
    app.cometchat.listGroupMembers(value.g, {
      scopes: value.s ? [value.s] : undefined,
      page: value.p,
      perPage: PER_PAGE,
    }),
    editorOf(app, userId),
  ]);
  const options = { write: valueWriter(app), appName: appNameIfMultiple(deps.apps, app), editor };
  return memberPageMessage(value, page, options);
}

/** One page of the users banned from the group. */
export async function bannedPageOf(
  deps: Pick<AppDeps, 'apps'>,
  app: CometChatApp,
  value: { g: string; p: number },
  userId: string,
): Promise<SlackMessage> {
  const [page, editor] = await Promise.all([
    app.cometchat.listBannedMembers(value.g, { page: value.p, perPage: PER_PAGE }),
    editorOf(app, userId),
  ]);
  const options = { write: valueWriter(app), appName: appNameIfMultiple(deps.apps, app), editor };
  return bannedPageMessage(value, page, options);
}

/** One page of the groups a search finds. */
export async function groupListOf(
  deps: Pick<AppDeps, 'apps'>,
  app: CometChatApp,
  search: GroupSearch,
): Promise<SlackMessage> {
  const page = await app.cometchat.listGroups({
    searchKey: search.text,
    type: search.type,
    page: search.page,
    perPage: PER_PAGE,
  });
  return groupListMessage(search, page, {
    write: valueWriter(app),
    appName: appNameIfMultiple(deps.apps, app),
  });
}

const SearchValueSchema = z.object({
  t: z.string().max(100).optional(),
  y: z.enum(GROUP_TYPES).optional(),
  p: z.number().int().min(1).max(100_000),
});

/** A message names a few guids at most worth a card each; the rest would be a flood. */
const CARDS_PER_MESSAGE = 3;

/** "Look up group" on a message: the card of each guid it names, or one sentence. */
function createGroupShortcut(deps: Deps) {
  return async ({ ack, shortcut, respond }: ShortcutArgs<MessageShortcut>) => {
    await ack();
    const app = deps.apps.forChannel(shortcut.channel.id);
    const candidates = findGuidCandidates(shortcut.message.text ?? '').slice(0, CARDS_PER_MESSAGE);
    const cards = await Promise.all(
      candidates.map((guid) =>
        groupCardOf(deps, app, guid, shortcut.user.id).catch((error: unknown) => {
          // A word that is no guid of this app is the common case, not a failure.
          if (error instanceof CometChatError && error.kind === 'not_found') return undefined;
          throw error;
        }),
      ),
    );
    const found = cards.filter((c): c is SlackMessage => c !== undefined);
    const reply = respondOrFallBack(respond, recipientOf(shortcut), deps.deliver);
    currentRequest().log.info(
      { candidates: candidates.length, found: found.length },
      'groups looked up from a message',
    );
    if (found.length === 0) {
      const looked =
        candidates.length > 0 ? ` (looked for ${candidates.map(code).join(', ')})` : '';
      const text = `No CometChat group is named in that message${looked}. Try \`/cometchat group <guid>\`.`;
      return reply({ response_type: 'ephemeral', text });
    }
    for (const card of found) await reply(card);
  };
}

/** Members (and its filter and pages), Banned (and its pages), a list's Card and pages. */
export function registerGroupLookup(bolt: App, deps: AppDeps): void {
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.groupMembersPage}`),
    async (args: ButtonArgs) => {
      const render = (app: CometChatApp, value: MembersValue) =>
        membersPageOf(deps, app, value, args.body.user.id);
      // The card's Members opens below it; a filter or a page replaces the page it was in.
      const first = args.action.action_id === ACTIONS.groupMembersPage;
      const shape = first ? (m: SlackMessage) => m : inPlace;
      await signedButton(deps, MembersValueSchema, render, shape)(args);
    },
  );
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.groupBannedPage}`),
    async (args: ButtonArgs) => {
      const render = (app: CometChatApp, value: { g: string; p: number }) =>
        bannedPageOf(deps, app, value, args.body.user.id);
      const shape =
        args.action.action_id === ACTIONS.groupBannedPage ? (m: SlackMessage) => m : inPlace;
      await signedButton(deps, BannedValueSchema, render, shape)(args);
    },
  );
  bolt.action<BlockAction<ButtonAction>>(ACTIONS.groupDetails, async (args: ButtonArgs) => {
    const render = (app: CometChatApp, value: { g: string }) =>
      groupCardOf(deps, app, value.g, args.body.user.id);
    await signedButton(deps, z.object({ g: GuidSchema }), render, (m) => m)(args);
  });
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.groupsPage}_`),
    async (args: ButtonArgs) => {
      const render = (app: CometChatApp, v: z.infer<typeof SearchValueSchema>) =>
        groupListOf(deps, app, { text: v.t, type: v.y, page: v.p });
      await signedButton(deps, SearchValueSchema, render, inPlace)(args);
    },
  );
  // By type too: a global shortcut with this callback_id carries no message to read.
  bolt.shortcut<MessageShortcut>(
    { callback_id: CALLBACKS.lookupGroupMessage, type: 'message_action' },
    createGroupShortcut(deps),
  );
}
