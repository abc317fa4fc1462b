import {
  isHTTPError,
  isTimeoutError,
  type KyInstance,
  SchemaValidationError,
  type StandardSchemaV1,
  type StandardSchemaV1InferOutput,
  type StandardSchemaV1Issue,
} from 'ky';
import type { Logger } from 'pino';
import { systemCodeOf } from '../error-cause.ts';
import { scrub } from '../log.ts';
import { newReference } from '../reference.ts';
import { inSpan } from '../spans.ts';
import { AnswerTooLarge } from './answer-cap.ts';
import {
  type CometChatAddress,
  CometChatError,
  type CometChatErrorInit,
  isMisaddressed,
  kindForStatus,
} from './errors.ts';
import { fitsHeader } from './header-value.ts';
import { createHostKy } from './ky-instance.ts';
import {
  type Blocks,
  type Call,
  type CallPage,
  type CallQuery,
  type FriendQuery,
  type PageQuery,
  type PermissionUpdate,
  type Role,
  type RolePage,
  toCall,
  toCallPage,
  toPermissionUpdate,
  toUsage,
  toUser,
  type Usage,
  type UsageRange,
  type User,
  type UserPage,
  type UserQuery,
} from './model.ts';
import type { CometChatObserver } from './observer.ts';
import {
  CallListResponseSchema,
  CallMessageResponseSchema,
  CallResponseSchema,
  DeactivateUsersResponseSchema,
  ErrorBodySchema,
  type PermissionDefinition,
  PermissionDefinitionListResponseSchema,
  type PermissionMap,
  PermissionUpdateResponseSchema,
  ReactivateUsersResponseSchema,
  RoleDeletedResponseSchema,
  RoleListResponseSchema,
  RoleResponseSchema,
  UsageResponseSchema,
  UserCountResponseSchema,
  UserListResponseSchema,
  UserResponseSchema,
} from './schemas.ts';
import { serverWaitMs } from './server-wait.ts';
import { causeOf, Trip, type TripSettings } from './trip.ts';

// The CometChat REST API through ky: one ky instance per host (ky-instance.ts), one Trip per
// request for what ky is told about that request (trip.ts), and here what the app asks of the
// service and how a failure becomes a CometChatError.

export interface CometChatClientOptions {
  /** Role API address without `/v3`. */
  apiUrl: string;
  /** Call API address without `/v3`. */
  callApiUrl: string;
  apiKey: string;
  /**
   * Every secret the app holds (Config.secrets, the logger's list): taken out of the service's
   * words with the key, whichever one it echoes back.
   */
  secrets?: readonly string[] | undefined;
  /** Per attempt. */
  timeoutMs: number;
  /** All attempts and back-off waits together. */
  budgetMs: number;
  logger: Logger;
  /** Retries after the first attempt (default 3). */
  retryLimit?: number;
  /** What ky sends with (default: the global fetch). */
  fetch?: typeof fetch;
  newRef?: () => string;
  /** The clock the time budget and server-given waits are judged by (default `Date.now`). */
  now?: () => number;
  /** A number in [0, 1) for the back-off jitter (default `Math.random`). */
  random?: () => number;
  /** Told of every request's duration and status, each retry and each 429 (metrics). */
  observe?: CometChatObserver;
}

export interface RequestOptions {
  /** Reference id shared with the user-facing reply and the logs; one is made if absent. */
  ref?: string | undefined;
  logger?: Logger | undefined;
}

