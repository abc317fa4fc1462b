import { z } from 'zod';
import { accountMessages, loadAccounts } from './account-seed.ts';
import { loadModeration } from './moderation-seed.ts';
import { checkPermissionUpdate } from './permission-catalogue.ts';
import { generatePresenterCall } from './presenter-call.ts';
import {
  RECENT_CALLS_UID,
  RECENT_USERS,
  recentCalls,
  SECOND_RECENT_USERS,
} from './recent-calls.ts';
import { startRolePermissions, writePermissions } from './role-permissions.ts';
import accountsJson from './seed/accounts.json' with { type: 'json' };
import callsJson from './seed/calls.json' with { type: 'json' };
import moderationJson from './seed/moderation.json' with { type: 'json' };
import rolePermissionsJson from './seed/role-permissions.json' with { type: 'json' };
import rolesJson from './seed/roles.json' with { type: 'json' };
import secondAccountsJson from './seed/second/accounts.json' with { type: 'json' };
import secondCallsJson from './seed/second/calls.json' with { type: 'json' };
import secondModerationJson from './seed/second/moderation.json' with { type: 'json' };
import secondRolePermissionsJson from './seed/second/role-permissions.json' with { type: 'json' };
import secondRolesJson from './seed/second/roles.json' with { type: 'json' };
import secondUsersJson from './seed/second/users.json' with { type: 'json' };
import usersJson from './seed/users.json' with { type: 'json' };
import {
  type ChatMessage,
  RoleSchema,
  type SandboxState,
  type SeededCall,
  SeededCallSchema,
  UserSchema,
} from './state.ts';

/** The seeded calls by what they are; README.md describes each. */
export const SANDBOX_SESSION_IDS = Object.freeze({
  /** 1:1 audio call that ended; both participants `ended`; `data` is an array. */
  audioEnded: 'v1.us.sandbox-app.1700000000abcdef0001',
  /** 1:1 video call the receiver never answered; `data` is an object. */
  unanswered: 'v1.us.sandbox-app.1700003600abcdef0002',
  /** 1:1 video call the receiver rejected; `data` is an array. */
  videoRejected: 'v1.us.sandbox-app.1700007200abcdef0003',
  /** Ongoing group meeting, 12 participants in every state; `data` is an object. */
  groupOngoing: 'v1.us.sandbox-app.1700010800abcdef0004',
  /** Ended 1:1 video call with two recordings; `data` is an array. */
  withRecordings: 'v1.us.sandbox-app.1700014400abcdef0005',
  /** Presenter-mode call with 300 generated participants; `data` is an object. */
  presenter300: 'v1.us.sandbox-app.1700018000abcdef0006',
  /** No `data.entities`; participant names carry Slack mention syntax; `data` is an array. */
  noEntities: 'v1.us.sandbox-app.1700021600abcdef0007',
  /**
   * An id a client SDK chose freely: a space, `#`, `?`, `&`, a literal `%25` and a non-ASCII
   * letter. Found only when the client encodes it as one path segment, exactly once.
   */
  customId: 'support room #42?x=1&y=50%25 é',
} as const);

export type SandboxSessionName = keyof typeof SANDBOX_SESSION_IDS;

/**
 * The calls of the second seed (`seed/second/`), the app the sandbox plays when it stands in for
 * a second CometChat app: none of them is known to the default seed, and the other way round.
 */
export const SECOND_SANDBOX_SESSION_IDS = Object.freeze({
  /** 1:1 video call between a support agent and a customer, ended; `data` is an object. */
  videoEnded: 'v1.us.sandbox-app-2.1701000000abcdef0101',
  /** Ended group audio call, one recording, a participant without avatar; `data` is an array. */
  groupRecorded: 'v1.us.sandbox-app-2.1701003600abcdef0102',
  /** 1:1 audio call still going on (no `endedAt`, no `leftAt`); `data` is an array. */
  audioOngoing: 'v1.us.sandbox-app-2.1701007200abcdef0103',
} as const);

