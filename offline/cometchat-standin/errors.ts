import type { SandboxResponse } from './response.ts';

// Error bodies in the live service's shape (live-api-notes.md, "Errors"):
// {"error": {"message", "devMessage", "source", "code", "details"?}}. The texts are the
// sandbox's own; the codes and statuses are the documented ones. No text ever contains the key.

export type ErrorCode =
  | 'AUTH_ERR_EMPTY_APIKEY'
  | 'AUTH_ERR_APIKEY_NOT_FOUND'
  | 'AUTH_ERR_NO_ACCESS'
  | 'ERR_BAD_REQUEST'
  | 'ERR_PAYLOAD_TOO_LARGE'
  | 'ERR_ROLE_NOT_FOUND'
  | 'ERR_PERMISSION_NOT_FOUND'
  | 'ERR_CALL_SESSION_NOT_FOUND'
  | 'ERR_UID_NOT_FOUND'
  | 'ERR_MSG_NOT_FOUND'
  | 'ERR_MESSAGE_ID_NOT_FOUND'
  | 'ERR_RULE_NOT_FOUND'
  | 'ERR_AUTH_TOKEN_NOT_FOUND'
  | 'ERR_GUID_NOT_FOUND'
  | 'ERR_ALREADY_BANNED'
  | 'ERR_NOT_A_BANNED_USER'
  | 'ERR_NOT_A_MEMBER'
  | 'ERR_SAME_SCOPE'
  | 'ERR_GROUP_NO_SCOPE_CLEARANCE'
  | 'ERR_NOT_FOUND'
  | 'ERR_METHOD_NOT_ALLOWED'
  | 'ERR_TOO_MANY_REQUESTS'
  | 'ERR_INTERNAL_SERVER_ERROR'
  | 'ERR_SERVICE_UNAVAILABLE';

interface ErrorText {
  status: number;
  message: string;
  devMessage: string;
}

const TEXTS: Record<ErrorCode, ErrorText> = {
  AUTH_ERR_EMPTY_APIKEY: {
    status: 401,
    message: 'The apikey header is missing or empty.',
    devMessage: 'Send the REST API key of the application in the apikey request header.',
  },
  AUTH_ERR_APIKEY_NOT_FOUND: {
    status: 401,
    message: 'The apikey provided is not valid.',
    devMessage: 'The apikey header does not match any key of this application.',
  },
  AUTH_ERR_NO_ACCESS: {
    status: 403,
    message: 'The apikey cannot be used to perform this action.',
    devMessage: 'Use a REST API key with the full-access scope.',
  },
  ERR_BAD_REQUEST: {
    status: 400,
    message: 'Failed to validate the data sent with the request.',
    devMessage: 'Check the details for the fields that failed validation.',
  },
  ERR_PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is too large.',
    devMessage: 'Send a smaller request body.',
  },
  ERR_ROLE_NOT_FOUND: {
    status: 404,
    message: 'The role does not exist.',
    devMessage: 'Check the role identifier in the path.',
  },
  ERR_PERMISSION_NOT_FOUND: {
    status: 404,
    message: 'The permission is not set for the role or the group scope.',
    devMessage: 'Only a permission set explicitly can be unset.',
  },
  ERR_CALL_SESSION_NOT_FOUND: {
    status: 404,
    message: 'The call does not exist.',
    devMessage: 'Check the session id in the path.',
  },
  ERR_UID_NOT_FOUND: {
    status: 404,
    message: 'The user does not exist.',
    devMessage: 'Check the uid in the path.',
  },
  ERR_MSG_NOT_FOUND: {
    status: 404,
    message: 'The message does not exist.',
    devMessage: 'Check the message id in the path.',
  },
  ERR_MESSAGE_ID_NOT_FOUND: {
    status: 404,
    message: 'The message id does not exist.',
    devMessage: 'Check the message id in the path: it must be a message waiting for review.',
  },
  ERR_RULE_NOT_FOUND: {
    status: 404,
    message: 'The rule does not exist.',
    devMessage: 'Check the rule id in the path.',
  },
  ERR_AUTH_TOKEN_NOT_FOUND: {
    status: 404,
    message: 'The auth token does not exist.',
    devMessage: 'The user holds no such auth token: it may have been revoked already.',
  },
  ERR_GUID_NOT_FOUND: {
    status: 404,
    message: 'The group does not exist.',
    devMessage: 'Check the guid in the path.',
  },
  ERR_ALREADY_BANNED: {
    status: 400,
    message: 'The user is already banned from the group.',
    devMessage: 'See GET /v3/groups/{guid}/bannedusers.',
  },
  ERR_NOT_A_BANNED_USER: {
    status: 400,
    message: 'The user is not banned from the group.',
    devMessage: 'See GET /v3/groups/{guid}/bannedusers.',
  },
  ERR_NOT_A_MEMBER: {
    status: 404,
    message: 'The user is not a member of the group.',
    devMessage: 'See GET /v3/groups/{guid}/members.',
  },
  ERR_SAME_SCOPE: {
    status: 400,
    message: 'The member already has that scope.',
    devMessage: "Send a scope other than the member's current one.",
  },
  ERR_GROUP_NO_SCOPE_CLEARANCE: {
    status: 400,
    message: 'The scope of the group owner cannot be changed, nor the owner removed.',
    devMessage: 'The owner stays an admin of the group.',
  },
  ERR_NOT_FOUND: {
    status: 404,
    message: 'The requested resource does not exist.',
    devMessage: 'Check the method, the host and the path of the request.',
  },
  ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'The method is not allowed for this resource.',
    devMessage: 'See the Allow response header for the methods this path accepts.',
  },
  ERR_TOO_MANY_REQUESTS: {
    status: 429,
    message: 'Too many requests.',
    devMessage:
      'The rate limit of the application was exceeded; retry after the Retry-After delay.',
  },
  ERR_INTERNAL_SERVER_ERROR: {
    status: 500,
    message: 'Something went wrong on our side.',
    devMessage: 'An unexpected error occurred; retry the request later.',
  },
  ERR_SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The service is temporarily unavailable.',
    devMessage: 'Retry the request later.',
  },
};

