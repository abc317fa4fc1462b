import { PERMISSIONS, permissionSpec } from '../../cometchat/catalogue.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import type { PermissionMap, PermissionValue } from '../../cometchat/schemas.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { code } from '../../slack/mrkdwn.ts';

// "Can this user do that?": the walk CometChat's RBAC documents, one step per rule, each with the
// value it used and where that value came from. Pure: the facts it needs (the two users, the
// role's values, friendship and blocks) are asked of CometChat and the store beforehand, and
// `factsNeeded` says which.
//
// The service offers no read of a role's configured permissions. What the app knows is the full
// map CometChat answered with when this app last changed the role; otherwise only the
// documented defaults, which the dashboard may have changed since. A conclusion that rests on a
// default is therefore "cannot tell", with what the defaults would give.

/** The permission actions (`sendMessage`, `initiateCall`, ...), in catalogue order. */
export const ACTION_KEYS: readonly string[] = Object.freeze(
  PERMISSIONS.filter((spec) => spec.kind === 'action').map((spec) => spec.key),
);

/** Actions a user takes towards another user, where blocks between the two apply. */
const TOWARDS_A_USER = new Set(['sendMessage', 'sendThreadedMessage', 'initiateCall']);

export interface CanPerson {
  uid: string;
  role: string;
  deactivated: boolean;
}

/** A user as the walk sees them. */
export function canPerson(user: User): CanPerson {
  return { uid: user.uid, role: user.role, deactivated: accountOf(user) === 'deactivated' };
}

/**
 * Where a role's value came from: the map CometChat answered when this app last changed the role
 * (when, and the reference of that change when the map was stored with one), the documented
 * default, or nowhere.
 */
export type ValueSource =
  | { kind: 'last-update'; seenAt: number; ref?: string }
  | {
      kind: 'default';
      /** A group scope's default as the app's CometChat lists it (else the documented one). */
      listed?: boolean | undefined;
    }
  | { kind: 'unknown' };

/**
 * The role's values as the app knows them: the last update's map, else none. `ref` is the
 * reference of the change that set the map; a map an earlier version stored has none.
 */
export interface RoleValues {
  known?: { permissions: PermissionMap; seenAt: number; ref?: string | undefined } | undefined;
}

export interface CanFacts {
  action: string;
  subject: CanPerson;
  target?: CanPerson | undefined;
  values: RoleValues;
  /** Asked of CometChat when the mode is `friends` (see factsNeeded); undefined: not asked. */
  friends?: boolean | undefined;
  /** Whether either of the two blocked the other; undefined: not asked. */
  blocked?: { bySubject: boolean; byTarget: boolean } | undefined;
}

export type StepVerdict = 'passes' | 'denies' | 'unknown' | 'not-checked';

/**
 * In a group, CometChat asks two layers: the user's role (app-wide), then the group itself (the
 * membership, a ban) and the member's scope there, whose permissions have the form of a role's.
 */
export type CanLayer = 'role' | 'group' | 'scope';

export interface CanStep {
  /** What the step checks, in words. */
  rule: string;
  key?: string | undefined;
  value?: PermissionValue | undefined;
  source?: ValueSource | undefined;
  verdict: StepVerdict;
  /** Why it passes, denies or cannot be told. */
  because: string;
  /** The layer it belongs to, in a group's walk (the account's step has none). */
  layer?: CanLayer | undefined;
}

export type CanConclusion =
  | { kind: 'allowed' }
  | {
      kind: 'denied';
      key?: string | undefined;
      value?: PermissionValue | undefined;
      why: string;
      /** In a group's walk, the layer that denies. */
      layer?: CanLayer | undefined;
    }
  | { kind: 'cannot-tell'; why: string; byDefaults?: 'allowed' | 'denied' | undefined };

export interface CanExplanation {
  steps: CanStep[];
  conclusion: CanConclusion;
}

/** The role's value for `key` and where it came from. */
export function roleValue(
  values: RoleValues,
  key: string,
): { value: PermissionValue; source: ValueSource } | undefined {
  if (values.known && key in values.known.permissions) {
    const { permissions, seenAt, ref } = values.known;
    return {
      value: permissions[key] ?? null,
      source: { kind: 'last-update', seenAt, ...(ref === undefined ? {} : { ref }) },
    };
  }
  const spec = permissionSpec(key);
  return spec ? { value: spec.default, source: { kind: 'default' } } : undefined;
}

/** Which facts the walk needs from CometChat, so nothing is asked that would not be used. */
export function factsNeeded(
  action: string,
  values: RoleValues,
  hasTarget: boolean,
): { friends: boolean; blocks: boolean } {
  const mode = roleValue(values, `${action}.mode`)?.value;
  return {
    friends: hasTarget && mode === 'friends',
    blocks: hasTarget && TOWARDS_A_USER.has(action),
  };
}

/** The walk: the account, the action's value, its mode, its role and type lists, blocks. */
export function explainCan(facts: CanFacts): CanExplanation {
  const steps = [
    accountStep(facts.subject),
    actionStep(facts),
    ...modeSteps(facts),
    ...listSteps(facts),
    ...blockSteps(facts),
    ...notCheckedSteps(facts.action),
  ];
  return { steps, conclusion: conclude(steps) };
}

export function accountStep(subject: CanPerson): CanStep {
  return subject.deactivated
    ? { rule: 'account', verdict: 'denies', because: 'the account is deactivated' }
    : { rule: 'account', verdict: 'passes', because: 'the account is active' };
}

export function valueStep(
  facts: Pick<CanFacts, 'values'>,
  key: string,
  rule: string,
  judge: (value: PermissionValue) => { verdict: StepVerdict; because: string },
): CanStep | undefined {
  const found = roleValue(facts.values, key);
  if (!found) return undefined;
  return { rule, key, value: found.value, source: found.source, ...judge(found.value) };
}