export type SecondSandboxSessionName = keyof typeof SECOND_SANDBOX_SESSION_IDS;

/**
 * The seeds, by name: which data a sandbox starts with. `default` is the seed every test has
 * always used; `second` is a smaller, different app (some role ids shared with other names and
 * permissions, some roles only in one of the two, calls of its own), so two sandboxes can play
 * two apps.
 */
export const SANDBOX_SEED_NAMES = Object.freeze(['default', 'second'] as const);
export type SandboxSeedName = (typeof SANDBOX_SEED_NAMES)[number];

export interface SandboxSeed {
  /** The app id the seeded session ids and recording URLs name. */
  appId: string;
  /** The region the seeded session ids name (`v1.<region>.<appId>.…`). */
  region: string;
  sessionIds: Readonly<Record<string, string>>;
}

/** What each seed stands for, so whoever starts a sandbox can describe its app truthfully. */
export const SANDBOX_SEEDS: Readonly<Record<SandboxSeedName, SandboxSeed>> = Object.freeze({
  default: Object.freeze({ appId: 'sandbox-app', region: 'us', sessionIds: SANDBOX_SESSION_IDS }),
  second: Object.freeze({
    appId: 'sandbox-app-2',
    region: 'us',
    sessionIds: SECOND_SANDBOX_SESSION_IDS,
  }),
});

interface SeedData {
  roles: unknown;
  rolePermissions: unknown;
  calls: unknown;
  /** The users, their friendships (each pair once) and their blocks (who blocked whom). */
  users: unknown;
  /** Flagged, blocked and reviewed messages, the rules and their revisions. */
  moderation: unknown;
  /** Auth tokens, groups, members, bans and hand-written chat messages. */
  accounts: unknown;
  /** Chat messages too many to write out by hand, the same on every load. */
  generatedMessages: () => ChatMessage[];
  /**
   * Calls too large or too time-bound to write out by hand, made afresh on every load; recent
   * ones are dated back from `startedAt` (Unix seconds).
   */
  generated: (startedAt: number) => SeededCall[];
}

const SEED_DATA: Record<SandboxSeedName, SeedData> = {
  default: {
    roles: rolesJson,
    rolePermissions: rolePermissionsJson,
    calls: callsJson,
    users: usersJson,
    moderation: moderationJson,
    accounts: accountsJson,
    generatedMessages: accountMessages,
    generated: (startedAt) => [
      { shape: 'object', record: generatePresenterCall(SANDBOX_SESSION_IDS.presenter300) },
      ...recentCalls({
        appId: 'sandbox-app',
        region: 'us',
        users: RECENT_USERS,
        busyUid: RECENT_CALLS_UID,
        count: 64,
        startedAt,
        seedNumber: 1,
      }),
    ],
  },
  second: {
    roles: secondRolesJson,
    rolePermissions: secondRolePermissionsJson,
    calls: secondCallsJson,
    users: secondUsersJson,
    moderation: secondModerationJson,
    accounts: secondAccountsJson,
    generatedMessages: () => [],
    generated: (startedAt) =>
      recentCalls({
        appId: 'sandbox-app-2',
        region: 'us',
        users: SECOND_RECENT_USERS,
        busyUid: 'prod-customer-1',
        count: 20,
        startedAt,
        seedNumber: 2,
      }),
  },
};

const RolesSeedSchema = z.array(RoleSchema).min(1);
const RolePermissionsSeedSchema = z.record(z.string(), z.record(z.string(), z.unknown()));
const CallsSeedSchema = z.array(SeededCallSchema);
const UsersSeedSchema = z.strictObject({
  users: z.array(UserSchema).min(1),
  friendships: z.array(z.tuple([z.string(), z.string()])),
  blocks: z.array(z.strictObject({ blocker: z.string(), blocked: z.string() })),
});

/**
 * A fresh copy of a seed (the default one unless named): the hand-written data files (parsed,
 * so a typo in them fails loudly here rather than as a puzzling response) plus any generated
 * calls. Every call returns new objects, so sandboxes never share state.
 */