export interface CometChatClient {
  listRoles(
    query?: { page?: number; perPage?: number },
    options?: RequestOptions,
  ): Promise<RolePage>;
  /**
   * Every role, page by page (`perPage` default 100: one page holds the service's 25 at most).
   * `fresh` asks past any cache in front of the client (role-cache.ts): for a check that a change
   * is still as reviewed, which a list kept from the review itself could not make.
   */
  listAllRoles(
    options?: RequestOptions & { perPage?: number | undefined; fresh?: boolean | undefined },
  ): Promise<Role[]>;
  setRolePermissions(
    role: string,
    permissions: PermissionMap,
    options?: RequestOptions,
  ): Promise<PermissionUpdate>;
  /** The service's definitions of the permission keys (titles, values, defaults), every page. */
  listPermissionDefinitions(
    role: string,
    options?: RequestOptions,
  ): Promise<PermissionDefinition[]>;
  /** Creates a role; answers it as the service stored it (the service lower-cases the id). */
  createRole(role: NewRole, options?: RequestOptions): Promise<Role>;
  /** Renames or describes a role (an empty description unsets it); answers the role. */
  updateRole(role: string, update: RoleUpdate, options?: RequestOptions): Promise<Role>;
  /** Deletes a role (the service refuses `default`); answers whether the service says it did. */
  deleteRole(
    role: string,
    options?: RequestOptions,
  ): Promise<{ success: boolean; message: string }>;
  /** Unsets one key of a role (back to its default); answers the role's map after. */
  unsetRolePermission(
    role: string,
    key: string,
    options?: RequestOptions,
  ): Promise<PermissionUpdate>;
  getCall(
    sessionId: string,
    options?: RequestOptions & { onBehalfOf?: string | undefined },
  ): Promise<Call>;
  /**
   * The session a call's message rang for (`GET /v3/messages/{id}` on the API host): how a
   * ringing outcome, which names its message, finds its call. Undefined when the message names
   * none (it is not a call's).
   */
  getCallMessageSession(messageId: string, options?: RequestOptions): Promise<string | undefined>;
  /** One page of the calls that match, newest first. */
  listCalls(
    query: CallQuery,
    options?: RequestOptions & { onBehalfOf?: string | undefined },
  ): Promise<CallPage>;
  /** The app's usage over the range: audio, video and recorded minutes, active and concurrent users. */
  getUsage(range: UsageRange, options?: RequestOptions): Promise<Usage>;
  /** One user, deactivated or not; an unknown uid is `not_found` (`ERR_UID_NOT_FOUND`). */
  getUser(uid: string, options?: RequestOptions): Promise<User>;
  /** One page of the users that match, in the service's order; deactivated ones only if asked. */
  listUsers(query: UserQuery, options?: RequestOptions): Promise<UserPage>;
  /** How many users hold the role (deactivated ones only with `withDeactivated`). */
  countUsersWithRole(
    role: string,
    options?: RequestOptions & { withDeactivated?: boolean | undefined },
  ): Promise<number>;
  /** Gives the user this role (each user has exactly one) and answers the updated user. */
  setUserRole(uid: string, role: string, options?: RequestOptions): Promise<User>;
  /** Suspends the users (their data kept); answers the uids the service deactivated. */
  deactivateUsers(uids: readonly string[], options?: RequestOptions): Promise<string[]>;
  /** Lifts the suspension; answers the uids the service reactivated. */
  reactivateUsers(uids: readonly string[], options?: RequestOptions): Promise<string[]>;
  listFriends(uid: string, query?: FriendQuery, options?: RequestOptions): Promise<UserPage>;
  /** Whether `other` is among `uid`'s friends (friendship is mutual). */
  areFriends(uid: string, other: string, options?: RequestOptions): Promise<boolean>;
  /** The users `uid` blocked (not those who blocked `uid`). */
  listBlockedUsers(uid: string, query?: PageQuery, options?: RequestOptions): Promise<UserPage>;
  /** Which of the two blocked the other: both lists are read. */
  blocksBetween(uid: string, other: string, options?: RequestOptions): Promise<Blocks>;
}

/** A role to create: `POST /v3/roles`. */
export interface NewRole {
  role: string;
  name: string;
  description?: string | undefined;
}

/** What `PUT /v3/roles/{role}` changes; a field left out is left as it is. */
export interface RoleUpdate {
  name?: string | undefined;
  /** An empty description unsets it. */
  description?: string | undefined;
}

const MAX_ERROR_BODY = 64 * 1024;

