import { z } from 'zod';
import { sameValue } from '../cometchat/catalogue.ts';
import type { Group } from '../cometchat/group-model.ts';
import { MAX_ROLES } from '../cometchat/id-rules.ts';
import { accountOf, type User } from '../cometchat/model.ts';
import type { ModerationRule } from '../cometchat/moderation-model.ts';
import type { PermissionMap, PermissionValue, Role } from '../cometchat/schemas.ts';
import { roleLimitSentence } from '../replies/sentences.ts';
import { code } from '../slack/mrkdwn.ts';
import type { AuditRecord, KnownPermissions } from '../store/store.ts';
import {
  type Change,
  changeId,
  decodeChange,
  encodeChange,
  idPayload,
  type KeyChange,
  ROLE_FIELDS,
  userKeyChange,
} from './change.ts';
import { bansMade, contains, revertibleAnyway } from './kinds/containment.ts';
import { kickIrreversible, type Standing, standingValue } from './kinds/group-member.ts';
import { deletionIrreversible } from './kinds/message-deletion.ts';
import { moderationIrreversible } from './kinds/moderation.ts';
import {
  RULE_FIELDS,
  ruleDifferences,
  ruleFromValues,
  ruleUpdateOf,
  ruleValues,
} from './kinds/rule-fields.ts';
import { sessionsIrreversible } from './kinds/sessions.ts';

// Revert: an applied change's audit record made into the change that puts it back (its inverse,
// from the record's "before" values), proposed through the same review, approval, apply-once and
// audit as any change; its record names the one it reverts (`reverts`). What the inverse cannot
// know (a value never read, a deleted role's permissions never seen) is said, not guessed.

/** A Revert button's value: the ref of the record to put back, signed for its app. */
export const RevertValueSchema = z.object({ revert: z.string().min(1).max(64) });

/** What is there now, read for the review of a revert. */
export interface Now {
  /** The app's roles as CometChat lists them now. */
  roles: readonly Role[];
  /** For a change to a user: the user now; undefined when CometChat has no such user. */
  user?: User | undefined;
  /** For a role's permissions: its last known map. */
  known?: KnownPermissions | undefined;
  /** For a role to delete: how many users hold it now (undefined: CometChat could not say). */
  holders?: number | undefined;
  /** For a moderation rule: the rule now; undefined when CometChat has no such rule. */
  rule?: ModerationRule | undefined;
  /** For a change of a group's member: where they stand in the group now. */
  member?: Standing | undefined;
  /** The app's documented defaults, which an unset key goes back to (a scope's, for a scope). */
  defaults: PermissionMap;
  /** For a group's scope: the group now; undefined when CometChat has no such group. */
  group?: Pick<Group, 'guid'> | undefined;
}

/** A key the revert sets that no longer has what the record set: what it has now. */
export interface ChangedSince {
  key: string;
  /** What the reverted change set. */
  set: PermissionValue;
  now: PermissionValue;
}

/** Something the revert cannot put back, and why. */
export type Gap =
  /** The record's "before" was the documented default, not read from CometChat. */
  | { kind: 'default-before'; key: string; value: PermissionValue }
  /** A key with no known default cannot be unset, and its value before was not known. */
  | { kind: 'no-default'; key: string }
  /** A deleted role's permissions this app never saw. */
  | { kind: 'permissions-unseen' }
  /** A deleted role's permissions as this app last saw them: a later change made elsewhere is lost. */
  | { kind: 'permissions-seen'; seenAt: number | undefined }
  /** A deletion recorded before its name and description were kept. */
  | { kind: 'unnamed' }
  /** A containment's revoked sessions, and its deleted messages if it deleted any. */
  | { kind: 'not-restored'; messages: boolean };

/** The inverse of a record, as its review shows it; or why there is none. */
export type Revert =
  | { kind: 'none'; sentence: string }
  | {
      kind: 'revert';
      change: Change;
      since: ChangedSince[];
      gaps: Gap[];
      /** For a deletion put back: the users it left with `default`, to move back. */
      moveBack?: AuditRecord['movedToDefault'];
      /** For a role to delete: how many users hold it now. */
      holders?: number | undefined;
    };

const none = (sentence: string): Revert => ({ kind: 'none', sentence });

/** Said of a record the app could not make a change of again (written by hand, or by a later version). */
const NOT_REVERTIBLE = 'This record is not one the app can put back; nothing was sent.';

/** Why a record that was not applied has no revert. Pure. */
export function notAppliedSentence(outcome: AuditRecord['outcome']): string {
  const what = outcome === 'failed' ? 'failed' : 'has an unknown outcome';
  return `Only an applied change can be reverted: this one ${what}, so there is nothing to put back.`;
}

