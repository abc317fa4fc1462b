import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { appNameIfMultiple, type CometChatApp, openSigned, valueWriter } from '../../apps/apps.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { accountOf } from '../../cometchat/model.ts';
import { currentRequest } from '../../request-context.ts';
import { recipientOf, respondOrFallBack, type SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { PageSchema } from '../../slack/values.ts';
import type { FeatureDeps, SharedDeps } from '../deps.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import { type CanFacts, canPerson, explainCan, factsNeeded } from './can.ts';
import { readCanInGroup } from './can-group-facts.ts';
import { explainCanInGroup } from './can-in-group.ts';
import { canMessage } from './can-view.ts';
import { knownOf } from './known-permissions.ts';
import type { SessionsRead } from './sessions-view.ts';
import { userCardMessage } from './user-card.ts';
import { USERS_PER_PAGE, userListMessage } from './user-list-view.ts';
import { UidValue } from './user-values.ts';
import type { UserSearch } from './user-words.ts';

// The user side read from CometChat: a user's card, the user search, and "can". Each render is
// a function of the app and what was asked; the listeners only deliver what they return.

export type UserDeps = FeatureDeps & Pick<SharedDeps, 'store' | 'now'>;

/**
 * The user's sessions for their card; never a failure of the card. CometChat answers a
 * deactivated user's uid with `ERR_UID_NOT_FOUND` here, which only the user, read beside it, tells
 * apart from a failure.
 */
async function readSessions(
  app: CometChatApp,
  uid: string,
): Promise<SessionsRead | { kind: 'not_found' }> {
  try {
    return { kind: 'read', sessions: await app.cometchat.listSessions(uid) };
  } catch (error) {
    if (isCometChatError(error) && error.kind === 'not_found') return { kind: 'not_found' };
    currentRequest().log.warn({ err: error }, 'sessions not read; the card shows the rest');
    return { kind: 'failed' };
  }
}

/**
 * The card of `uid` for `viewer`: the user, their role's record (for its name), their sessions,
 * what is known of the role, and the change buttons when the viewer may change the app's users
 * (asked again when they are used).
 */
export function createUserCard(deps: UserDeps) {
  return async (app: CometChatApp, uid: string, viewer: string): Promise<SlackMessage> => {
    const [user, roles, refusal, sessions] = await Promise.all([
      app.cometchat.getUser(uid),
      // The role's name only: a role list that fails leaves the card its id.
      app.cometchat.listAllRoles().catch(() => []),
      app.access.editRefusal(viewer, currentRequest().log),
      readSessions(app, uid),
    ]);
    const deactivated = accountOf(user) === 'deactivated';
    const read: SessionsRead =
      sessions.kind === 'not_found' ? { kind: deactivated ? 'deactivated' : 'failed' } : sessions;
    return userCardMessage(user, {
      role: roles.find((role) => role.role === user.role),
      known: await knownOf(deps, app, user.role),
      write: valueWriter(app),
      appName: appNameIfMultiple(deps.apps, app),
      appId: app.appId,
      editor: refusal === undefined,
      sessions: { read, nowSeconds: Math.floor(deps.now() / 1000) },
    });
  };
}

/** One page of the search. */
export function createUserList(deps: Pick<FeatureDeps, 'apps'>) {
  return async (app: CometChatApp, search: UserSearch) => {
    const page = await app.cometchat.listUsers({
      searchKey: search.text,
      role: search.role,
      onlyDeactivated: search.deactivated || undefined,
      page: search.page,
      perPage: USERS_PER_PAGE,
    });
    return userListMessage(page, search, {
      write: valueWriter(app),
      appName: appNameIfMultiple(deps.apps, app),
    });
  };
}

export interface CanAsk {
  uid: string;
  action: string;
  target?: string | undefined;
  /** The group the question is asked in (`in <guid>`). */
  group?: string | undefined;
}

/** The facts "can" needs, asked of CometChat and the store, only those the walk will use. */
export async function canFacts(deps: UserDeps, app: CometChatApp, ask: CanAsk): Promise<CanFacts> {
  const [subject, target] = await Promise.all([
    app.cometchat.getUser(ask.uid),
    ask.target === undefined ? undefined : app.cometchat.getUser(ask.target),
  ]);
  const known = await knownOf(deps, app, subject.role);
  const values = { known };
  const needed = factsNeeded(ask.action, values, target !== undefined);
  const [friends, blocks] = await Promise.all([
    needed.friends && target ? app.cometchat.areFriends(subject.uid, target.uid) : undefined,
    needed.blocks && target ? app.cometchat.blocksBetween(subject.uid, target.uid) : undefined,
  ]);
  return {
    action: ask.action,
    subject: canPerson(subject),
    target: target && canPerson(target),
    values,
    friends,
    blocked: blocks && { bySubject: blocks.uidBlockedOther, byTarget: blocks.otherBlockedUid },
  };
}

/** "Can <uid> <action> [<uid> | in <guid>]": the walk, explained. */
export function createCan(deps: UserDeps) {
  return async (app: CometChatApp, ask: CanAsk): Promise<SlackMessage> => {
    const explanation =
      ask.group === undefined
        ? explainCan(await canFacts(deps, app, ask))
        : explainCanInGroup(await readCanInGroup(deps, app, { ...ask, group: ask.group }));
    currentRequest().log.info(
      { action: ask.action, conclusion: explanation.conclusion.kind },
      'user permission explained',
    );
    return canMessage({ ...ask, appName: appNameIfMultiple(deps.apps, app) }, explanation);
  };
}

const SearchValue = z.object({
  s: z.object({
    text: z.string().max(100).optional(),
    role: z.string().max(100).optional(),
    deactivated: z.boolean(),
  }),
  page: PageSchema,
});
export type UsersPageValue = z.infer<typeof SearchValue>;

export function registerUserLookup(bolt: App, deps: UserDeps): void {
  const card = createUserCard(deps);
  const list = createUserList(deps);
  // Details: the card, for the person who clicked (their buttons), beside the list.
  bolt.action<BlockAction<ButtonAction>>(
    ACTIONS.userDetails,
    async ({ ack, body, action, respond }: ButtonArgs) => {
      await ack();
      const { app, value } = openSigned(deps.apps, UidValue, action.value);
      const message = await card(app, value.uid, body.user.id);
      const reply = respondOrFallBack(respond, recipientOf(body), deps.deliver);
      await reply({ ...message, replace_original: false });
    },
  );
  bolt.action<BlockAction<ButtonAction>>(
    new RegExp(`^${ACTIONS.usersPage}`),
    signedButton(deps, SearchValue, (app, { s, page }) => list(app, { ...s, page }), inPlace),
  );
}
