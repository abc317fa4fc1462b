import { type Catalogue, PERMISSIONS } from '../../cometchat/catalogue.ts';
import { GROUP_SCOPES, type GroupScope } from '../../cometchat/group-model.ts';
import type { PermissionValue } from '../../cometchat/schemas.ts';
import { code } from '../../slack/mrkdwn.ts';
import {
  accountStep,
  actionStep,
  type CanExplanation,
  type CanFacts,
  type CanLayer,
  type CanStep,
  conclude,
  judgeList,
  type RoleValues,
  type StepVerdict,
  type ValueSource,
  valueStep,
} from './can.ts';

// "Can this user do that in this group?": the role's walk (can.ts), then the group's layer, the
// way CometChat documents them: the group and its type, a ban, the membership, and the member's
// scope with that scope's value of the key. Pure: the facts are read beforehand
// (can-group-facts.ts).
//
// CometChat offers no read of a scope's values either. What the app knows is the map it last
// set for that group's scope, else the default CometChat lists in the scope's definitions (or,
// when they cannot be read, the documented one of the keys this app ships); a
// conclusion resting on a default is "cannot tell", as a role's is.

/** Messages, threads, reactions and calls happen inside a group; so does joining it. */
const IN_A_GROUP = new Set(['Messages', 'Message thread', 'Reactions', 'Calls']);

/** The actions that have a meaning inside one group, in catalogue order. */
export const GROUP_ACTION_KEYS: readonly string[] = Object.freeze(
  PERMISSIONS.filter(
    (spec) => spec.kind === 'action' && (IN_A_GROUP.has(spec.category) || spec.key === 'joinGroup'),
  ).map((spec) => spec.key),
);

const JOIN = 'joinGroup';

export interface CanGroup {
  guid: string;
  /** `public`, `private`, `password`, as CometChat says it. */
  type: string;
}

/**
 * What CometChat says of the user and the group: a member (with their scope, when it says), or
 * not (and whether the banned list names them: undefined when it could not be read whole); not
 * asked when nothing in the group can change the answer (a deactivated account).
 */
export type Membership =
  | { kind: 'member'; scope?: string | undefined }
  | { kind: 'not-member'; banned: boolean | undefined }
  | { kind: 'not-asked'; why: string };

/**
 * A group scope's values as the app knows them: the map this app last set for that group's scope
 * (the form of a role's), and the scope's keys with their defaults (readScopeCatalogue: CometChat's
 * definitions over the shipped keys, or those alone, `fallback`, when they cannot be read);
 * undefined when not read.
 */
export interface ScopeValues {
  known?: RoleValues['known'];
  catalogue?: Pick<Catalogue, 'source' | 'spec' | 'specs'> | undefined;
}

export interface GroupCanFacts extends Pick<CanFacts, 'action' | 'subject' | 'values'> {
  group: CanGroup;
  membership: Membership;
  scope: ScopeValues;
}

/** Whether a member's scope has a say: in everything done in the group, not in joining it. */
export function scopeDecides(action: string): boolean {
  return action !== JOIN;
}

/** Whether the scope's keys are needed: the scope decides the action, and no map says. */
export function scopeDefinitionsNeeded(action: string, known: ScopeValues['known']): boolean {
  return scopeDecides(action) && !(known && action in known.permissions);
}

/** The walk in a group: the account, the role's layer, the group's, the scope's. */
export function explainCanInGroup(facts: GroupCanFacts): CanExplanation {
  const steps = [
    accountStep(facts.subject),
    ...roleSteps(facts),
    typeStep(facts),
    ...membershipSteps(facts),
    ...scopeSteps(facts),
  ];
  return { steps, conclusion: conclude(steps) };
}

const inLayer =
  (layer: CanLayer) =>
  (step: CanStep): CanStep => ({ ...step, layer });

/** The member's scope, when CometChat said one of the three. */
function memberScope(membership: Membership): GroupScope | undefined {
  if (membership.kind !== 'member') return undefined;
  return GROUP_SCOPES.find((scope) => scope === membership.scope);
}