/** What `send` asks of the service, as ky options. */
interface Outgoing {
  /**
   * `delete` deactivates users or removes a role: it changes something, as a `put` does; `post`
   * creates a role (ky never retries it: a repeat would create it twice, or be refused).
   */
  method: 'get' | 'put' | 'post' | 'delete';
  headers?: Record<string, string>;
  searchParams?: Record<string, string | number>;
  /** Sent as JSON, with its content type. */
  json?: unknown;
}

/**
 * The live service has two hosts: the REST API's (roles, permissions, users) and the calls'.
 * A failure names which one, so a wrong setting can be named.
 */
type Host = CometChatAddress;

/** One request, its body parsed by `schema`; any failure thrown as a CometChatError. */
type Send = <S extends StandardSchemaV1>(
  host: Host,
  operation: string,
  path: string,
  outgoing: Outgoing,
  schema: S,
  request: RequestOptions,
) => Promise<StandardSchemaV1InferOutput<S>>;

/** What every operation of one client shares. */
interface Context {
  send: Send;
  newRef: () => string;
}

type OnBehalf = RequestOptions & { onBehalfOf?: string | undefined };

export function createCometChatClient(options: CometChatClientOptions): CometChatClient {
  const newRef = options.newRef ?? newReference;
  const context: Context = { send: createSend(options, newRef), newRef };
  // Arrows over `context`, not methods over `this`: a caller may well pass one around on its own.
  return {
    listRoles: (query = {}, request = {}) => listRoles(context, query, request),
    listAllRoles: (request = {}) => listAllRoles(context, request),
    setRolePermissions: (role, permissions, request = {}) =>
      setRolePermissions(context, role, permissions, request),
    ...roleOperations(context),
    getCall: (sessionId, request = {}) => getCall(context, sessionId, request),
    getCallMessageSession: (messageId, request = {}) =>
      getCallMessageSession(context, messageId, request),
    listCalls: (query, request = {}) => listCalls(context, query, request),
    getUsage: (range, request = {}) => getUsage(context, range, request),
    ...userOperations(context),
  };
}

/** The client's one way to the service: a ky instance per host, a Trip per request. */
function createSend(options: CometChatClientOptions, newRef: () => string): Send {
  const now = options.now ?? Date.now;
  const settings: TripSettings = {
    timeoutMs: options.timeoutMs,
    budgetMs: options.budgetMs,
    retryLimit: options.retryLimit ?? 3,
    now,
    random: options.random ?? Math.random,
    observe: options.observe,
  };
  const withoutSecrets = secretsRemover([options.apiKey, ...(options.secrets ?? [])]);
  const host = (url: string) =>
    createHostKy({
      url,
      apiKey: options.apiKey,
      timeoutMs: settings.timeoutMs,
      budgetMs: settings.budgetMs,
      retryLimit: settings.retryLimit,
      fetch: options.fetch,
    });
  const apis: Record<Host, KyInstance> = {
    api: host(options.apiUrl),
    call: host(options.callApiUrl),
  };
  return async (api, operation, path, outgoing, schema, request) => {
    const parent = request.logger ?? options.logger;
    // A change (a PUT, or the DELETE that deactivates) that a gateway failed may still have
    // been made: the trip says so on its failure.
    const changes = outgoing.method !== 'get';
    const trip = new Trip(request.ref ?? newRef(), operation, parent, settings, changes);
    const attributes = { 'cometchat.operation': operation, 'cometchat_ops.ref': trip.ref };
    return inSpan(`CometChat ${operation}`, 'client', attributes, async () => {
      try {
        const body = await apis[api](path, { ...outgoing, ...trip.kyOptions() }).json(schema);
        trip.succeeded();
        return body;
      } catch (error) {
        const failure = toCometChatError(error, trip, withoutSecrets, now, api);
        trip.failed(failure);
        throw failure;
      }
    });
  };
}

/**
 * A service may echo what it was sent (`the apikey ... is not valid`), or any other secret: its
 * words are shown to people, kept in the audit trail and logged, so every secret is taken out
 * of them first.
 */
function secretsRemover(secrets: readonly string[]): (text: string) => string {
  return (text) => scrub(text, secrets);
}

