import { errorResponse } from './errors.ts';
import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { type Paging, pageOf } from './paging.ts';
import { checkPermissionUpdate, isActionKey } from './permission-catalogue.ts';
import { ok, type SandboxResponse } from './response.ts';
import { unsetPermission, writePermissions } from './role-permissions.ts';
import type { SandboxState } from './state.ts';

const DEFAULT_PAGE = 1;
const DEFAULT_PER_PAGE = 100;

/** A query value as the service accepts it: absent (the default) or a positive integer. */
function positiveInteger(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

/**
 * `page` and `perPage` of the role API's lists (roles, permission definitions): older than the
 * other v3 lists (paging.ts), with no maximum a page. Or the 400 naming both problems.
 */
export function readRolePaging(
  query: Record<string, string>,
): { ok: true; paging: Paging } | { ok: false; response: SandboxResponse } {
  const page = positiveInteger(query.page, DEFAULT_PAGE);
  const perPage = positiveInteger(query.perPage, DEFAULT_PER_PAGE);
  const details: Record<string, string[]> = {};
  if (page === undefined) details.page = ['The page must be a positive integer.'];
  if (perPage === undefined) details.perPage = ['The perPage must be a positive integer.'];
  if (page === undefined || perPage === undefined) {
    return { ok: false, response: errorResponse('ERR_BAD_REQUEST', { details }) };
  }
  return { ok: true, paging: { page, perPage } };
}

/** GET /v3/roles: one page of the roles in list order; a page past the end is empty. */
export function listRoles(state: SandboxState, query: Record<string, string>): SandboxResponse {
  const paging = readRolePaging(query);
  if (!paging.ok) return paging.response;
  return ok(pageOf(state.roles, paging.paging));
}

export interface PermissionUpdateRequest {
  /** The role id after one decoding; undefined when the segment cannot be an id. */
  roleId: string | undefined;
  contentType: string | undefined;
  body: RequestBody;
  /** Unix seconds, for `updatedAt`. */
  now: number;
}

/**
 * PUT /v3/roles/{role}/permissions. The written keys are merged into the role's effective map
 * (the catalogue defaults until set), and the answer shows the whole resulting map: the only
 * place a client can read it. Beside it, each written action key gets a `{ success, message }`
 * object, which the live service shows for `sendMessage`.
 */
export function updateRolePermissions(
  state: SandboxState,
  request: PermissionUpdateRequest,
): SandboxResponse {
  const role = state.roles.find((r) => r.role === request.roleId);
  if (role === undefined) return errorResponse('ERR_ROLE_NOT_FOUND');
  const roleId = role.role;

  const body = jsonBody(request.contentType, request.body);
  if (!body.ok) return body.response;
  const permissions = isObject(body.value) ? body.value.permissions : undefined;
  if (permissions === undefined || permissions === null) {
    return badRequest('permissions', 'The permissions field is required.');
  }
  if (!isObject(permissions)) {
    return badRequest('permissions', 'The permissions field must be an object.');
  }
  if (Object.keys(permissions).length === 0) {
    return badRequest('permissions', 'The permissions field must name at least one permission.');
  }

  const checked = checkPermissionUpdate(permissions, new Set(state.roles.map((r) => r.role)));
  if (!checked.ok) return errorResponse('ERR_BAD_REQUEST', { details: checked.details });

  const effective = writePermissions(state, roleId, checked.permissions);
  role.updatedAt = Math.max(request.now, role.createdAt);

  const results = Object.entries(checked.permissions)
    .filter(([key, value]) => isActionKey(key, value))
    .map(([key]) => [
      key,
      { success: true, message: `Permission ${key} is mapped to the role ${roleId}.` },
    ]);
  return ok({ data: { permissions: structuredClone(effective), ...Object.fromEntries(results) } });
}

export interface PermissionUnsetRequest {
  /** The role id and the key after one decoding; undefined when a segment cannot be one. */
  roleId: string | undefined;
  key: string | undefined;
  /** Unix seconds, for `updatedAt`. */
  now: number;
}

/**
 * DELETE /v3/roles/{role}/permissions/{permission}: the key goes back to its default, and the
 * answer holds the role's effective map after, as an update's does. Only a key set explicitly
 * can be unset: for any other, the documented 404 `ERR_PERMISSION_NOT_FOUND`.
 */
export function unsetRolePermission(
  state: SandboxState,
  request: PermissionUnsetRequest,
): SandboxResponse {
  const role = state.roles.find((r) => r.role === request.roleId);
  if (role === undefined) return errorResponse('ERR_ROLE_NOT_FOUND');
  const effective =
    request.key === undefined ? undefined : unsetPermission(state, role.role, request.key);
  if (effective === undefined) return errorResponse('ERR_PERMISSION_NOT_FOUND');
  role.updatedAt = Math.max(request.now, role.createdAt);
  return ok({ data: { permissions: structuredClone(effective) } });
}
