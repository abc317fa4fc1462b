import { z } from 'zod';
import { holdsRoleIds } from '../../cometchat/catalogue.ts';
import type { CometChatClient, RequestOptions } from '../../cometchat/client.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { MAX_ROLE_DESCRIPTION, MAX_ROLE_NAME, MAX_ROLES } from '../../cometchat/id-rules.ts';
import type { KeyResult, PermissionMap, Role } from '../../cometchat/schemas.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import { ChangeNotTaken } from '../../voice/failure.ts';
import { counted, roleLimitSentence } from '../../voice/sentences.ts';
import { permissionKeyText } from '../permission-key-text.ts';
import { permissionValueText } from '../permission-value-text.ts';

// A change to a role itself, not to its permissions: created (with the permissions set right
// after, by one update), renamed or described, or deleted. It goes through every change's
// review, approval, claim, intent and audit (apply-change.ts); what is here is what only a role's
// own change does: what its changes may hold, how it is sent, and how "is it still as the review
// saw it?" and "did it take?" are asked of CometChat.

export const RoleActionSchema = z.enum(['create', 'update', 'delete']);
export type RoleAction = z.infer<typeof RoleActionSchema>;

/** The keys of a role's own fields; a created role's other keys are its permissions. */
export const ROLE_FIELDS: readonly string[] = ['name', 'description'];

interface RoleChangeLike {
  key: string;
  before?: unknown;
  after: unknown;
  unset?: true | undefined;
}

/**
 * Why a role change's changes are not one the app makes, or undefined when they are: a deletion
 * is exactly `role` (the id, to nothing); an update, a new name or description; a creation, a
 * name, perhaps a description, and permissions to set. Pure.
 */
export function roleChangesProblem(
  action: RoleAction,
  changes: readonly RoleChangeLike[],
  role?: string,
): string | undefined {
  if (changes.some((c) => c.unset)) return 'a change to a role unsets nothing';
  if (action === 'delete') {
    // CometChat keeps `default` for every user given no other role: never asked to delete it.
    if (role === 'default') return 'the role `default` is never deleted';
    const [only] = changes;
    return changes.length === 1 && only?.key === 'role' && only.after === null
      ? undefined
      : 'a deletion is one change of `role` to nothing';
  }
  const fields = changes.filter((c) => ROLE_FIELDS.includes(c.key));
  if (fields.some((c) => !fieldFits(c.key, c.after))) return 'a name or description does not fit';
  if (action === 'update') {
    return fields.length === changes.length && fields.length > 0
      ? undefined
      : 'an update changes the name or the description only';
  }
  if (!fields.some((c) => c.key === 'name')) return 'a new role needs a name';
  return changes.some((c) => c.key === 'role') ? 'a new role is not a deletion' : undefined;
}

function fieldFits(key: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return key === 'name'
    ? value.trim().length > 0 && value.length <= MAX_ROLE_NAME
    : value.length <= MAX_ROLE_DESCRIPTION;
}

/** A role change's parts: its name and description, and a created role's permissions. Pure. */
export function roleParts(changes: readonly RoleChangeLike[]): {
  name?: string | undefined;
  description?: string | undefined;
  permissions: PermissionMap;
} {
  const text = (key: string) => {
    const found = changes.find((c) => c.key === key)?.after;
    return typeof found === 'string' ? found : undefined;
  };
  const permissions = Object.fromEntries(
    changes
      .filter((c) => !ROLE_FIELDS.includes(c.key) && c.key !== 'role')
      .map((c) => [c.key, c.after as PermissionMap[string]]),
  );
  return { name: text('name'), description: text('description'), permissions };
}

/** What sending a role change may ask of CometChat. */
export type RoleChangeClient = Pick<
  CometChatClient,
  'createRole' | 'updateRole' | 'deleteRole' | 'setRolePermissions' | 'listAllRoles'
>;

/** What a role change's answer says: per key, and a created role's permissions as set. */
export interface RoleSent {
  results: Record<string, KeyResult>;
  permissions?: PermissionMap | undefined;
}

