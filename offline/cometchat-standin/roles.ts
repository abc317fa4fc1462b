import { errorResponse } from './errors.ts';
import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import {
  checkPermissionUpdate,
  defaultPermissionMap,
  isActionKey,
} from './permission-catalogue.ts';
import { ok, type SandboxResponse } from './response.ts';
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

/** GET /v3/roles: one page of the roles in list order; a page past the end is empty. */
export function listRoles(state: SandboxState, query: Record<string, string>): SandboxResponse {
  const page = positiveInteger(query.page, DEFAULT_PAGE);
  const perPage = positiveInteger(query.perPage, DEFAULT_PER_PAGE);
  const details: Record<string, string[]> = {};
  if (page === undefined) details.page = ['The page must be a positive integer.'];
  if (perPage === undefined) details.perPage = ['The perPage must be a positive integer.'];
  if (page === undefined || perPage === undefined) {
    return errorResponse('ERR_BAD_REQUEST', { details });
  }

  const total = state.roles.length;
  const data = state.roles.slice((page - 1) * perPage, page * perPage);
  return ok({
    data,
    meta: {
      pagination: {
        total,
        count: data.length,
        per_page: perPage,
        current_page: page,
        total_pages: Math.max(1, Math.ceil(total / perPage)),
      },
    },
  });
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

  const effective = {
    ...(state.permissions.get(roleId) ?? defaultPermissionMap()),
    ...checked.permissions,
  };
  state.permissions.set(roleId, effective);
  role.updatedAt = Math.max(request.now, role.createdAt);

  const results = Object.entries(checked.permissions)
    .filter(([key, value]) => isActionKey(key, value))
    .map(([key]) => [
      key,
      { success: true, message: `Permission ${key} is mapped to the role ${roleId}.` },
    ]);
  return ok({ data: { permissions: structuredClone(effective), ...Object.fromEntries(results) } });
}