export function loadSeed(
  seed: SandboxSeedName = 'default',
  startedAt: number = Math.floor(Date.now() / 1000),
): SandboxState {
  const data = SEED_DATA[seed];
  // An unknown name from untyped code would otherwise fail below as a puzzling TypeError.
  if (data === undefined) throw new TypeError(`seed: no seed named "${String(seed)}"`);
  const where = `seed "${seed}"`;
  const roles = RolesSeedSchema.parse(structuredClone(data.roles));
  const roleIds = new Set(roles.map((r) => r.role));
  if (!roleIds.has('default')) throw new Error(`${where}: the role "default" must exist`);
  if (roleIds.size !== roles.length) throw new Error(`${where}: a role id is listed twice`);

  const seeded: SeededCall[] = [
    ...CallsSeedSchema.parse(structuredClone(data.calls)),
    ...data.generated(startedAt),
  ];
  const calls = new Map(seeded.map((call) => [call.record.sessionId, call]));
  if (calls.size !== seeded.length) throw new Error(`${where}: a session id is listed twice`);
  for (const [name, id] of Object.entries(SANDBOX_SEEDS[seed].sessionIds)) {
    if (!calls.has(id)) throw new Error(`${where}: no call for its session id "${name}"`);
  }
  const people = loadUsers(data.users, roleIds, where);
  const state: SandboxState = {
    roles,
    permissions: new Map(),
    explicitPermissionKeys: new Map(),
    calls,
    callMessages: new Map(),
    callList: { perPage: true, paging: true },
    ...people,
    moderation: loadModeration(data.moderation, where),
    accounts: loadAccounts(data.accounts, people.users, data.generatedMessages(), where),
  };
  loadPermissions(state, data.rolePermissions, where);
  return state;
}

/**
 * Every role starts from the catalogue defaults; the seed's maps are written on top as keys set
 * explicitly, so they can be unset like any written since.
 */
function loadPermissions(state: SandboxState, data: unknown, where: string): void {
  const roleIds = new Set(state.roles.map((r) => r.role));
  for (const role of roleIds) startRolePermissions(state, role);
  const overrides = RolePermissionsSeedSchema.parse(structuredClone(data));
  for (const [role, update] of Object.entries(overrides)) {
    if (!roleIds.has(role)) throw new Error(`${where}: permissions for unknown role "${role}"`);
    const checked = checkPermissionUpdate(update, roleIds);
    if (!checked.ok) {
      throw new Error(
        `${where}: bad permissions for "${role}": ${JSON.stringify(checked.details)}`,
      );
    }
    writePermissions(state, role, checked.permissions);
  }
}

/** The seed's users by uid, and their relations as sets, after checking they hold together. */
function loadUsers(
  data: unknown,
  roleIds: ReadonlySet<string>,
  where: string,
): Pick<SandboxState, 'users' | 'friends' | 'blocked'> {
  const seed = UsersSeedSchema.parse(structuredClone(data));
  const users = new Map(seed.users.map((user) => [user.uid, user]));
  if (users.size !== seed.users.length) throw new Error(`${where}: a uid is listed twice`);
  for (const user of seed.users) {
    if (!roleIds.has(user.role))
      throw new Error(`${where}: "${user.uid}" has no role "${user.role}"`);
  }
  const friends = new Map<string, Set<string>>();
  const blocked = new Map<string, Set<string>>();
  const relate = (map: Map<string, Set<string>>, from: string, to: string) => {
    if (!users.has(from) || !users.has(to) || from === to) {
      throw new Error(`${where}: a relation between "${from}" and "${to}" names no other user`);
    }
    map.set(from, (map.get(from) ?? new Set()).add(to));
  };
  for (const [a, b] of seed.friendships) {
    relate(friends, a, b);
    relate(friends, b, a);
  }
  for (const { blocker, blocked: whom } of seed.blocks) relate(blocked, blocker, whom);
  return { users, friends, blocked };
}