/** Sends a role change: a creation and then its permissions, an update, or a deletion. */
export async function sendRoleChange(
  client: RoleChangeClient,
  change: { role: string; action: RoleAction; changes: readonly RoleChangeLike[] },
  request: RequestOptions,
): Promise<RoleSent> {
  const { role } = change;
  const parts = roleParts(change.changes);
  if (change.action === 'delete') return deleteOnce(client, role, request);
  if (change.action === 'update') {
    const answer = await client.updateRole(role, parts, request);
    const wrong = roleAnswerProblem(answer, parts);
    if (wrong) throw new ChangeNotTaken(`role ${code(role)}`, wrong);
    return { results: { role: { success: true, message: `role ${role} updated` } } };
  }
  const created = await client.createRole(
    { role, name: parts.name ?? role, description: parts.description },
    request,
  );
  if (created.role !== role) {
    throw new ChangeNotTaken(`role ${code(role)}`, {
      plain: `created role ${created.role}, not ${role}`,
      mrkdwn: `created role ${code(truncate(created.role, 100))}, not ${code(role)},`,
    });
  }
  if (Object.keys(parts.permissions).length === 0) {
    return { results: { role: { success: true, message: `role ${role} created` } } };
  }
  return permissionsOfNew(client, role, parts.permissions, request);
}

/**
 * A deletion's answer may be lost and the request retried: a role that is gone already was
 * deleted (the claim was taken only after the review saw it there).
 */
async function deleteOnce(
  client: RoleChangeClient,
  role: string,
  request: RequestOptions,
): Promise<RoleSent> {
  try {
    const answer = await client.deleteRole(role, request);
    if (!answer.success) {
      throw new ChangeNotTaken(`role ${code(role)}`, {
        plain: `answered that the role was not deleted (${answer.message})`,
        mrkdwn: `answered that the role was not deleted (${escapeMrkdwn(truncate(answer.message, 200))})`,
      });
    }
  } catch (error) {
    if (!isCometChatError(error) || error.kind !== 'not_found') throw error;
    const roles = await client.listAllRoles({ ...request, fresh: true });
    if (roles.some((r) => r.role === role)) throw error;
  }
  return { results: { role: { success: true, message: `role ${role} deleted` } } };
}

/**
 * The new role's permissions, set by one update after its creation. Refused, the role is removed
 * again so that no role is left half made; if even that fails, the sentence says what is left.
 */
async function permissionsOfNew(
  client: RoleChangeClient,
  role: string,
  permissions: PermissionMap,
  request: RequestOptions,
): Promise<{ permissions: PermissionMap; results: Record<string, KeyResult> }> {
  try {
    const update = await client.setRolePermissions(role, permissions, request);
    return {
      permissions: update.permissions,
      results: { role: { success: true, message: `role ${role} created` }, ...update.results },
    };
  } catch (error) {
    const removed = await client.deleteRole(role, request).then(
      (answer) => answer.success,
      () => false,
    );
    throw refusedPermissions(role, error, removed);
  }
}

/**
 * A new role whose permissions CometChat refused: removed again (the change did not take), or,
 * when even that failed, left with the default permissions (partly taken: an unknown outcome).
 * CometChat's own words are escaped; they may hold anything.
 */
function refusedPermissions(role: string, error: unknown, removed: boolean): ChangeNotTaken {
  const why = isCometChatError(error)
    ? `${error.kind}${error.serviceMessage ? `: ${error.serviceMessage}` : ''}`
    : 'an error inside the app';
  const after = removed
    ? 'the role was removed again'
    : 'and the role could not be removed: it exists with the default permissions';
  return new ChangeNotTaken(
    `role ${code(role)}`,
    {
      plain: `created the role but refused its permissions (${why}); ${after}`,
      mrkdwn: `created the role but refused its permissions (${escapeMrkdwn(truncate(why, 300))}); ${after}`,
    },
    !removed,
  );
}

/** Why an update's answer is not what was sent, in words, or undefined when it is. Pure. */
function roleAnswerProblem(
  answer: Role,
  sent: { name?: string | undefined; description?: string | undefined },
): { plain: string; mrkdwn: string } | undefined {
  const named = sent.name === undefined || answer.name === sent.name;
  const described = sent.description === undefined || answer.description === sent.description;
  if (named && described) return undefined;
  const said = 'answered with another name or description than was sent';
  return { plain: said, mrkdwn: said };
}