async function listRoles(
  { send }: Context,
  query: { page?: number; perPage?: number },
  request: RequestOptions,
): Promise<RolePage> {
  const searchParams: Record<string, number> = {};
  if (query.page !== undefined) searchParams.page = query.page;
  if (query.perPage !== undefined) searchParams.perPage = query.perPage;
  const body = await send(
    'api',
    'listRoles',
    'roles',
    { method: 'get', searchParams },
    RoleListResponseSchema,
    request,
  );
  return { roles: body.data, pagination: body.meta.pagination };
}

/** The first page says how many there are; the rest are asked for together, under one ref. */
async function listAllRoles(
  context: Context,
  { perPage = 100, ...request }: RequestOptions & { perPage?: number | undefined },
): Promise<Role[]> {
  const shared = underOneRef(context, request);
  const first = await listRoles(context, { page: 1, perPage }, shared);
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, first.pagination.total_pages - 1) }, (_, i) =>
      listRoles(context, { page: i + 2, perPage: first.pagination.per_page }, shared),
    ),
  );
  return [first, ...rest].flatMap((page) => page.roles);
}

async function setRolePermissions(
  { send, newRef }: Context,
  role: string,
  permissions: PermissionMap,
  request: RequestOptions,
): Promise<PermissionUpdate> {
  const path = `roles/${segment(role, 'role', 'setRolePermissions', request, newRef)}/permissions`;
  const body = await send(
    'api',
    'setRolePermissions',
    path,
    { method: 'put', json: { permissions } },
    PermissionUpdateResponseSchema,
    request,
  );
  return toPermissionUpdate(body.data);
}

type RoleOperations = Pick<
  CometChatClient,
  'listPermissionDefinitions' | 'createRole' | 'updateRole' | 'deleteRole' | 'unsetRolePermission'
>;

/** The role-management operations, arrows over `context` like the others. */
function roleOperations(context: Context): RoleOperations {
  return {
    listPermissionDefinitions: (role, request = {}) =>
      listPermissionDefinitions(context, role, request),
    createRole: (role, request = {}) => createRole(context, role, request),
    updateRole: (role, update, request = {}) => updateRole(context, role, update, request),
    deleteRole: (role, request = {}) => deleteRole(context, role, request),
    unsetRolePermission: (role, key, request = {}) =>
      unsetRolePermission(context, role, key, request),
  };
}

/** `roles/{role}`, the id as one path segment. */
function rolePath(context: Context, role: string, operation: string, request: RequestOptions) {
  return `roles/${segment(role, 'role', operation, request, context.newRef)}`;
}

/** Every page of the definitions, the first saying how many there are (like listAllRoles). */
async function listPermissionDefinitions(
  context: Context,
  role: string,
  request: RequestOptions,
): Promise<PermissionDefinition[]> {
  const shared = underOneRef(context, request);
  const path = `${rolePath(context, role, 'listPermissionDefinitions', shared)}/permissions`;
  const page = (number: number) =>
    context.send(
      'api',
      'listPermissionDefinitions',
      path,
      { method: 'get', searchParams: { page: number, perPage: 100 } },
      PermissionDefinitionListResponseSchema,
      shared,
    );
  const first = await page(1);
  const pages = Math.min(first.meta.pagination.total_pages, 20);
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) => page(i + 2)),
  );
  return [first, ...rest].flatMap((body) => body.data);
}

async function createRole(
  { send }: Context,
  role: NewRole,
  request: RequestOptions,
): Promise<Role> {
  const json = {
    role: role.role,
    name: role.name,
    ...(role.description ? { description: role.description } : {}),
  };
  const body = await send(
    'api',
    'createRole',
    'roles',
    { method: 'post', json },
    RoleResponseSchema,
    request,
  );
  return body.data;
}

