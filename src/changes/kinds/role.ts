import { holdsRoleIds } from '../../cometchat/catalogue.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { MAX_ROLES } from '../../cometchat/id-rules.ts';
import type { KeyResult, PermissionMap, PermissionValue, Role } from '../../cometchat/schemas.ts';
import { ChangeNotTaken } from '../../replies/failure.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { permissionValueText } from '../../replies/permission-value-text.ts';
import { counted, roleLimitSentence } from '../../replies/sentences.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import { type KeyChange, ROLE_FIELDS, type RoleAction, type RoleChange } from '../change.ts';
import type { ChangeClient, Kind, Reads, RecordFacts, Sent } from './kind.ts';

// A role itself, not its permissions: created (its permissions set right after, by one update),
// renamed or described, or deleted. "Is it still as reviewed?" is asked of CometChat's role
// list, read past any cache; a deletion's record names who held the role.

/** The most users a deletion's record names (one page of CometChat's user list). */
const NAMED_HOLDERS = 1000;

export function roleKind(change: RoleChange): Kind {
  const { role, action, changes } = change;
  // The roles as the staleness check read them (fresh): the deletion's record reads the role
  // from them instead of asking CometChat a second time for the same list.
  let checked: Role[] | undefined;
  return {
    target: `role:${role}`,
    name: `role ${code(role)}${action === 'create' ? ' (new)' : ''}`,
    done: roleChangeDone(action, changes),
    outOfDate: `${code(role)} changed since the review, so nothing was sent. \`/cometchat roles\` shows the roles as CometChat has them now.`,
    logged: 'role changed',
    send: (client) => sendRoleChange(client, change),
    async sinceReview({ app }) {
      const roles = await app.cometchat.listAllRoles({ fresh: true });
      checked = roles;
      const why = roleStaleness(roles, change);
      return { changed: why !== undefined, why, has: roleHasChange(roles, change) };
    },
    recordFacts: async (client, reads) =>
      action === 'delete'
        ? { ...(await holdersOf(client, role)), ...(await roleAsItWas(reads, role, checked)) }
        : {},
  };
}

/**
 * The role as it was just before its deletion: its name and description as CometChat lists
 * them, and its permissions as this app last saw them. The record keeps them, so that the
 * deletion can be put back (a role CometChat deleted cannot be read again).
 */
async function roleAsItWas(
  { store, app }: Reads,
  role: string,
  checked: Role[] | undefined,
): Promise<RecordFacts> {
  const [roles, known] = await Promise.all([
    checked ?? app.cometchat.listAllRoles(),
    store.getKnownPermissions(app.name, role),
  ]);
  const found = roles.find((r) => r.role === role);
  if (!found) return {};
  const { name, description } = found;
  const seen = known ? { permissions: known.permissions, seenAt: known.seenAt } : {};
  return { deletedRole: { name, ...(description ? { description } : {}), ...seen } };
}

/**
 * Who holds the role, read just before it is deleted: CometChat leaves each of them with
 * `default` (every user holds exactly one role), and the record names them, so that what the
 * deletion did to them can be told and put back.
 */
async function holdersOf(client: ChangeClient, role: string): Promise<RecordFacts> {
  const page = await client.listUsers({
    role,
    withDeactivated: true,
    page: 1,
    perPage: NAMED_HOLDERS,
  });
  return {
    movedToDefault: { uids: page.users.map((u) => u.uid), total: page.pagination.total },
  };
}

/** A role change's keys, as far as its rules read them. */
type RoleKeys = readonly Pick<KeyChange, 'key' | 'after'>[];

/** The same, with each key's "before", where the review saw one. */
type ReviewedKeys = readonly (Pick<KeyChange, 'key' | 'after'> & { before?: unknown })[];

/** A role change's parts: its name and description, and a created role's permissions. Pure. */
export function roleParts(changes: RoleKeys): {
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
      .map((c) => [c.key, c.after]),
  );
  return { name: text('name'), description: text('description'), permissions };
}

