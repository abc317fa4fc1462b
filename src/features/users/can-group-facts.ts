import type { Logger } from 'pino';
import type { CometChatApp } from '../../apps/apps.ts';
import type { AccountOperations } from '../../cometchat/account-model.ts';
import { GROUP_SCOPES, type GroupOperations } from '../../cometchat/group-model.ts';
import { readScopeCatalogue } from '../../cometchat/scope-catalogue.ts';
import { currentRequest } from '../../request-context.ts';
import { type KnownPermissions, knownScopeKey } from '../../store/store.ts';
import type { SharedDeps } from '../deps.ts';
import { type CanPerson, canPerson } from './can.ts';
import {
  type GroupCanFacts,
  type Membership,
  type ScopeValues,
  scopeDecides,
  scopeDefinitionsNeeded,
} from './can-in-group.ts';
import { knownOf } from './known-permissions.ts';

// The facts "can ... in <guid>" needs, asked of CometChat and the store, only those the walk
// will use: the group (an unknown one fails here, with CometChat's sentence), whether the user is
// in it and with which scope, the banned list only for someone who is not (a ban removes a
// member), and the scope's values only for a member.

export type GroupReads = Pick<
  GroupOperations,
  'getGroup' | 'listBannedMembers' | 'listScopePermissionDefinitions'
> &
  Pick<AccountOperations, 'listUserGroups'>;

export interface GroupFactsDeps {
  cometchat: GroupReads;
  /** The map this app last set for the group's scope (the scope editor keeps it), if any. */
  knownScope(guid: string, scope: string): Promise<KnownPermissions | undefined>;
  log: Pick<Logger, 'warn'>;
}

/** The service's largest page; a banned list longer than this many pages is not read whole. */
const BANNED_PER_PAGE = 1_000;
const BANNED_PAGES = 10;

/**
 * Every fact of "can <uid> <action> in <guid>": the user and what is known of their role (as
 * "can" reads them), then the group's.
 */
export async function readCanInGroup(
  deps: Pick<SharedDeps, 'store'>,
  app: CometChatApp,
  ask: { uid: string; action: string; group: string },
): Promise<GroupCanFacts> {
  const subject = canPerson(await app.cometchat.getUser(ask.uid));
  const values = { known: await knownOf(deps, app, subject.role) };
  const reads: GroupFactsDeps = {
    cometchat: app.cometchat,
    // The scope editor keeps a scope's last map where a role's is, under a key no role has.
    knownScope: (guid, scope) => knownOf(deps, app, knownScopeKey(guid, scope)),
    log: currentRequest().log,
  };
  const group = await readGroupFacts(reads, ask.group, ask.action, subject);
  return { action: ask.action, subject, values, ...group };
}

export async function readGroupFacts(
  deps: GroupFactsDeps,
  guid: string,
  action: string,
  subject: CanPerson,
): Promise<Pick<GroupCanFacts, 'group' | 'membership' | 'scope'>> {
  const found = await deps.cometchat.getGroup(guid);
  const group = { guid: found.guid, type: found.type };
  const membership = await readMembership(deps, group.guid, subject);
  const scope =
    membership.kind === 'member' ? await readScope(deps, group.guid, membership, action) : {};
  return { group, membership, scope };
}

async function readMembership(
  deps: GroupFactsDeps,
  guid: string,
  subject: CanPerson,
): Promise<Membership> {
  // CometChat answers a deactivated user's groups with `ERR_UID_NOT_FOUND`; the account decides.
  if (subject.deactivated) return { kind: 'not-asked', why: 'the account is deactivated' };
  const groups = await deps.cometchat.listUserGroups(subject.uid);
  const mine = groups.find((group) => group.guid === guid);
  if (mine) return { kind: 'member', scope: mine.scope };
  return { kind: 'not-member', banned: await isBanned(deps.cometchat, guid, subject.uid) };
}

/** Whether the banned list names `uid`; undefined when it is too long to read whole. */
async function isBanned(
  cometchat: Pick<GroupOperations, 'listBannedMembers'>,
  guid: string,
  uid: string,
): Promise<boolean | undefined> {
  for (let page = 1; page <= BANNED_PAGES; page += 1) {
    const { banned, pagination } = await cometchat.listBannedMembers(guid, {
      page,
      perPage: BANNED_PER_PAGE,
    });
    if (banned.some((user) => user.uid === uid)) return true;
    if (banned.length === 0 || page >= pagination.total_pages) return false;
  }
  return undefined;
}

/**
 * The scope's values: the map this app last set, and the scope's keys with their defaults (as the
 * scope editor reads them) when that map does not name the action. Keys that cannot be read are
 * logged, and the shipped ones stand in, as the editor does.
 */
async function readScope(
  deps: GroupFactsDeps,
  guid: string,
  membership: { scope?: string | undefined },
  action: string,
): Promise<ScopeValues> {
  const scope = GROUP_SCOPES.find((one) => one === membership.scope);
  if (scope === undefined || !scopeDecides(action)) return {};
  const known = await deps.knownScope(guid, scope);
  if (!scopeDefinitionsNeeded(action, known)) return { known };
  const catalogue = await readScopeCatalogue(deps.cometchat, guid, scope, (error) =>
    deps.log.warn({ err: error, scope }, "scope's definitions not read; the shipped keys stand in"),
  );
  return { known, catalogue };
}