async function updateRole(
  context: Context,
  role: string,
  update: RoleUpdate,
  request: RequestOptions,
): Promise<Role> {
  const json: Record<string, unknown> = {};
  if (update.name !== undefined) json.name = update.name;
  if (update.description === '') json.unset = ['description'];
  else if (update.description !== undefined) json.description = update.description;
  const path = rolePath(context, role, 'updateRole', request);
  const body = await context.send(
    'api',
    'updateRole',
    path,
    { method: 'put', json },
    RoleResponseSchema,
    request,
  );
  return body.data;
}

async function deleteRole(
  context: Context,
  role: string,
  request: RequestOptions,
): Promise<{ success: boolean; message: string }> {
  const path = rolePath(context, role, 'deleteRole', request);
  const body = await context.send(
    'api',
    'deleteRole',
    path,
    { method: 'delete' },
    RoleDeletedResponseSchema,
    request,
  );
  return body.data;
}

async function unsetRolePermission(
  context: Context,
  role: string,
  key: string,
  request: RequestOptions,
): Promise<PermissionUpdate> {
  const base = rolePath(context, role, 'unsetRolePermission', request);
  const path = `${base}/permissions/${segment(key, 'permission', 'unsetRolePermission', request, context.newRef)}`;
  const body = await context.send(
    'api',
    'unsetRolePermission',
    path,
    { method: 'delete' },
    PermissionUpdateResponseSchema,
    request,
  );
  return toPermissionUpdate(body.data);
}

async function getCall(
  { send, newRef }: Context,
  sessionId: string,
  request: OnBehalf,
): Promise<Call> {
  const path = `calls/${segment(sessionId, 'session id', 'getCall', request, newRef)}`;
  const headers = onBehalfHeaders(request, 'getCall', newRef);
  const body = await send(
    'call',
    'getCall',
    path,
    { method: 'get', headers },
    CallResponseSchema,
    request,
  );
  // Documented both as a record and as a list of one (schemas.ts); an empty list is no call.
  const record = Array.isArray(body.data) ? body.data[0] : body.data;
  if (!record) {
    throw new CometChatError({
      kind: 'not_found',
      ref: request.ref ?? newRef(),
      operation: 'getCall',
      status: 200,
      detail: 'the service answered with no call record',
    });
  }
  return toCall(record);
}

async function getCallMessageSession(
  { send, newRef }: Context,
  messageId: string,
  request: RequestOptions,
): Promise<string | undefined> {
  const path = `messages/${segment(messageId, 'message id', 'getCallMessage', request, newRef)}`;
  const body = await send(
    'api',
    'getCallMessage',
    path,
    { method: 'get' },
    CallMessageResponseSchema,
    request,
  );
  return body.data.data?.entities.on.entity.sessionid;
}

async function listCalls(
  { send, newRef }: Context,
  query: CallQuery,
  request: OnBehalf,
): Promise<CallPage> {
  const headers = onBehalfHeaders(request, 'listCalls', newRef);
  const body = await send(
    'call',
    'listCalls',
    'calls',
    { method: 'get', headers, searchParams: callSearchParams(query) },
    CallListResponseSchema,
    request,
  );
  return toCallPage(body, query);
}

/**
 * `GET /v3/stats` on the API host. The dates are documented as Unix time with an example in
 * milliseconds; the service takes either, and seconds are what every other v3 filter takes.
 */
async function getUsage(
  { send }: Context,
  range: UsageRange,
  request: RequestOptions,
): Promise<Usage> {
  const searchParams = { fromDate: Math.floor(range.fromDate), toDate: Math.floor(range.toDate) };
  const body = await send(
    'api',
    'getUsage',
    'stats',
    { method: 'get', searchParams },
    UsageResponseSchema,
    request,
  );
  return toUsage(body.data.metrics);
}

/** The request's reference, made now if the caller gave none, for several requests to share. */
function underOneRef<R extends RequestOptions>(context: Context, request: R): R {
  return { ...request, ref: request.ref ?? context.newRef() };
}

/** The service's largest page: reading a friend or block list to its end takes fewest trips. */
const MAX_PER_PAGE = 1_000;