export function actionStep(facts: Pick<CanFacts, 'action' | 'subject' | 'values'>): CanStep {
  const step = valueStep(facts, facts.action, 'the action', (value) =>
    value === 'deny'
      ? { verdict: 'denies', because: `role ${code(facts.subject.role)} is denied it` }
      : { verdict: 'passes', because: `role ${code(facts.subject.role)} is allowed it` },
  );
  return (
    step ?? {
      rule: 'the action',
      key: facts.action,
      verdict: 'unknown',
      source: { kind: 'unknown' },
      because: 'the app knows no value for it',
    }
  );
}

function modeSteps(facts: CanFacts): CanStep[] {
  const step = valueStep(facts, `${facts.action}.mode`, 'its mode', (value) => {
    if (value !== 'friends') return { verdict: 'passes', because: 'towards anyone' };
    if (!facts.target) return { verdict: 'unknown', because: 'friends only: name the other user' };
    if (facts.friends === undefined)
      return { verdict: 'unknown', because: 'friends only, and CometChat was not asked' };
    return facts.friends
      ? { verdict: 'passes', because: `${code(facts.target.uid)} is a friend` }
      : {
          verdict: 'denies',
          because: `friends only, and ${code(facts.target.uid)} is not a friend`,
        };
  });
  return step ? [step] : [];
}

/** `.allowedRoles` / `.allowedReceiverRoles` against the target's role, and receiver types. */
function listSteps(facts: CanFacts): CanStep[] {
  const steps: CanStep[] = [];
  for (const suffix of ['allowedRoles', 'allowedReceiverRoles']) {
    const step = valueStep(facts, `${facts.action}.${suffix}`, 'the roles it may reach', (value) =>
      judgeList(
        value,
        facts.target?.role,
        facts.target ? `role ${code(facts.target.role)}` : undefined,
      ),
    );
    if (step) steps.push(step);
  }
  const types = valueStep(facts, `${facts.action}.allowedReceiverTypes`, 'the receivers', (value) =>
    judgeList(value, facts.target ? 'user' : undefined, 'a user'),
  );
  if (types) steps.push(types);
  return steps;
}

export function judgeList(
  value: PermissionValue,
  wanted: string | undefined,
  what: string | undefined,
): { verdict: StepVerdict; because: string } {
  if (value === null || (Array.isArray(value) && value.length === 0)) {
    return { verdict: 'passes', because: 'no restriction' };
  }
  if (wanted === undefined || what === undefined) {
    return { verdict: 'unknown', because: 'restricted: name the other user' };
  }
  const list = Array.isArray(value) ? value : [value];
  return list.includes(wanted)
    ? { verdict: 'passes', because: `${what} is in the list` }
    : { verdict: 'denies', because: `${what} is not in the list` };
}

function blockSteps(facts: CanFacts): CanStep[] {
  if (!facts.target || !TOWARDS_A_USER.has(facts.action)) return [];
  const rule = 'blocks';
  if (!facts.blocked) return [{ rule, verdict: 'unknown', because: 'CometChat was not asked' }];
  const { bySubject, byTarget } = facts.blocked;
  if (bySubject || byTarget) {
    const who = bySubject
      ? `${code(facts.subject.uid)} blocked ${code(facts.target.uid)}`
      : `${code(facts.target.uid)} blocked ${code(facts.subject.uid)}`;
    return [{ rule, verdict: 'denies', because: who }];
  }
  return [{ rule, verdict: 'passes', because: 'neither blocked the other' }];
}

/** The action's other keys depend on the message or group, which the question does not name. */
function notCheckedSteps(action: string): CanStep[] {
  const checked = new Set(['mode', 'allowedRoles', 'allowedReceiverRoles', 'allowedReceiverTypes']);
  return PERMISSIONS.filter(
    (spec) => spec.key.startsWith(`${action}.`) && !checked.has(spec.key.slice(action.length + 1)),
  ).map((spec) => ({
    rule: 'not checked',
    key: spec.key,
    verdict: 'not-checked' as const,
    because: 'depends on the message or group, which the question does not name',
  }));
}

/**
 * The first step that denies decides, in the walk's order. A denial from CometChat's own facts
 * (the account, blocks, friendship) or from a value this app set stands; one from a documented
 * default cannot be told. With no denial, any step that rests on a default or is unknown makes
 * the answer "cannot tell".
 */
export function conclude(steps: readonly CanStep[]): CanConclusion {
  const fromDefault = (step: CanStep) =>
    step.source !== undefined && step.source.kind !== 'last-update';
  const denial = steps.find((step) => step.verdict === 'denies' && !fromDefault(step));
  if (denial) {
    const { key, value, because: why, layer } = denial;
    return { kind: 'denied', key, value, why, ...(layer === undefined ? {} : { layer }) };
  }
  const unknown = steps.find((step) => step.verdict === 'unknown');
  if (unknown) {
    return {
      kind: 'cannot-tell',
      why: `${unknown.key ? permissionKeyText(unknown.key) : unknown.rule}: ${unknown.because}`,
    };
  }
  const defaultDenial = steps.find((step) => step.verdict === 'denies');
  const defaulted = defaultDenial ?? steps.find((s) => s.verdict === 'passes' && fromDefault(s));
  if (defaulted) {
    return {
      kind: 'cannot-tell',
      why: `${permissionKeyText(defaulted.key ?? '')} was never set through this app, and CometChat offers no read of ${defaulted.layer === 'scope' ? "a group scope's" : "a role's"} permissions`,
      byDefaults: defaultDenial ? 'denied' : 'allowed',
    };
  }
  return { kind: 'allowed' };
}