/** Sends a role change: a creation and then its permissions, an update, or a deletion. */
async function sendRoleChange(client: ChangeClient, change: RoleChange): Promise<Sent> {
  const { role } = change;
  const parts = roleParts(change.changes);
  if (change.action === 'delete') return deleteOnce(client, role);
  if (change.action === 'update') {
    const answer = await client.updateRole(role, parts);
    const wrong = roleAnswerProblem(answer, parts);
    if (wrong) throw new ChangeNotTaken(`role ${code(role)}`, wrong);
    return { results: { role: { success: true, message: `role ${role} updated` } } };
  }
  const created = await client.createRole({
    role,
    name: parts.name ?? role,
    description: parts.description,
  });
  if (created.role !== role) {
    throw new ChangeNotTaken(`role ${code(role)}`, {
      plain: `created role ${created.role}, not ${role}`,
      mrkdwn: `created role ${code(truncate(created.role, 100))}, not ${code(role)},`,
    });
  }
  if (Object.keys(parts.permissions).length === 0) {
    return { results: { role: { success: true, message: `role ${role} created` } } };
  }
  return permissionsOfNew(client, role, parts.permissions);
}

/**
 * A deletion's answer may be lost and the request retried: a role that is gone already was
 * deleted (the claim was taken only after the review saw it there).
 */
async function deleteOnce(client: ChangeClient, role: string): Promise<Sent> {
  try {
    const answer = await client.deleteRole(role);
    if (!answer.success) {
      throw new ChangeNotTaken(`role ${code(role)}`, {
        plain: `answered that the role was not deleted (${answer.message})`,
        mrkdwn: `answered that the role was not deleted (${escapeMrkdwn(truncate(answer.message, 200))})`,
      });
    }
  } catch (error) {
    if (!isCometChatError(error) || error.kind !== 'not_found') throw error;
    const roles = await client.listAllRoles({ fresh: true });
    if (roles.some((r) => r.role === role)) throw error;
  }
  return { results: { role: { success: true, message: `role ${role} deleted` } } };
}

/**
 * The new role's permissions, set by one update after its creation. Refused, the role is removed
 * again so that no role is left half made; if even that fails, the sentence says what is left.
 */
async function permissionsOfNew(
  client: ChangeClient,
  role: string,
  permissions: PermissionMap,
): Promise<{ permissions: PermissionMap; results: Record<string, KeyResult> }> {
  try {
    const update = await client.setRolePermissions(role, permissions);
    return {
      permissions: update.permissions,
      results: { role: { success: true, message: `role ${role} created` }, ...update.results },
    };
  } catch (error) {
    const removed = await client.deleteRole(role).then(
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

/** A role's name or description as CometChat has it (none: empty). */
function fieldOf(role: Role, key: string): string {
  return (key === 'name' ? role.name : role.description) ?? '';
}

/**
 * Why a role change can no longer be sent as reviewed, in one sentence, or undefined when it
 * can: a role to create that exists now or would be one too many, a role to update or delete that
 * is gone or whose name or description changed meanwhile. Pure.
 */
export function roleStaleness(
  roles: readonly Role[],
  change: Pick<RoleChange, 'role' | 'action'> & { changes: ReviewedKeys },
): string | undefined {
  const now = roles.find((r) => r.role === change.role);
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
    (c) => ROLE_FIELDS.includes(c.key) && fieldOf(now, c.key) !== (c.before ?? ''),
  );
  return moved
    ? `Someone changed the name or description of ${id} since the review, so nothing was sent. \`/cometchat roles\` shows it now.`
    : undefined;
}

/** Whether CometChat has a role change already (after an attempt whose outcome was unknown). Pure. */
export function roleHasChange(
  roles: readonly Role[],
  change: Pick<RoleChange, 'role' | 'action'> & { changes: RoleKeys },
): boolean {
  const now = roles.find((r) => r.role === change.role);
  if (change.action === 'delete') return now === undefined;
  if (!now) return false;
  // A new role found there after an unknown outcome may lack the permissions that were to be
  // set right after it: that cannot be read, so it is not called done.
  if (change.action === 'create' && Object.keys(roleParts(change.changes).permissions).length > 0) {
    return false;
  }
  return change.changes
    .filter((c) => ROLE_FIELDS.includes(c.key))
    .every((c) => fieldOf(now, c.key) === c.after);
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
export function roleChangeLines(
  changes: readonly { key: string; before?: PermissionValue | undefined; after: PermissionValue }[],
): string[] {
  const text = (v: unknown) =>
    typeof v === 'string' && v !== '' ? `*${escapeMrkdwn(truncate(v, 255))}*` : '_none_';
  return changes
    .filter((c) => c.key !== 'role')
    .map((c) =>
      ROLE_FIELDS.includes(c.key)
        ? `${c.key}: ${text(c.before)} → ${text(c.after)}`
        : `${permissionKeyText(c.key)}: ${permissionValueText(c.after, holdsRoleIds(c.key))}`,
    );
}

/** What a role change did, in words ("created, with 3 permissions set"). Pure. */
function roleChangeDone(action: RoleAction, changes: RoleKeys): string {
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