type UserOperations = Pick<
  CometChatClient,
  | 'getUser'
  | 'listUsers'
  | 'countUsersWithRole'
  | 'setUserRole'
  | 'deactivateUsers'
  | 'reactivateUsers'
  | 'listFriends'
  | 'areFriends'
  | 'listBlockedUsers'
  | 'blocksBetween'
>;

/** The user operations, arrows over `context` like the others. */
function userOperations(context: Context): UserOperations {
  return {
    getUser: (uid, request = {}) => getUser(context, uid, request),
    listUsers: (query, request = {}) => listUsers(context, query, request),
    countUsersWithRole: (role, request = {}) => countUsersWithRole(context, role, request),
    setUserRole: (uid, role, request = {}) => setUserRole(context, uid, role, request),
    deactivateUsers: (uids, request = {}) => deactivateUsers(context, uids, request),
    reactivateUsers: (uids, request = {}) => reactivateUsers(context, uids, request),
    listFriends: (uid, query = {}, request = {}) =>
      related(context, 'friends', uid, query, request),
    areFriends: (uid, other, request = {}) => areFriends(context, uid, other, request),
    listBlockedUsers: (uid, query = {}, request = {}) =>
      related(context, 'blockedusers', uid, query, request),
    blocksBetween: (uid, other, request = {}) => blocksBetween(context, uid, other, request),
  };
}

/** `users/{uid}`, the uid as one path segment. */
function userPath(context: Context, uid: string, operation: string, request: RequestOptions) {
  return `users/${segment(uid, 'uid', operation, request, context.newRef)}`;
}

async function getUser(context: Context, uid: string, request: RequestOptions): Promise<User> {
  const path = userPath(context, uid, 'getUser', request);
  const body = await context.send(
    'api',
    'getUser',
    path,
    { method: 'get' },
    UserResponseSchema,
    request,
  );
  return toUser(body.data);
}

