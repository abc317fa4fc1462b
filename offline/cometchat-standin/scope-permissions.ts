import { z } from 'zod';
import catalogueJson from '../../src/cometchat/scope-permissions.json' with { type: 'json' };
import { errorResponse } from './errors.ts';
import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { pageOf } from './paging.ts';
import { isPermissionName } from './permission-catalogue.ts';
import { ok, type SandboxResponse } from './response.ts';
import { readRolePaging } from './roles.ts';
import {
  GROUP_SCOPES,
  type GroupScope,
  type PermissionMap,
  type PermissionValue,
  type SandboxState,
} from './state.ts';

// A group's scope permissions (live-api-notes.md, "Groups"): per group, per scope, in the form
// of a role's: `GET /v3/groups/{guid}/scopes/{scope}/permissions` lists the definitions (not the
// values), `PUT` sets keys and answers the effective map, `DELETE .../{permission}` unsets one
// and answers the rest. The keys are CometChat's eleven, from the app's own data file
// (src/cometchat/scope-permissions.json), so both sides agree on them.

const EntrySchema = z.discriminatedUnion('kind', [
  z.object({
    key: z.string(),
    label: z.string(),
    kind: z.literal('action'),
    values: z.array(z.string()).min(1),
    default: z.string(),
  }),
  z.object({
    key: z.string(),
    label: z.string(),
    kind: z.literal('fixedList'),
    values: z.array(z.string()).min(1),
    default: z.array(z.string()).nullable(),
  }),
]);
type ScopeEntry = z.infer<typeof EntrySchema>;

const ENTRIES: readonly ScopeEntry[] = z
  .object({ permissions: z.array(EntrySchema) })
  .parse(catalogueJson).permissions;
const BY_KEY: ReadonlyMap<string, ScopeEntry> = new Map(ENTRIES.map((e) => [e.key, e]));

/** The definitions never change, so they carry one fixed date (2025-12-17, as documented). */
const DEFINED_AT = 1_765_962_204;

function copyOf(value: PermissionValue): PermissionValue {
  return Array.isArray(value) ? [...value] : value;
}

/** What each scope key is, as the service lists it: fresh objects each time. */
export function scopePermissionDefinitions() {
  return ENTRIES.map((entry) => ({
    id: entry.key,
    type: 'scope',
    title: entry.kind === 'action' ? `Allows/Denies: ${entry.label}` : entry.label,
    description:
      entry.kind === 'action'
        ? `When denied, members with the scope cannot do this (${entry.key}).`
        : `Limits ${entry.key.split('.')[0]} to the listed values; an empty list means no restriction.`,
    dataType: entry.kind === 'action' ? 'string' : 'stringArray',
    availableValues: [...entry.values],
    defaultValue: copyOf(entry.default),
    createdAt: DEFINED_AT,
    updatedAt: DEFINED_AT,
  }));
}

/** A scope's effective map: the defaults with its explicitly set keys on top. */
export function effectiveScopePermissions(
  state: SandboxState,
  guid: string,
  scope: GroupScope,
): PermissionMap {
  const defaults = Object.fromEntries(ENTRIES.map((e) => [e.key, copyOf(e.default)]));
  return { ...defaults, ...structuredClone(explicitOf(state, guid, scope) ?? {}) };
}

function explicitOf(state: SandboxState, guid: string, scope: GroupScope) {
  return state.accounts.scopePermissions.get(guid)?.get(scope);
}

function isScope(scope: string | undefined): scope is GroupScope {
  return GROUP_SCOPES.some((known) => known === scope);
}

/** The group and scope a route names, or the error the service answers. */
function scopeTarget(
  state: SandboxState,
  guid: string | undefined,
  scope: string | undefined,
): { guid: string; scope: GroupScope } | SandboxResponse {
  const group = guid === undefined ? undefined : state.accounts.groups.get(guid);
  if (group === undefined) return errorResponse('ERR_GUID_NOT_FOUND');
  if (!isScope(scope)) {
    return badRequest('scope', `The scope must be one of: ${GROUP_SCOPES.join(', ')}.`);
  }
  return { guid: group.guid, scope };
}

export interface ScopeRequest {
  /** After one decoding; undefined when a segment cannot be an id. */
  guid: string | undefined;
  scope: string | undefined;
}

/** GET: the definitions, the same for every group and scope; both must exist all the same. */
export function listScopePermissionDefinitions(
  state: SandboxState,
  request: ScopeRequest,
  query: Record<string, string>,
): SandboxResponse {
  const target = scopeTarget(state, request.guid, request.scope);
  if (!('scope' in target)) return target;
  const paging = readRolePaging(query);
  if (!paging.ok) return paging.response;
  return ok(pageOf(scopePermissionDefinitions(), paging.paging));
}

