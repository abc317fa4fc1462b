import {
  type Blocks,
  type FriendQuery,
  type PageQuery,
  toUser,
  type User,
  type UserPage,
  type UserQuery,
} from './model.ts';
import { segment } from './refusals.ts';
import {
  DeactivateUsersResponseSchema,
  ReactivateUsersResponseSchema,
  UserCountResponseSchema,
  UserListResponseSchema,
  UserResponseSchema,
} from './schemas.ts';
import type { Send, Sender } from './send.ts';

// Users, their accounts, friends and blocks, on the REST API's host: `/v3/users`.

export interface UserOperations {
  /** One user, deactivated or not; an unknown uid is `not_found` (`ERR_UID_NOT_FOUND`). */
  getUser(uid: string): Promise<User>;
  /**
   * One page of the users that match, in the service's order; deactivated ones only if asked.
   * `signal` (ky's own) gives the request up, retries and all, when a caller must answer sooner.
   */
  listUsers(query: UserQuery, options?: { signal?: AbortSignal | undefined }): Promise<UserPage>;
  /** How many users hold the role (deactivated ones only with `withDeactivated`). */
  countUsersWithRole(
    role: string,
    options?: { withDeactivated?: boolean | undefined },
  ): Promise<number>;
  /** Gives the user this role (each user has exactly one) and answers the updated user. */
  setUserRole(uid: string, role: string): Promise<User>;
  /** Suspends the users (their data kept); answers the uids the service deactivated. */
  deactivateUsers(uids: readonly string[]): Promise<string[]>;
  /** Lifts the suspension; answers the uids the service reactivated. */
  reactivateUsers(uids: readonly string[]): Promise<string[]>;
  listFriends(uid: string, query?: FriendQuery): Promise<UserPage>;
  /** Whether `other` is among `uid`'s friends (friendship is mutual). */
  areFriends(uid: string, other: string): Promise<boolean>;
  /** The users `uid` blocked (not those who blocked `uid`). */
  listBlockedUsers(uid: string, query?: PageQuery): Promise<UserPage>;
  /** Which of the two blocked the other: both lists are read. */
  blocksBetween(uid: string, other: string): Promise<Blocks>;
}

/** The service's largest page: reading a friend or block list to its end takes fewest trips. */
const MAX_PER_PAGE = 1_000;

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class UserRequests implements UserOperations {
  readonly #send: Send;
  readonly #underOneRef: Sender['underOneRef'];

  constructor({ send, underOneRef }: Sender) {
    this.#send = send;
    this.#underOneRef = underOneRef;
  }

  getUser = async (uid: string) => {
    const { data } = await this.#send('getUser', ({ api }) =>
      api.get(`users/${segment(uid, 'uid')}`).json(UserResponseSchema),
    );
    return toUser(data);
  };

  listUsers = async (query: UserQuery, options: { signal?: AbortSignal | undefined } = {}) => {
    const searchParams = userSearchParams(query);
    const signal = options.signal;
    const { data, meta } = await this.#send('listUsers', ({ api }) =>
      api.get('users', { searchParams, ...(signal && { signal }) }).json(UserListResponseSchema),
    );
    return { users: data.map(toUser), pagination: meta.pagination };
  };

  /** The list's total counts every match, so a page of one counts them in one small answer. */
  countUsersWithRole = async (
    role: string,
    { withDeactivated }: { withDeactivated?: boolean | undefined } = {},
  ) => {
    const searchParams = userSearchParams({ role, withDeactivated, page: 1, perPage: 1 });
    const { meta } = await this.#send('countUsersWithRole', ({ api }) =>
      api.get('users', { searchParams }).json(UserCountResponseSchema),
    );
    return meta.pagination.total;
  };

  setUserRole = async (uid: string, role: string) => {
    const { data } = await this.#send('setUserRole', ({ api }) =>
      api.put(`users/${segment(uid, 'uid')}`, { json: { role } }).json(UserResponseSchema),
    );
    return toUser(data);
  };

  /** Nothing to deactivate asks nothing of the service (which refuses an empty list). */
  deactivateUsers = async (uids: readonly string[]) => {
    if (uids.length === 0) return [];
    const { data } = await this.#send('deactivateUsers', ({ api }) =>
      api.delete('users', { json: { uidsToDeactivate: uids } }).json(DeactivateUsersResponseSchema),
    );
    return data.deactivatedUids;
  };

  reactivateUsers = async (uids: readonly string[]) => {
    if (uids.length === 0) return [];
    const { data } = await this.#send('reactivateUsers', ({ api }) =>
      api.put('users', { json: { uidsToActivate: uids } }).json(ReactivateUsersResponseSchema),
    );
    return data.nonDeactivatedUids;
  };

  listFriends = async (uid: string, query: FriendQuery = {}) => {
    const { searchKey, page, perPage } = query;
    const searchParams = { searchKey: searchKey || undefined, page, perPage };
    const { data, meta } = await this.#send('listFriends', ({ api }) =>
      api
        .get(`users/${segment(uid, 'uid')}/friends`, { searchParams })
        .json(UserListResponseSchema),
    );
    return { users: data.map(toUser), pagination: meta.pagination };
  };

  listBlockedUsers = async (uid: string, query: PageQuery = {}) => {
    const searchParams = { page: query.page, perPage: query.perPage };
    const { data, meta } = await this.#send('listBlockedUsers', ({ api }) =>
      api
        .get(`users/${segment(uid, 'uid')}/blockedusers`, { searchParams })
        .json(UserListResponseSchema),
    );
    return { users: data.map(toUser), pagination: meta.pagination };
  };

  /**
   * A friend list can run to thousands; `searchKey` (a prefix of a uid or a name) narrows it on
   * the service's side to the few that start like `other`, so one short page settles it instead
   * of the whole list. The search matches names too and prefixes only, hence the exact uid match.
   */
  areFriends = (uid: string, other: string) =>
    this.#underOneRef(() =>
      onSomePage(
        (page) => this.listFriends(uid, { searchKey: other, page, perPage: MAX_PER_PAGE }),
        (user) => user.uid === other,
      ),
    );

  /** The block list holds whom a user blocked, so each direction needs its own user's list. */
  blocksBetween = (uid: string, other: string) =>
    this.#underOneRef(async () => {
      const blocked = (by: string, whom: string) =>
        onSomePage(
          (page) => this.listBlockedUsers(by, { page, perPage: MAX_PER_PAGE }),
          (user) => user.uid === whom,
        );
      const [uidBlockedOther, otherBlockedUid] = await Promise.all([
        blocked(uid, other),
        blocked(other, uid),
      ]);
      return { uidBlockedOther, otherBlockedUid };
    });
}

/** The list's filters as query parameters: only those asked for, flags only when true. */
export function userSearchParams(query: UserQuery): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const key of ['searchKey', 'role', 'status'] as const) {
    const value = query[key];
    if (value) params[key] = value;
  }
  if (query.onlyDeactivated) params.onlyDeactivated = 'true';
  if (query.withDeactivated) params.withDeactivated = 'true';
  params.page = query.page;
  params.perPage = query.perPage;
  return params;
}

/**
 * Whether a user on one of the pages is `wanted`, reading page after page (under one
 * reference) until one is, or the pages run out.
 */
async function onSomePage(
  pageOf: (page: number) => Promise<UserPage>,
  wanted: (user: User) => boolean,
): Promise<boolean> {
  for (let page = 1; ; page += 1) {
    const { users, pagination } = await pageOf(page);
    if (users.some(wanted)) return true;
    if (users.length === 0 || page >= pagination.total_pages) return false;
  }
}