/** The role's keys of the action that a group decides: the action, receivers, group types. */
function roleSteps(facts: GroupCanFacts): CanStep[] {
  const { action } = facts;
  const optional = (step: CanStep | undefined) => (step ? [step] : []);
  const mode = valueStep(facts, `${action}.mode`, 'its mode', (value) =>
    value === 'friends'
      ? {
          verdict: 'unknown',
          because: 'friends only, and CometChat does not say what that means in a group',
        }
      : { verdict: 'passes', because: 'towards anyone' },
  );
  const receivers = valueStep(facts, `${action}.allowedReceiverTypes`, 'the receivers', (value) =>
    judgeList(value, 'group', 'a group'),
  );
  return [
    actionStep(facts),
    ...optional(mode),
    ...optional(receivers),
    ...optional(groupTypesStep(facts)),
    ...optional(denyForScopesStep(facts)),
    ...notCheckedSteps(action),
  ].map(inLayer('role'));
}

function groupTypesStep(facts: GroupCanFacts): CanStep | undefined {
  const { type } = facts.group;
  return valueStep(facts, `${facts.action}.allowedGroupTypes`, 'the group types', (value) =>
    judgeList(value, type, `a ${code(type)} group`),
  );
}

/**
 * `<action>.denyForScopes`, a role key CometChat's examples show (`editMessage.denyForScopes`):
 * not in the catalogue, so only a map this app set can name it.
 */
function denyForScopesStep(facts: GroupCanFacts): CanStep | undefined {
  const key = `${facts.action}.denyForScopes`;
  if (!facts.values.known || !(key in facts.values.known.permissions)) return undefined;
  const scope = memberScope(facts.membership);
  return valueStep(facts, key, 'the scopes it denies', (value) => {
    const list = Array.isArray(value) ? value : value === null ? [] : [value];
    if (list.length === 0) return { verdict: 'passes', because: 'no scope is denied' };
    if (scope === undefined)
      return { verdict: 'unknown', because: 'denied to some scopes, and their scope is not known' };
    return list.includes(scope)
      ? { verdict: 'denies', because: `scope ${code(scope)} is in the list` }
      : { verdict: 'passes', because: `scope ${code(scope)} is not in the list` };
  });
}

/** The role's other keys of the action depend on the message or call, which is not named. */
function notCheckedSteps(action: string): CanStep[] {
  const checked = new Set(['mode', 'allowedReceiverTypes', 'allowedGroupTypes']);
  return PERMISSIONS.filter(
    (spec) => spec.key.startsWith(`${action}.`) && !checked.has(spec.key.slice(action.length + 1)),
  ).map((spec) => ({
    rule: 'not checked',
    key: spec.key,
    verdict: 'not-checked' as const,
    because: 'depends on the message, call or user, which the question does not name',
  }));
}

/** The group and its type; to join, the type decides how (CometChat's join rules). */
function typeStep({ action, group }: GroupCanFacts): CanStep {
  const what = `${code(group.guid)} is a ${code(group.type)} group`;
  if (action !== JOIN)
    return { rule: 'the group', verdict: 'passes', because: what, layer: 'group' };
  return { rule: 'the group', ...joinByType(group.type), layer: 'group' };
}

function joinByType(type: string): { verdict: StepVerdict; because: string } {
  switch (type) {
    case 'public':
      return { verdict: 'passes', because: 'a public group: anyone may join it' };
    case 'password':
      return { verdict: 'passes', because: 'a password group: they may join it with its password' };
    case 'private':
      return {
        verdict: 'denies',
        because: 'a private group: nobody joins it, an admin or the app adds members',
      };
    default:
      return {
        verdict: 'unknown',
        because: `CometChat says the type is ${code(type)}, which the app does not know`,
      };
  }
}

/** A ban, then the membership; someone outside it is shown what joining would take. */
function membershipSteps(facts: GroupCanFacts): CanStep[] {
  const { membership } = facts;
  const group = inLayer('group');
  if (membership.kind === 'not-asked') {
    return [group({ rule: 'membership', verdict: 'not-checked', because: membership.why })];
  }
  if (membership.kind === 'member') {
    return [
      group({
        rule: 'a ban',
        verdict: 'passes',
        because: 'a member: a ban would have removed them',
      }),
      group({
        rule: 'membership',
        verdict: 'passes',
        because: memberText(facts.action, membership),
      }),
    ];
  }
  return [group(banStep(membership.banned)), ...outsideSteps(facts, membership.banned)];
}

function memberText(action: string, membership: { scope?: string | undefined }): string {
  if (action === JOIN) return 'already a member';
  const scope = membership.scope;
  return scope === undefined
    ? 'a member (CometChat did not say their scope)'
    : `a member, scope ${code(scope)}`;
}