async function listUsers(
  { send }: Context,
  query: UserQuery,
  request: RequestOptions,
): Promise<UserPage> {
  const body = await send(
    'api',
    'listUsers',
    'users',
    { method: 'get', searchParams: userSearchParams(query) },
    UserListResponseSchema,
    request,
  );
  return { users: body.data.map(toUser), pagination: body.meta.pagination };
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

/** The list's total counts every match, so a page of one counts them in one small answer. */
async function countUsersWithRole(
  { send }: Context,
  role: string,
  { withDeactivated, ...request }: RequestOptions & { withDeactivated?: boolean | undefined },
): Promise<number> {
  const query = { role, withDeactivated, page: 1, perPage: 1 };
  const body = await send(
    'api',
    'countUsersWithRole',
    'users',
    { method: 'get', searchParams: userSearchParams(query) },
    UserCountResponseSchema,
    request,
  );
  return body.meta.pagination.total;
}

async function setUserRole(
  context: Context,
  uid: string,
  role: string,
  request: RequestOptions,
): Promise<User> {
  const path = userPath(context, uid, 'setUserRole', request);
  const body = await context.send(
    'api',
    'setUserRole',
    path,
    { method: 'put', json: { role } },
    UserResponseSchema,
    request,
  );
  return toUser(body.data);
}

/** Nothing to deactivate asks nothing of the service (which refuses an empty list). */
async function deactivateUsers(
  { send }: Context,
  uids: readonly string[],
  request: RequestOptions,
): Promise<string[]> {
  if (uids.length === 0) return [];
  const body = await send(
    'api',
    'deactivateUsers',
    'users',
    { method: 'delete', json: { uidsToDeactivate: uids } },
    DeactivateUsersResponseSchema,
    request,
  );
  return body.data.deactivatedUids;
}

async function reactivateUsers(
  { send }: Context,
  uids: readonly string[],
  request: RequestOptions,
): Promise<string[]> {
  if (uids.length === 0) return [];
  const body = await send(
    'api',
    'reactivateUsers',
    'users',
    { method: 'put', json: { uidsToActivate: uids } },
    ReactivateUsersResponseSchema,
    request,
  );
  return body.data.nonDeactivatedUids;
}

/** A page of the users tied to `uid`: its friends, or those it blocked. */
async function related(
  context: Context,
  list: 'friends' | 'blockedusers',
  uid: string,
  query: FriendQuery,
  request: RequestOptions,
): Promise<UserPage> {
  const operation = list === 'friends' ? 'listFriends' : 'listBlockedUsers';
  const path = `${userPath(context, uid, operation, request)}/${list}`;
  const searchParams: Record<string, string | number> = {};
  if (query.searchKey) searchParams.searchKey = query.searchKey;
  if (query.page !== undefined) searchParams.page = query.page;
  if (query.perPage !== undefined) searchParams.perPage = query.perPage;
  const body = await context.send(
    'api',
    operation,
    path,
    { method: 'get', searchParams },
    UserListResponseSchema,
    request,
  );
  return { users: body.data.map(toUser), pagination: body.meta.pagination };
}

/**
 * Whether a user on one of the pages is `wanted`, reading page after page (under the caller's
 * one reference) until one is, or the pages run out.
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

/**
 * A friend list can run to thousands; `searchKey` (a prefix of a uid or a name) narrows it on
 * the service's side to the few that start like `other`, so one short page settles it instead
 * of the whole list. The search matches names too and prefixes only, hence the exact uid match.
 */
function areFriends(
  context: Context,
  uid: string,
  other: string,
  request: RequestOptions,
): Promise<boolean> {
  const shared = underOneRef(context, request);
  const query = (page: number) => ({ searchKey: other, page, perPage: MAX_PER_PAGE });
  return onSomePage(
    (page) => related(context, 'friends', uid, query(page), shared),
    (user) => user.uid === other,
  );
}

/** The block list holds whom a user blocked, so each direction needs its own user's list. */
async function blocksBetween(
  context: Context,
  uid: string,
  other: string,
  request: RequestOptions,
): Promise<Blocks> {
  const shared = underOneRef(context, request);
  const blocked = (by: string, whom: string) =>
    onSomePage(
      (page) => related(context, 'blockedusers', by, { page, perPage: MAX_PER_PAGE }, shared),
      (user) => user.uid === whom,
    );
  const [uidBlockedOther, otherBlockedUid] = await Promise.all([
    blocked(uid, other),
    blocked(other, uid),
  ]);
  return { uidBlockedOther, otherBlockedUid };
}

/**
 * The `onBehalfOf` header, when asked for. fetch throws a TypeError for a header it cannot send,
 * which would read as a network failure (and be retried): it is refused before any request.
 */
function onBehalfHeaders(
  request: OnBehalf,
  operation: string,
  newRef: () => string,
): Record<string, string> {
  if (!request.onBehalfOf) return {};
  if (!fitsHeader(request.onBehalfOf)) {
    throw new CometChatError({
      kind: 'bad_request',
      ref: request.ref ?? newRef(),
      operation,
      detail: 'the uid cannot be sent in a header (Latin-1 characters only)',
    });
  }
  return { onBehalfOf: request.onBehalfOf };
}

/** The list's filters as query parameters: only those asked for, booleans as `true`/`false`. */
export function callSearchParams(query: CallQuery): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const key of ['uid', 'status', 'type', 'mode', 'receiverType'] as const) {
    const value = query[key];
    if (value !== undefined) params[key] = value;
  }
  for (const key of ['hasRecording', 'hasTranscription'] as const) {
    const value = query[key];
    if (value !== undefined) params[key] = String(value);
  }
  if (query.startedAt !== undefined) params.startedAt = query.startedAt;
  if (query.endedAt !== undefined) params.endedAt = query.endedAt;
  params.page = query.page;
  params.perPage = query.perPage;
  return params;
}

/** With the `u` flag a surrogate pair is one code point, so only unpaired halves match. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * An id as one path segment: percent-encoded so that `/`, `?`, `#`, spaces and unicode stay
 * inside it. `.` and `..` would still be read as dot segments by URL parsing (even encoded),
 * so they are refused before any request is made.
 */
