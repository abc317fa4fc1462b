import { listAuthTokens, revokeAuthToken, revokeAuthTokens } from './auth-tokens.ts';
import { listCalls } from './call-list.ts';
import { getCall } from './calls.ts';
import { errorResponse } from './errors.ts';
import {
  banMember,
  changeMemberScope,
  getGroup,
  kickMember,
  listBans,
  listGroups,
  listMembers,
  unbanMember,
} from './groups.ts';
import type { RequestBody } from './json-body.ts';
import { listMessages } from './message-list.ts';
import { deleteMessage, getMessage } from './messages.ts';
import {
  decideBlocked,
  decideFlagged,
  listBlocked,
  listFlagged,
  listReviewed,
} from './moderation-queue.ts';
import { getRule, listRevisions, listRules, putRule } from './moderation-rules.ts';
import { decodeIdSegment } from './path-segment.ts';
import { listPermissionDefinitions } from './permission-definitions.ts';
import type { SandboxResponse } from './response.ts';
import { createRole, deleteRole, updateRole } from './role-management.ts';
import { listRoles, unsetRolePermission, updateRolePermissions } from './roles.ts';
import {
  listScopePermissionDefinitions,
  unsetScopePermission,
  updateScopePermissions,
} from './scope-permissions.ts';
import type { SandboxState } from './state.ts';
import { usageStats } from './stats.ts';
import { deactivateUsers, reactivateUsers } from './user-activation.ts';
import { listUsers } from './user-list.ts';
import { listBlockedUsers, listFriends } from './user-relations.ts';
import { getUser, updateUser } from './users.ts';

/** Which listener took the request: the live service has a role host and a call host. */
export type SandboxHost = 'api' | 'call';

export interface IncomingRequest {
  host: SandboxHost;
  method: string;
  /** The raw path, undecoded, without the query string. */
  path: string;
  query: Record<string, string>;
  /** Lower-case names, as node delivers them. */
  headers: Record<string, string | undefined>;
  body: RequestBody;
}

export interface RespondContext {
  state: SandboxState;
  apiKey: string;
  /** Cosmetic: named in error texts, as the live service names the application. */
  appId: string;
  /** Unix seconds. */
  now: number;
}

type Handler = (request: IncomingRequest, context: RespondContext) => SandboxResponse;
type Methods = Partial<Record<string, Handler>>;

/**
 * The routes of one host, matched on raw segments so that an escaped `/` inside an id stays
 * inside its segment. The call path is served by the call host only, as on the live service.
 */
function routesFor(host: SandboxHost, path: string): Methods | undefined {
  const segments = path.split('/');
  const [root, version, collection, id] = segments;
  if (root !== '' || version !== 'v3') return undefined;
  if (host === 'api' && collection === 'roles') return roleRoutes(segments);
  if (host === 'api' && collection === 'users') return userRoutes(segments);
  if (host === 'api' && collection === 'moderation') return moderationRoutes(segments);
  if (host === 'api' && collection === 'messages') return messageRoutes(segments);
  if (host === 'api' && collection === 'groups') return groupRoutes(segments);
  if (host === 'api' && collection === 'stats' && segments.length === 3) {
    return { GET: (r, c) => usageStats(c.state, r.query, c.now) };
  }
  if (host === 'call' && collection === 'calls' && segments.length === 3) {
    // `onBehalfOf` is only recorded here too: the list does not depend on who asks.
    return { GET: (r, c) => listCalls(c.state, r.query) };
  }
  if (host === 'call' && collection === 'calls' && segments.length === 4 && id !== undefined) {
    const sessionId = decodeIdSegment(id);
    // `onBehalfOf` is optional and only recorded: reading a call does not depend on who asks.
    return { GET: (_r, c) => getCall(c.state, sessionId) };
  }
  return undefined;
}

/** The `onBehalfOf` header (node lower-cases names): the user a request acts for. */
function onBehalfOf(r: IncomingRequest): string | undefined {
  return r.headers.onbehalfof;
}

/** Chat messages: the list, one message, a deletion (soft, or permanent when asked). */
function messageRoutes(segments: string[]): Methods | undefined {
  const [, , , id] = segments;
  if (segments.length === 3) {
    return { GET: (r, c) => listMessages(c.state, r.query, onBehalfOf(r)) };
  }
  if (segments.length !== 4 || !id) return undefined;
  const messageId = decodeIdSegment(id);
  return {
    GET: (_r, c) => getMessage(c.state, messageId),
    DELETE: (r, c) =>
      deleteMessage(c.state, { id: messageId, ...write(r, c), onBehalfOf: onBehalfOf(r) }),
  };
}

