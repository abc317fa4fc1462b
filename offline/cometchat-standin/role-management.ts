import { z } from 'zod';
import { errorResponse } from './errors.ts';
import { badRequest, detailsOf, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { ok, type SandboxResponse } from './response.ts';
import { forgetRolePermissions, startRolePermissions } from './role-permissions.ts';
import type { Role, SandboxState } from './state.ts';

// Creating, changing and deleting roles (live-api-notes.md, "Role management beyond the
// reference"). Where the notes say nothing (the errors for a taken id, for the 26th role and for
// deleting `default`; what becomes of a deleted role's users) the stand-in makes a choice, and
// says so where it does.

export interface RoleWrite {
  contentType: string | undefined;
  body: RequestBody;
  /** Unix seconds, for `createdAt` and `updatedAt`. */
  now: number;
}

/** The live service's limit per application. */
export const MAX_ROLES = 25;

/** As sent: upper case is allowed, and folded (`Premium-2` is stored as `premium-2`). */
const ROLE_ID_AS_SENT = /^[A-Za-z0-9_-]+$/;

const roleId = z
  .string({ error: (issue) => (issue.input === undefined ? 'The role is required.' : undefined) })
  .max(100, 'The role is at most 100 characters.')
  .regex(ROLE_ID_AS_SENT, 'The role may only contain letters, digits, - and _.')
  .transform((id) => id.toLowerCase());

const name = z
  .string({ error: (issue) => (issue.input === undefined ? 'The name is required.' : undefined) })
  .max(100, 'The name is at most 100 characters.')
  .refine((text) => text.trim() !== '', 'The name must not be blank.');

const description = z.string().max(255, 'The description is at most 255 characters.');
const metadata = z.record(z.string(), z.unknown());
const settings = z.record(z.string(), z.string());

/** POST /v3/roles. Unknown fields are dropped, as the service ignores them. */
const NewRoleSchema = z.object({
  role: roleId,
  name,
  description: description.optional(),
  metadata: metadata.optional(),
  settings: settings.optional(),
});

/** The fields `unset` may name: the optional ones. */
const UNSETTABLE = ['settings', 'description', 'metadata'] as const;

/** PUT /v3/roles/{role}: what is sent changes, what `unset` names goes. */
const RoleUpdateSchema = z
  .object({ name, description, metadata, settings, unset: z.array(z.enum(UNSETTABLE)) })
  .partial();

type Parsed<T> = { ok: true; value: T } | { ok: false; response: SandboxResponse };

/** The write's body checked by `schema`, or the 400 naming every bad field at once. */
function parseWrite<T>(schema: z.ZodType<T>, request: RoleWrite): Parsed<T> {
  const body = jsonBody(request.contentType, request.body);
  if (!body.ok) return body;
  if (!isObject(body.value)) {
    return { ok: false, response: badRequest('body', 'The request body must be a JSON object.') };
  }
  const parsed = schema.safeParse(body.value);
  if (!parsed.success) {
    const details = detailsOf(parsed.error.issues);
    return { ok: false, response: errorResponse('ERR_BAD_REQUEST', { details }) };
  }
  return { ok: true, value: parsed.data };
}

/** POST /v3/roles: the new role, last in the list, with the catalogue's default permissions. */
export function createRole(state: SandboxState, request: RoleWrite): SandboxResponse {
  const parsed = parseWrite(NewRoleSchema, request);
  if (!parsed.ok) return parsed.response;
  const { role: id, ...fields } = parsed.value;
  // Neither refusal is documented live (the notes give the limit only): both are 400s naming
  // the field, as the service reports a failed validation.
  if (state.roles.some((role) => role.role === id)) {
    return badRequest('role', 'The role has already been taken.');
  }
  if (state.roles.length >= MAX_ROLES) {
    return badRequest('role', `An application can have at most ${MAX_ROLES} roles.`);
  }
  const role: Role = {
    role: id,
    name: fields.name,
    // The state keeps every description as a string: '' is "none", as for `beta_tester`.
    description: fields.description ?? '',
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
    ...(fields.settings === undefined ? {} : { settings: fields.settings }),
    createdAt: request.now,
  };
  state.roles.push(role);
  startRolePermissions(state, id);
  return ok({ data: structuredClone(role) });
}

function findRole(state: SandboxState, id: string | undefined): Role | undefined {
  return id === undefined ? undefined : state.roles.find((role) => role.role === id);
}

/** PUT /v3/roles/{role}: changes the fields sent, drops those `unset` names. */
export function updateRole(
  state: SandboxState,
  request: RoleWrite & { roleId: string | undefined },
): SandboxResponse {
  const role = findRole(state, request.roleId);
  if (role === undefined) return errorResponse('ERR_ROLE_NOT_FOUND');
  const parsed = parseWrite(RoleUpdateSchema, request);
  if (!parsed.ok) return parsed.response;
  const { unset = [], ...changes } = parsed.value;
  if (Object.keys(parsed.value).length === 0) {
    const fields = Object.keys(RoleUpdateSchema.shape).join(', ');
    return badRequest('body', `Send at least one of ${fields}.`);
  }
  for (const field of unset) {
    if (field === 'description') role.description = '';
    else delete role[field];
  }
  Object.assign(role, changes);
  role.updatedAt = Math.max(request.now, role.createdAt);
  return ok({ data: structuredClone(role) });
}

/**
 * DELETE /v3/roles/{role}. What becomes of the role's users is not documented; the stand-in
 * gives them `default`, since every user holds exactly one role. Other roles' role lists that
 * name it are left as they are (not documented either).
 */
export function deleteRole(
  state: SandboxState,
  request: { roleId: string | undefined; now: number },
): SandboxResponse {
  const role = findRole(state, request.roleId);
  if (role === undefined) return errorResponse('ERR_ROLE_NOT_FOUND');
  if (role.role === 'default') {
    // Documented as impossible, with no error named: a 400, as for other refused requests.
    const sentence = 'The role default cannot be deleted: it is the role every user falls back to.';
    return errorResponse('ERR_BAD_REQUEST', {
      devMessage: sentence,
      details: { role: [sentence] },
    });
  }
  state.roles.splice(state.roles.indexOf(role), 1);
  forgetRolePermissions(state, role.role);
  for (const user of state.users.values()) {
    if (user.role !== role.role) continue;
    user.role = 'default';
    user.updatedAt = Math.max(request.now, user.createdAt);
  }
  const message = `Role ${role.role} has been deleted successfully.`;
  return ok({ data: { success: true, message } });
}