/**
 * Known keys must hold one of their values (a list key: a list of them, or null); unknown keys
 * are taken when named like a permission and holding a string, a list of strings or null, as
 * for a role. Every problem at once, keyed `permissions.<key>`.
 */
export function checkScopeUpdate(
  input: Record<string, unknown>,
): { ok: true; permissions: PermissionMap } | { ok: false; details: Record<string, string[]> } {
  const details: Record<string, string[]> = {};
  const accepted: PermissionMap = {};
  for (const [key, value] of Object.entries(input)) {
    const problem = isPermissionName(key)
      ? problemOf(key, value, BY_KEY.get(key))
      : `"${key}" is not a permission name.`;
    if (problem !== undefined) details[`permissions.${key}`] = [problem];
    else if (isValue(value)) accepted[key] = value;
  }
  return Object.keys(details).length > 0
    ? { ok: false, details }
    : { ok: true, permissions: accepted };
}

function isValue(value: unknown): value is PermissionValue {
  return value === null || typeof value === 'string' || isStringList(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function problemOf(key: string, value: unknown, entry: ScopeEntry | undefined): string | undefined {
  if (entry === undefined) {
    return isValue(value)
      ? undefined
      : `The ${key} permission must be a string, a list of strings or null.`;
  }
  const allowed = entry.values.join(', ');
  if (entry.kind === 'action') {
    return typeof value === 'string' && entry.values.includes(value)
      ? undefined
      : `The ${key} permission must be one of: ${allowed}.`;
  }
  if (value === null) return undefined;
  if (!isStringList(value) || value.some((item) => !entry.values.includes(item))) {
    return `The ${key} permission must be null or a list of: ${allowed}.`;
  }
  return undefined;
}

export interface ScopeUpdateRequest extends ScopeRequest {
  contentType: string | undefined;
  body: RequestBody;
}

/**
 * PUT: the written keys are set explicitly; the answer holds the scope's whole effective map
 * and, beside it, a `{ success, message }` per written action key, as the documented answer has.
 */
export function updateScopePermissions(
  state: SandboxState,
  request: ScopeUpdateRequest,
): SandboxResponse {
  const target = scopeTarget(state, request.guid, request.scope);
  if (!('scope' in target)) return target;
  const body = jsonBody(request.contentType, request.body);
  if (!body.ok) return body.response;
  const permissions = isObject(body.value) ? body.value.permissions : undefined;
  if (!isObject(permissions) || Object.keys(permissions).length === 0) {
    return badRequest(
      'permissions',
      'The permissions field must be an object naming a permission.',
    );
  }
  const checked = checkScopeUpdate(permissions);
  if (!checked.ok) return errorResponse('ERR_BAD_REQUEST', { details: checked.details });
  const { guid, scope } = target;
  const scopes = state.accounts.scopePermissions.get(guid) ?? new Map<GroupScope, PermissionMap>();
  scopes.set(scope, { ...scopes.get(scope), ...checked.permissions });
  state.accounts.scopePermissions.set(guid, scopes);
  const results = Object.entries(checked.permissions)
    .filter(([key]) => BY_KEY.get(key)?.kind === 'action')
    .map(([key]) => [
      key,
      {
        success: true,
        message: `Permission with id ${key} has been mapped to scope ${scope} on group ${guid}.`,
      },
    ]);
  const effective = effectiveScopePermissions(state, guid, scope);
  return ok({ data: { ...Object.fromEntries(results), permissions: effective } });
}

export interface ScopeUnsetRequest extends ScopeRequest {
  key: string | undefined;
}

/**
 * DELETE .../permissions/{permission}: the key back to its default (an unknown key leaves the
 * map); only a key set explicitly can be unset, else 404 `ERR_PERMISSION_NOT_FOUND`.
 */
export function unsetScopePermission(
  state: SandboxState,
  request: ScopeUnsetRequest,
): SandboxResponse {
  const target = scopeTarget(state, request.guid, request.scope);
  if (!('scope' in target)) return target;
  const explicit = explicitOf(state, target.guid, target.scope);
  if (
    request.key === undefined ||
    explicit === undefined ||
    !Object.hasOwn(explicit, request.key)
  ) {
    return errorResponse('ERR_PERMISSION_NOT_FOUND');
  }
  delete explicit[request.key];
  return ok({ data: { permissions: effectiveScopePermissions(state, target.guid, target.scope) } });
}