/** Groups: the list (on a user's behalf or not), one group, its members, its bans, its scopes. */
function groupRoutes(segments: string[]): Methods | undefined {
  const [, , , id, sub, member] = segments;
  if (segments.length === 3) {
    return { GET: (r, c) => listGroups(c.state, r.query, onBehalfOf(r)) };
  }
  if (!id) return undefined;
  const guid = decodeIdSegment(id);
  if (segments.length === 4) return { GET: (_r, c) => getGroup(c.state, guid) };
  if (sub === 'members') return memberRoutes(guid, segments);
  if (sub === 'scopes') return scopeRoutes(guid, segments);
  if (sub !== 'bannedusers') return undefined;
  if (segments.length === 5) return { GET: (r, c) => listBans(c.state, guid, r.query) };
  if (segments.length !== 6 || !member) return undefined;
  const uid = decodeIdSegment(member);
  return {
    POST: (_r, c) => banMember(c.state, { guid, uid, now: c.now }),
    DELETE: (_r, c) => unbanMember(c.state, { guid, uid }),
  };
}

/** A group's members: the list, one member's scope changed, one kicked. */
function memberRoutes(guid: string | undefined, segments: string[]): Methods | undefined {
  const [, , , , , member] = segments;
  if (segments.length === 5) return { GET: (r, c) => listMembers(c.state, guid, r.query) };
  if (segments.length !== 6 || !member) return undefined;
  const uid = decodeIdSegment(member);
  return {
    PUT: (r, c) => changeMemberScope(c.state, { guid, uid, ...write(r, c) }),
    DELETE: (_r, c) => kickMember(c.state, { guid, uid }),
  };
}

/** `/v3/groups/{guid}/scopes/{scope}/permissions[/{permission}]`: a scope's permissions. */
function scopeRoutes(guid: string | undefined, segments: string[]): Methods | undefined {
  const [, , , , , rawScope, sub, key] = segments;
  if (!rawScope || sub !== 'permissions') return undefined;
  const scope = decodeIdSegment(rawScope);
  if (segments.length === 7) {
    return {
      GET: (r, c) => listScopePermissionDefinitions(c.state, { guid, scope }, r.query),
      PUT: (r, c) => updateScopePermissions(c.state, { guid, scope, ...write(r, c) }),
    };
  }
  if (segments.length !== 8 || !key) return undefined;
  const permission = decodeIdSegment(key);
  return { DELETE: (_r, c) => unsetScopePermission(c.state, { guid, scope, key: permission }) };
}

/** What a write carries, for the handlers that change users. */
function write(r: IncomingRequest, c: RespondContext) {
  return { contentType: r.headers['content-type'], body: r.body, now: c.now };
}

/**
 * The role routes: the list and the permission update of the reference, and the role
 * management beyond it (live-api-notes.md). `/v3/roles/` names no role and is no route.
 */
function roleRoutes(segments: string[]): Methods | undefined {
  const [, , , id, sub, key] = segments;
  if (segments.length === 3) {
    return {
      GET: (r, c) => listRoles(c.state, r.query),
      POST: (r, c) => createRole(c.state, write(r, c)),
    };
  }
  if (id === undefined || (segments.length === 4 && id === '')) return undefined;
  const roleId = decodeIdSegment(id);
  if (segments.length === 4) {
    return {
      PUT: (r, c) => updateRole(c.state, { roleId, ...write(r, c) }),
      DELETE: (_r, c) => deleteRole(c.state, { roleId, now: c.now }),
    };
  }
  if (sub !== 'permissions') return undefined;
  if (segments.length === 5) {
    return {
      GET: (r, c) => listPermissionDefinitions(c.state, roleId, r.query),
      PUT: (r, c) => updateRolePermissions(c.state, { roleId, ...write(r, c) }),
    };
  }
  if (segments.length === 6 && key !== undefined && key !== '') {
    const permission = decodeIdSegment(key);
    return {
      DELETE: (_r, c) => unsetRolePermission(c.state, { roleId, key: permission, now: c.now }),
    };
  }
  return undefined;
}

/**
 * The user routes, on the role host as on the live service. `DELETE /v3/users/{uid}` (a
 * permanent delete) is not served: the app never deletes anyone, so it gets a 405.
 */