/** The change that puts back `record`, from its "before" values and what is there now. Pure. */
export function revertOf(record: AuditRecord, now: Now): Revert {
  if (record.outcome !== 'applied' && !revertibleAnyway(record)) {
    return none(notAppliedSentence(record.outcome));
  }
  const target = record.subject;
  if (target?.kind === 'retention') return none(NOT_REVERTIBLE);
  let revert: Revert;
  const action = target?.kind === 'role' ? target.action : undefined;
  const irreversible = moderationIrreversible(record) ?? deletionIrreversible(record);
  const revoked = sessionsIrreversible(record) ?? kickIrreversible(record);
  if (irreversible) revert = none(`${irreversible} Nothing was sent.`);
  else if (revoked) revert = none(`${revoked} Nothing was sent.`);
  else if (target?.kind === 'user') revert = userRevert(record, target.uid, now);
  else if (target?.kind === 'containment') revert = containmentRevert(record, target.uid, now);
  else if (target?.kind === 'rule') revert = ruleRevert(record, now.rule);
  else if (target?.kind === 'scope') revert = scopeRevert(record, target, now);
  else if (target?.kind === 'group-member') revert = memberRevert(record, target, now.member);
  else if (action === 'create') revert = createdRevert(record, now);
  else if (action === 'update') revert = updatedRevert(record, now);
  else if (action === 'delete') revert = deletedRevert(record, now);
  else revert = permissionsRevert(record, now);
  // Checked as Slack will carry it back: a revert that the review could not submit is not offered.
  if (revert.kind === 'revert' && !decodeChange(encodeChange(revert.change))) {
    return none(NOT_REVERTIBLE);
  }
  return revert;
}

/** The change's id: the same revert of the same record, however often reviewed, applies once. */
function revertId(record: AuditRecord, target: string, changes: readonly KeyChange[]): string {
  return changeId(`revert ${record.ref}`, record.app, target, idPayload(changes));
}

/** A user's role or account, back to what the record had before. */
function userRevert(record: AuditRecord, uid: string, now: Now): Revert {
  const one = userKeyChange(record.changes.map((c) => ({ ...c, before: c.before ?? undefined })));
  if (!one || typeof one.before !== 'string') return none(NOT_REVERTIBLE);
  const { user } = now;
  if (!user) return none(`CometChat has no user ${code(uid)} now; nothing was sent.`);
  const target = one.before;
  const current = one.key === 'role' ? user.role : accountOf(user);
  const what = one.key === 'role' ? `role ${code(target)}` : `an ${target} account`;
  if (current === target) return none(`${code(uid)} has ${what} already; nothing to put back.`);
  if (one.key === 'role' && !now.roles.some((r) => r.role === target)) {
    return none(
      `There is no role ${code(target)} now, so ${code(uid)} cannot be given it back; nothing was sent.`,
    );
  }
  const changes = [{ key: one.key, before: current, after: target, explicit: false }];
  const fields = { uid, role: user.role, changes, reverts: record.ref };
  const id = revertId(record, `user:${uid}`, changes);
  return {
    kind: 'revert',
    change:
      one.key === 'role'
        ? { kind: 'user-role', id, ...fields }
        : { kind: 'account', id, ...fields },
    since: current === one.after ? [] : [{ key: one.key, set: one.after, now: current }],
    gaps: [],
  };
}

/**
 * A member's scope put back, a ban lifted, a lifted ban made again: from where they stand now to
 * the record's "before". A kick has none (kickIrreversible).
 */
function memberRevert(
  record: AuditRecord,
  { guid, uid }: { guid: string; uid: string },
  member: Standing | undefined,
): Revert {
  const [one] = record.changes;
  if (!one || !member || typeof one.before !== 'string') return none(NOT_REVERTIBLE);
  const current = standingValue(one.key, member);
  const who = `${code(uid)} in group ${code(guid)}`;
  if (one.key === 'scope' && member.scope === undefined) {
    return none(`${who} is not a member now, so their scope cannot be put back; nothing was sent.`);
  }
  if (current === one.before) {
    return none(`${who} has ${one.key} ${code(one.before)} already; nothing to put back.`);
  }
  const changes = [{ key: one.key, before: current, after: one.before, explicit: false }];
  const change: Change = {
    kind: 'group-member',
    guid,
    uid,
    role: '',
    id: revertId(record, `group:${guid}:${uid}`, changes),
    changes,
    reverts: record.ref,
  };
  const since = current === one.after ? [] : [{ key: one.key, set: one.after, now: current }];
  return { kind: 'revert', change, since, gaps: [] };
}

/**
 * A containment put back: the account reactivated and the bans it made lifted (those its record
 * names as applied). Sessions and messages are said, not put back: CometChat has no way.
 */