function banStep(banned: boolean | undefined): CanStep {
  const rule = 'a ban';
  if (banned === undefined)
    return { rule, verdict: 'unknown', because: 'the banned list could not be read whole' };
  return banned
    ? {
        rule,
        verdict: 'denies',
        because: 'banned from the group: they cannot join it again until the ban is lifted',
      }
    : { rule, verdict: 'passes', because: 'not on the banned list' };
}

/** Not a member: to join is what is asked, or what it would take, in CometChat's join rules. */
function outsideSteps(facts: GroupCanFacts, banned: boolean | undefined): CanStep[] {
  if (facts.action === JOIN) {
    return [{ rule: 'membership', verdict: 'passes', because: 'not a member yet', layer: 'group' }];
  }
  const outside: CanStep = {
    rule: 'membership',
    verdict: 'denies',
    because: `not a member: CometChat takes ${code(facts.action)} in a group from its members`,
    layer: 'group',
  };
  if (banned === true) return [outside];
  const join = { ...facts, action: JOIN };
  const types = groupTypesStep(join);
  const joining = types ? [actionStep(join), types] : [actionStep(join)];
  return [
    outside,
    ...joining.map((step) => ({ ...step, rule: 'to join', layer: 'role' as const })),
    { rule: 'to join', ...joinByType(facts.group.type), layer: 'group' },
  ];
}

/** The member's scope and its value of the action: the map this app set, else the default. */
function scopeSteps(facts: GroupCanFacts): CanStep[] {
  if (facts.membership.kind !== 'member' || !scopeDecides(facts.action)) return [];
  const scope = memberScope(facts.membership);
  const rule = 'the scope';
  if (scope === undefined) {
    return [
      {
        rule,
        key: facts.action,
        verdict: 'unknown',
        source: { kind: 'unknown' },
        because: 'CometChat did not say which of the three scopes is theirs',
        layer: 'scope',
      },
    ];
  }
  const found = scopeValue(facts.scope, facts.action);
  const step: CanStep =
    found.kind === 'value'
      ? {
          rule,
          key: facts.action,
          value: found.value,
          source: found.source,
          ...judgeScope(scope, found.value),
        }
      : {
          rule,
          key: facts.action,
          verdict: found.verdict,
          because: found.because,
          ...(found.verdict === 'unknown' ? { source: { kind: 'unknown' } } : {}),
        };
  return [step, ...scopeNotChecked(facts.scope, facts.action)].map(inLayer('scope'));
}

type ScopeFound =
  | { kind: 'value'; value: PermissionValue; source: ValueSource }
  | { kind: 'none'; verdict: StepVerdict; because: string };

/** The scope's value of `key`: the map this app last set, else the listed default, else none. */
export function scopeValue(values: ScopeValues, key: string): ScopeFound {
  if (values.known && key in values.known.permissions) {
    const { permissions, seenAt, ref } = values.known;
    const source = { kind: 'last-update' as const, seenAt, ...(ref === undefined ? {} : { ref }) };
    return { kind: 'value', value: permissions[key] ?? null, source };
  }
  const { catalogue } = values;
  if (catalogue === undefined) {
    return { kind: 'none', verdict: 'unknown', because: "the scope's keys were not read" };
  }
  const listed = catalogue.source === 'service';
  const spec = catalogue.spec(key);
  if (!spec || spec.undefinedByService) {
    const keys = listed ? "the scope's permissions" : "the scope's documented keys";
    return { kind: 'none', verdict: 'passes', because: `${keys} do not name it` };
  }
  const source = { kind: 'default' as const, ...(listed ? { listed } : {}) };
  return { kind: 'value', value: spec.default, source };
}

function judgeScope(
  scope: GroupScope,
  value: PermissionValue,
): { verdict: StepVerdict; because: string } {
  return value === 'deny'
    ? { verdict: 'denies', because: `scope ${code(scope)} is denied it` }
    : { verdict: 'passes', because: `scope ${code(scope)} is allowed it` };
}

/** The scope's other keys of the action (`initiateCall.allowedType`): they depend on the call. */
function scopeNotChecked(values: ScopeValues, action: string): CanStep[] {
  const keys = new Set([
    ...(values.catalogue?.specs ?? []).map((spec) => spec.key),
    ...Object.keys(values.known?.permissions ?? {}),
  ]);
  return [...keys]
    .filter((key) => key.startsWith(`${action}.`))
    .map((key) => ({
      rule: 'not checked',
      key,
      verdict: 'not-checked' as const,
      because: 'depends on the message, call or other members, which the question does not name',
    }));
}