/** The role as CometChat has it now, from the list (undefined: there is no such role). */
function roleNamed(roles: readonly Role[], role: string): Role | undefined {
  return roles.find((r) => r.role === role);
}

/**
 * Why a role change can no longer be sent as reviewed, in one sentence, or undefined when it
 * can: a role to create that exists now or would be one too many, a role to update or delete that
 * is gone or whose name or description changed meanwhile. Pure.
 */
export function roleStaleness(
  roles: readonly Role[],
  change: { role: string; action: RoleAction; changes: readonly RoleChangeLike[] },
): string | undefined {
  const now = roleNamed(roles, change.role);
  const id = code(change.role);
  if (change.action === 'create') {
    if (now && Object.keys(roleParts(change.changes).permissions).length > 0) {
      return `A role ${id} exists now (perhaps from an earlier attempt whose answer never came), so nothing was sent; its permissions may not be set: check them with \`/cometchat perms ${change.role}\`.`;
    }
    if (now) return `A role ${id} exists now, so nothing was sent.`;
    return roles.length >= MAX_ROLES ? roleLimitSentence(roles.length) : undefined;
  }
  if (!now) return `There is no role ${id} any more, so nothing was sent.`;
  const moved = change.changes.some(
    (c) => ROLE_FIELDS.includes(c.key) && (now[c.key as 'name'] ?? '') !== (c.before ?? ''),
  );
  return moved
    ? `Someone changed the name or description of ${id} since the review, so nothing was sent. \`/cometchat roles\` shows it now.`
    : undefined;
}

/** Whether CometChat has a role change already (after an attempt whose outcome was unknown). Pure. */
export function roleHasChange(
  roles: readonly Role[],
  change: { role: string; action: RoleAction; changes: readonly RoleChangeLike[] },
): boolean {
  const now = roleNamed(roles, change.role);
  if (change.action === 'delete') return now === undefined;
  if (!now) return false;
  // A new role found there after an unknown outcome may lack the permissions that were to be
  // set right after it: that cannot be read, so it is not called done.
  if (change.action === 'create' && Object.keys(roleParts(change.changes).permissions).length > 0) {
    return false;
  }
  return change.changes
    .filter((c) => ROLE_FIELDS.includes(c.key))
    .every((c) => (now[c.key as 'name'] ?? '') === c.after);
}

/** What a role change asks, as a verb phrase: "delete role `vip`". Pure. */
export function roleAsk(action: RoleAction, role: string): string {
  const verb = { create: 'create', update: 'rename or describe', delete: 'delete' }[action];
  return `${verb} role ${code(role)}`;
}

/**
 * A role change's lines, as an approver reads them: the name and description from before to
 * after, a new role's permissions as set; a deletion has none (its question says it all). Pure.
 */
export function roleChangeLines(changes: readonly RoleChangeLike[]): string[] {
  const text = (v: unknown) =>
    typeof v === 'string' && v !== '' ? `*${escapeMrkdwn(truncate(v, 255))}*` : '_none_';
  return changes
    .filter((c) => c.key !== 'role')
    .map((c) =>
      ROLE_FIELDS.includes(c.key)
        ? `${c.key}: ${text(c.before)} → ${text(c.after)}`
        : `${permissionKeyText(c.key)}: ${permissionValueText(c.after as PermissionMap[string], holdsRoleIds(c.key))}`,
    );
}

/** What a role change did, in words ("created, with 3 permissions set"). Pure. */
export function roleChangeDone(action: RoleAction, changes: readonly RoleChangeLike[]): string {
  if (action === 'delete') return 'deleted';
  const { name, description, permissions } = roleParts(changes);
  const parts = [
    ...(name !== undefined ? [`named *${escapeMrkdwn(truncate(name, 100))}*`] : []),
    ...(description === '' ? ['no description'] : []),
    ...(description ? ['described'] : []),
  ];
  const set = Object.keys(permissions).length;
  if (action === 'update') return parts.join(', ');
  return `created, ${[...parts, set > 0 ? `with ${counted(set, 'permission')} set` : 'with the default permissions'].join(', ')}`;
}