function containmentRevert(record: AuditRecord, uid: string, now: Now): Revert {
  const contained = {
    changes: record.changes.map((c) => ({ ...c, before: c.before ?? undefined })),
  };
  if (!contains(contained)) {
    return none(
      `A revert of a containment is not itself put back: contain the user again (\`/cometchat user ${uid} contain\`). Nothing was sent.`,
    );
  }
  const { user } = now;
  if (!user) return none(`CometChat has no user ${code(uid)} now; nothing was sent.`);
  const banned = bansMade({ ...contained, steps: record.steps });
  const active = accountOf(user) === 'active';
  if (active && banned.length === 0) {
    return none(
      `${code(uid)} is active already, and the containment banned them from no group; nothing to put back.`,
    );
  }
  const changes: KeyChange[] = [
    ...(active ? [] : [{ key: 'status', before: 'deactivated', after: 'active', explicit: false }]),
    ...(banned.length > 0 ? [{ key: 'bans', before: banned, after: [], explicit: false }] : []),
  ];
  const change: Change = {
    kind: 'containment',
    uid,
    role: user.role,
    id: revertId(record, `user:${uid}`, changes),
    changes,
    reverts: record.ref,
  };
  const since = active ? [{ key: 'status', set: 'deactivated', now: 'active' }] : [];
  const messages = record.changes.some((c) => c.key === 'messagesSince');
  return { kind: 'revert', change, since, gaps: [{ kind: 'not-restored', messages }] };
}

/** A moderation rule put back whole: the record's "before" of every field, by one PUT. */
function ruleRevert(record: AuditRecord, rule: ModerationRule | undefined): Revert {
  const id = record.role;
  if (!rule) return none(`There is no rule ${code(id)} now; nothing to put back.`);
  const before = ruleFromValues(
    id,
    Object.fromEntries(record.changes.map((c) => [c.key, c.before])),
  );
  if (!before) return none(NOT_REVERTIBLE);
  const now = ruleUpdateOf(rule);
  if (ruleDifferences(now, before).length === 0) {
    return none(
      `The rule ${code(id)} is as it was before this change already; nothing to put back.`,
    );
  }
  const current = ruleValues(now);
  const wanted = ruleValues(before);
  const changes = RULE_FIELDS.map((key) => ({
    key,
    before: current[key],
    after: wanted[key],
    explicit: false,
  }));
  const since = RULE_FIELDS.flatMap((key) => {
    const set = record.changes.find((c) => c.key === key)?.after;
    return set === undefined || sameValue(current[key], set)
      ? []
      : [{ key, set, now: current[key] }];
  });
  const change: Change = {
    kind: 'rule',
    role: id,
    id: revertId(record, `rule:${id}`, changes),
    changes,
    reverts: record.ref,
  };
  return { kind: 'revert', change, since, gaps: [] };
}

/** A role's name or description as CometChat has it (none: empty). */
const fieldOf = (role: Role, key: string) => (key === 'name' ? role.name : role.description) ?? '';

/** A role created is deleted. */
function createdRevert(record: AuditRecord, now: Now): Revert {
  const there = now.roles.find((r) => r.role === record.role);
  if (!there) return none(`There is no role ${code(record.role)} now; nothing to delete.`);
  const since = record.changes
    .filter((c) => ROLE_FIELDS.includes(c.key) && fieldOf(there, c.key) !== (c.after ?? ''))
    .map((c) => ({ key: c.key, set: c.after, now: fieldOf(there, c.key) }));
  const changes = [{ key: 'role', before: record.role, after: null, explicit: false }];
  return {
    kind: 'revert',
    change: {
      kind: 'role',
      action: 'delete',
      role: record.role,
      id: revertId(record, `role delete:${record.role}`, changes),
      changes,
      reverts: record.ref,
    },
    since,
    gaps: [],
    holders: now.holders,
  };
}

/** A rename or description put back. */
function updatedRevert(record: AuditRecord, now: Now): Revert {
  const there = now.roles.find((r) => r.role === record.role);
  if (!there) return none(`There is no role ${code(record.role)} now; nothing to put back.`);
  const fields = record.changes.filter((c) => ROLE_FIELDS.includes(c.key));
  const changes = fields
    .map((c) => ({
      key: c.key,
      before: fieldOf(there, c.key),
      after: typeof c.before === 'string' ? c.before : '',
      explicit: false,
    }))
    .filter((c) => c.before !== c.after);
  if (changes.length === 0) {
    return none(`${code(record.role)} has that name and description already; nothing to put back.`);
  }
  const since = fields
    .filter((c) => fieldOf(there, c.key) !== (c.after ?? ''))
    .map((c) => ({ key: c.key, set: c.after, now: fieldOf(there, c.key) }));
  const role = record.role;
  return {
    kind: 'revert',
    change: {
      kind: 'role',
      action: 'update',
      role,
      id: revertId(record, `role update:${role}`, changes),
      changes,
      reverts: record.ref,
    },
    since,
    gaps: [],
  };
}