function segment(
  id: string,
  what: string,
  operation: string,
  request: RequestOptions,
  newRef: () => string,
): string {
  const refuse = (why: string) =>
    new CometChatError({
      kind: 'bad_request',
      ref: request.ref ?? newRef(),
      operation,
      detail: `the ${what} ${why}`,
    });
  if (id === '' || id === '.' || id === '..') throw refuse('is empty or a dot segment');
  // encodeURIComponent throws a URIError on a lone UTF-16 surrogate (possible from a JSON
  // `\ud800` escape); no id of the service can hold one.
  if (LONE_SURROGATE.test(id)) throw refuse('is not well-formed text');
  return encodeURIComponent(id);
}

/**
 * A failure as the app's error: an answer outside 2xx (ky's HTTPError, its body already read), a
 * timeout (which of ky's two, the trip knows), a body that is not JSON or not of the documented
 * shape, or a connection that failed.
 */
function toCometChatError(
  error: unknown,
  trip: Trip,
  withoutSecrets: (text: string) => string,
  now: () => number,
  address: CometChatAddress,
): CometChatError {
  const tooLarge = answerTooLarge(error);
  const unreadable =
    error instanceof SyntaxError ||
    error instanceof SchemaValidationError ||
    tooLarge !== undefined;
  const fail = (init: Omit<CometChatErrorInit, 'ref' | 'operation'>) =>
    new CometChatError({
      ...init,
      ref: trip.ref,
      operation: trip.operation,
      mayHaveReached: trip.mayHaveReached(error, unreadable),
      address,
    });
  if (isHTTPError(error)) {
    const { status, headers } = error.response;
    const body = serviceError(error.data, withoutSecrets);
    const waitMs = serverWaitMs(headers, now);
    return fail({
      kind: isMisaddressed(status, body?.code) ? 'misaddressed' : kindForStatus(status),
      status,
      serviceCode: body?.code,
      serviceMessage: body?.message,
      details: body?.details,
      retryAfterSeconds: waitMs === undefined ? undefined : waitMs / 1000,
      detail: body ? undefined : 'no error body',
    });
  }
  if (isTimeoutError(error)) {
    const detail = trip.endedByBudget() ? 'time budget exhausted' : 'attempt timed out';
    return fail({ kind: 'timeout', detail });
  }
  if (tooLarge) {
    return fail({ kind: 'invalid_response', status: tooLarge.status, detail: tooLarge.message });
  }
  if (error instanceof SyntaxError) {
    return fail({ kind: 'invalid_response', status: trip.status, detail: 'body is not JSON' });
  }
  if (error instanceof SchemaValidationError) {
    const detail = error.issues.slice(0, 3).map(describeIssue).join('; ');
    return fail({ kind: 'invalid_response', status: trip.status, detail });
  }
  const code = systemCodeOf(error);
  return fail({
    kind: isMisaddressed(undefined, code) ? 'misaddressed' : 'unavailable',
    detail: withoutSecrets(causeOf(error)),
  });
}

/**
 * The service's error body, its words without any secret. ky has read it: parsed when the answer
 * said JSON, else text (a proxy's page, or JSON sent under another type).
 */
function serviceError(data: unknown, withoutSecrets: (text: string) => string) {
  if (data === undefined) return undefined;
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  try {
    const parsed = ErrorBodySchema.safeParse(
      JSON.parse(withoutSecrets(text.slice(0, MAX_ERROR_BODY))),
    );
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** `data.permissions: expected record...`: where in the body, and what zod said of it. */
function describeIssue(issue: StandardSchemaV1Issue): string {
  const path = (issue.path ?? [])
    .map((step) => String(typeof step === 'object' ? step.key : step))
    .join('.');
  return `${path || '(root)'}: ${issue.message}`;
}

/** The cap's error, however the body's reading wrapped it (fetch gives a stream's error as is). */
function answerTooLarge(error: unknown): AnswerTooLarge | undefined {
  for (let link = error; link instanceof Error; link = link.cause) {
    if (link instanceof AnswerTooLarge) return link;
  }
  return undefined;
}