/** The live service's `source` value is not documented; one constant keeps the field present. */
const SOURCE = 'ERROR_HANDLER';

export interface ErrorOptions {
  status?: number;
  devMessage?: string;
  details?: Record<string, string[]>;
  headers?: Record<string, string>;
}

export function errorResponse(code: ErrorCode, options: ErrorOptions = {}): SandboxResponse {
  const text = TEXTS[code];
  const error = {
    message: text.message,
    devMessage: options.devMessage ?? text.devMessage,
    source: SOURCE,
    code,
    ...(options.details === undefined ? {} : { details: options.details }),
  };
  const response: SandboxResponse = { status: options.status ?? text.status, body: { error } };
  if (options.headers !== undefined) response.headers = options.headers;
  return response;
}

/** A raw path naming one auth token of one user: what DELETE revokes. */
const AUTH_TOKEN_PATH = /^\/v3\/users\/[^/]+\/auth_tokens\/[^/]+$/;

/** A raw path naming one permission of one role: what DELETE unsets. */
const PERMISSION_PATH = /^\/v3\/roles\/[^/]+\/permissions\/[^/]+$/;

/** The same for one permission of a group's scope. */
const SCOPE_PERMISSION_PATH = /^\/v3\/groups\/[^/]+\/scopes\/[^/]+\/permissions\/[^/]+$/;

/**
 * The error a status fault sends when the test did not give a body: the closest real one. A 404
 * names what the path looks up (a call, an auth token, a user, a group, a message, a moderation
 * rule or message, a role's permission, else a role).
 */
export function errorCodeForStatus(status: number, host: 'api' | 'call', path = ''): ErrorCode {
  if (status === 401) return 'AUTH_ERR_APIKEY_NOT_FOUND';
  if (status === 403) return 'AUTH_ERR_NO_ACCESS';
  if (status === 404) {
    if (host === 'call') return 'ERR_CALL_SESSION_NOT_FOUND';
    if (AUTH_TOKEN_PATH.test(path)) return 'ERR_AUTH_TOKEN_NOT_FOUND';
    if (path.startsWith('/v3/users')) return 'ERR_UID_NOT_FOUND';
    if (SCOPE_PERMISSION_PATH.test(path)) return 'ERR_PERMISSION_NOT_FOUND';
    if (path.startsWith('/v3/groups')) return 'ERR_GUID_NOT_FOUND';
    if (path.startsWith('/v3/messages')) return 'ERR_MSG_NOT_FOUND';
    if (path.startsWith('/v3/moderation/rules')) return 'ERR_RULE_NOT_FOUND';
    if (path.startsWith('/v3/moderation')) return 'ERR_MESSAGE_ID_NOT_FOUND';
    return PERMISSION_PATH.test(path) ? 'ERR_PERMISSION_NOT_FOUND' : 'ERR_ROLE_NOT_FOUND';
  }
  if (status === 405) return 'ERR_METHOD_NOT_ALLOWED';
  if (status === 413) return 'ERR_PAYLOAD_TOO_LARGE';
  if (status === 429) return 'ERR_TOO_MANY_REQUESTS';
  if (status === 503) return 'ERR_SERVICE_UNAVAILABLE';
  if (status >= 500) return 'ERR_INTERNAL_SERVER_ERROR';
  return 'ERR_BAD_REQUEST';
}
