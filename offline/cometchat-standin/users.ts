import { z } from 'zod';
import { errorResponse } from './errors.ts';
import { badRequest, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState, User } from './state.ts';

// One user: GET /v3/users/{uid} and PUT /v3/users/{uid}. A deactivated user is still found
// (with its `deactivatedAt`); only lists leave them out by default.

export interface UserWrite {
  /** The uid after one decoding; undefined when the segment cannot be an id. */
  uid: string | undefined;
  contentType: string | undefined;
  body: RequestBody;
  /** Unix seconds, for `updatedAt` (and `deactivatedAt`). */
  now: number;
}

export function findUser(state: SandboxState, uid: string | undefined): User | undefined {
  return uid === undefined ? undefined : state.users.get(uid);
}

export function getUser(state: SandboxState, uid: string | undefined): SandboxResponse {
  const user = findUser(state, uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  return ok({ data: user });
}

/** The fields `unset` may name: the optional ones. */
const UNSETTABLE = ['avatar', 'link', 'metadata', 'tags', 'statusMessage'] as const;

/**
 * What an update may carry. Unknown fields are dropped (the service ignores them); each known
 * one is checked, with the sentence the 400 gives for it.
 */
const UserUpdateSchema = z
  .object({
    name: z.string().trim().min(1).max(100, 'The name is at most 100 characters.'),
    role: z.string().min(1, 'The role must be a role id.'),
    avatar: z.string(),
    link: z.string(),
    statusMessage: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    unset: z.array(z.enum(UNSETTABLE)),
  })
  .partial();
type UserUpdate = z.infer<typeof UserUpdateSchema>;

/** The update, or the 400 naming every bad field at once. */
function checkUpdate(
  body: unknown,
): { ok: true; update: UserUpdate } | { ok: false; response: SandboxResponse } {
  if (!isObject(body)) {
    return { ok: false, response: badRequest('body', 'The request body must be a JSON object.') };
  }
  const parsed = UserUpdateSchema.safeParse(body);
  if (!parsed.success) {
    const details: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'body');
      details[field] = [...(details[field] ?? []), issue.message];
    }
    return { ok: false, response: errorResponse('ERR_BAD_REQUEST', { details }) };
  }
  if (Object.keys(parsed.data).length === 0) {
    const fields = Object.keys(UserUpdateSchema.shape).join(', ');
    return { ok: false, response: badRequest('body', `Send at least one of ${fields}.`) };
  }
  return { ok: true, update: parsed.data };
}

/**
 * PUT /v3/users/{uid}: changes the fields sent (each user has exactly one role: this is how it
 * changes), drops those named in `unset`, and answers the whole user.
 */
export function updateUser(state: SandboxState, request: UserWrite): SandboxResponse {
  const user = findUser(state, request.uid);
  if (user === undefined) return errorResponse('ERR_UID_NOT_FOUND');
  const body = jsonBody(request.contentType, request.body);
  if (!body.ok) return body.response;
  const checked = checkUpdate(body.value);
  if (!checked.ok) return checked.response;
  const { unset = [], ...changes } = checked.update;
  if (changes.role !== undefined && !state.roles.some((role) => role.role === changes.role)) {
    return errorResponse('ERR_ROLE_NOT_FOUND', {
      devMessage: 'The role in the body does not exist: see GET /v3/roles.',
    });
  }
  for (const field of unset) delete user[field];
  Object.assign(user, changes);
  user.updatedAt = Math.max(request.now, user.createdAt);
  return ok({ data: user });
}