/**
 * A role deleted is created again: its name and description as the record kept them, and its
 * permissions as this app last saw them (only the keys that differ from the defaults: the rest
 * are the default on a new role anyway).
 */
function deletedRevert(record: AuditRecord, now: Now): Revert {
  const { role, deletedRole } = record;
  if (now.roles.some((r) => r.role === role)) {
    return none(`There is a role ${code(role)} again already; nothing was sent.`);
  }
  if (now.roles.length >= MAX_ROLES) return none(roleLimitSentence(now.roles.length));
  const set = Object.entries(deletedRole?.permissions ?? {}).filter(
    ([key, value]) => !sameValue(value, now.defaults[key]),
  );
  const description = deletedRole?.description;
  const changes = [
    { key: 'name', before: null, after: deletedRole?.name || role, explicit: false },
    ...(description
      ? [{ key: 'description', before: null, after: description, explicit: false }]
      : []),
    ...set.map(([key, after]) => ({ key, before: null, after, explicit: false })),
  ];
  const gaps: Gap[] = [
    ...(deletedRole ? [] : [{ kind: 'unnamed' } as const]),
    deletedRole?.permissions
      ? { kind: 'permissions-seen', seenAt: deletedRole.seenAt }
      : { kind: 'permissions-unseen' },
  ];
  return {
    kind: 'revert',
    change: {
      kind: 'role',
      action: 'create',
      role,
      id: revertId(record, `role create:${role}`, changes),
      changes,
      reverts: record.ref,
    },
    since: [],
    gaps,
    moveBack: record.movedToDefault,
  };
}

/**
 * A role's permissions back to the record's "before": a key goes back to its value, or is unset
 * when that value was the default. A "before" that was only the documented default (the app had
 * not seen the role's map) is unset too, and said: another value it had cannot be known. A key
 * that has that value already (as far as the app knows) is left out.
 */
function permissionsRevert(record: AuditRecord, now: Now): Revert {
  if (!now.roles.some((r) => r.role === record.role)) {
    return none(`There is no role ${code(record.role)} now; nothing to put back.`);
  }
  return mapRevert(record, now, (fields) => ({ kind: 'permissions', ...fields }));
}

/** A group's scope's permissions back to the record's "before", as a role's (permissionsRevert). */
function scopeRevert(
  record: AuditRecord,
  target: Extract<AuditRecord['subject'], { kind: 'scope' }>,
  now: Now,
): Revert {
  if (!now.group) {
    return none(`CometChat has no group ${code(target.guid)} now; nothing to put back.`);
  }
  const { guid, scope } = target;
  return mapRevert(record, now, (fields) => ({
    kind: 'scope-permissions',
    guid,
    scope,
    ...fields,
  }));
}

/** The fields every change of a permission map has (see mapRevert). */
type MapFields = Pick<Change, 'role' | 'id' | 'changes' | 'seenAt' | 'reverts'>;

/**
 * A permission map's keys (a role's, a group's scope's) back to the record's "before", as the
 * change `make` builds of them; or why there is none. Pure.
 */
function mapRevert(record: AuditRecord, now: Now, make: (fields: MapFields) => Change): Revert {
  const values = { ...now.defaults, ...now.known?.permissions };
  const guessed = record.beforeSource === 'defaults';
  const changes: KeyChange[] = [];
  const since: ChangedSince[] = [];
  const gaps: Gap[] = [];
  for (const c of record.changes) {
    if (c.explicit && !c.unset) continue;
    const current = values[c.key];
    const fallback = now.defaults[c.key];
    const unset = guessed || c.before === null || sameValue(c.before, fallback);
    if (unset && fallback === undefined) {
      gaps.push({ kind: 'no-default', key: c.key });
      continue;
    }
    const after = unset ? (fallback ?? null) : c.before;
    if (sameValue(current, after)) continue;
    if (guessed) gaps.push({ kind: 'default-before', key: c.key, value: c.before });
    if (now.known && !sameValue(current, c.after)) {
      since.push({ key: c.key, set: c.after, now: current ?? null });
    }
    changes.push({
      key: c.key,
      before: current,
      after,
      explicit: false,
      ...(unset ? { unset: true as const } : {}),
    });
  }
  if (changes.length === 0) {
    return none(
      gaps.length > 0
        ? 'No key of this change can be put back: their values before are not known, and they have no documented default. Nothing was sent.'
        : 'Every key of this change has its value from before already (as far as this app knows); nothing to put back.',
    );
  }
  const change = make({
    role: record.role,
    id: revertId(record, record.role, changes),
    changes,
    seenAt: now.known?.seenAt,
    reverts: record.ref,
  });
  return { kind: 'revert', change, since, gaps };
}