function userRoutes(segments: string[]): Methods | undefined {
  const [, , , id, sub] = segments;
  if (segments.length === 3) {
    return {
      GET: (r, c) => listUsers(c.state, r.query),
      PUT: (r, c) => reactivateUsers(c.state, write(r, c)),
      DELETE: (r, c) => deactivateUsers(c.state, write(r, c)),
    };
  }
  if (id === undefined || id === '') return undefined;
  const uid = decodeIdSegment(id);
  if (segments.length === 4) {
    return {
      GET: (_r, c) => getUser(c.state, uid),
      PUT: (r, c) => updateUser(c.state, { uid, ...write(r, c) }),
    };
  }
  if (segments.length === 5 && sub === 'friends') {
    return { GET: (r, c) => listFriends(c.state, uid, r.query) };
  }
  if (segments.length === 5 && sub === 'blockedusers') {
    return { GET: (r, c) => listBlockedUsers(c.state, uid, r.query) };
  }
  if (sub === 'auth_tokens') return authTokenRoutes(uid, segments);
  return undefined;
}

/** A user's auth tokens: the list, all revoked, one revoked. */
function authTokenRoutes(uid: string | undefined, segments: string[]): Methods | undefined {
  const [, , , , , token] = segments;
  if (segments.length === 5) {
    return {
      GET: (r, c) => listAuthTokens(c.state, uid, r.query),
      DELETE: (_r, c) => revokeAuthTokens(c.state, uid),
    };
  }
  if (segments.length !== 6 || !token) return undefined;
  const authToken = decodeIdSegment(token);
  return { DELETE: (_r, c) => revokeAuthToken(c.state, uid, authToken) };
}

/**
 * The moderation routes (live-api-notes.md, "Moderation"), on the chat host with the other
 * `apikey` routes: the two queues and a decision on one message, the reviewed list, the rules.
 */
function moderationRoutes(segments: string[]): Methods | undefined {
  const [, , , area, id, sub] = segments;
  const itemId = id === undefined || id === '' ? undefined : decodeIdSegment(id);
  const decide = (r: IncomingRequest, c: RespondContext) => ({ id: itemId, ...write(r, c) });
  if (area === 'flagged-messages' || area === 'blocked-messages') {
    const flagged = area === 'flagged-messages';
    if (segments.length === 4) {
      return { GET: (r, c) => (flagged ? listFlagged : listBlocked)(c.state.moderation, r.query) };
    }
    if (segments.length !== 5 || id === '') return undefined;
    return {
      PATCH: (r, c) => (flagged ? decideFlagged : decideBlocked)(c.state.moderation, decide(r, c)),
    };
  }
  if (area === 'reviewed-messages' && segments.length === 4) {
    return { GET: (r, c) => listReviewed(c.state.moderation, r.query) };
  }
  if (area !== 'rules') return undefined;
  if (segments.length === 4) {
    return { GET: (r, c) => listRules(c.state.moderation, r.query, c.appId) };
  }
  if (id === undefined || id === '') return undefined;
  if (segments.length === 5) {
    return {
      GET: (_r, c) => getRule(c.state.moderation, itemId, c.appId),
      PUT: (r, c) => putRule(c.state.moderation, { ...decide(r, c), appId: c.appId }),
    };
  }
  if (segments.length === 6 && sub === 'revisions') {
    return { GET: (_r, c) => listRevisions(c.state.moderation, itemId, c.appId) };
  }
  return undefined;
}

/**
 * Answers one request from the state, the way the service would: the key first (every
 * operation needs it), then the route, then the method.
 */
export function respond(request: IncomingRequest, context: RespondContext): SandboxResponse {
  const apiKey = request.headers.apikey?.trim() ?? '';
  if (apiKey === '') return errorResponse('AUTH_ERR_EMPTY_APIKEY');
  if (apiKey !== context.apiKey) {
    return errorResponse('AUTH_ERR_APIKEY_NOT_FOUND', {
      devMessage: `The apikey header does not match any key of the application ${context.appId}.`,
    });
  }

  const methods = routesFor(request.host, request.path);
  if (methods === undefined) return errorResponse('ERR_NOT_FOUND');
  const handler = methods[request.method];
  if (handler === undefined) {
    return errorResponse('ERR_METHOD_NOT_ALLOWED', {
      headers: { allow: Object.keys(methods).join(', ') },
    });
  }
  return handler(request, context);
}
