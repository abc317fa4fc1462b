import { describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../../src/cometchat/catalogue.ts';
import { mergeCatalogue } from '../../../src/cometchat/catalogue-merge.ts';
import type { PermissionDefinition } from '../../../src/cometchat/schemas.ts';
import {
  FALLBACK_SCOPE_CATALOGUE,
  SCOPE_PERMISSIONS,
} from '../../../src/cometchat/scope-catalogue.ts';
import type { CanStep } from '../../../src/features/users/can.ts';
import {
  explainCanInGroup,
  GROUP_ACTION_KEYS,
  type GroupCanFacts,
  scopeDefinitionsNeeded,
  scopeValue,
} from '../../../src/features/users/can-in-group.ts';

const alice = { uid: 'alice', role: 'support', deactivated: false };
const SEEN = 1_700_000_000_000;
const SCOPE_SEEN = 1_710_000_000_000;

function known(overrides: Record<string, string | string[] | null> = {}) {
  return { known: { permissions: { ...defaultPermissions(), ...overrides }, seenAt: SEEN } };
}

/** The definitions CometChat lists for a scope, in its documented form. */
const DEFINITIONS: PermissionDefinition[] = [
  {
    id: 'sendMessage',
    dataType: 'string',
    availableValues: ['allow', 'deny'],
    defaultValue: 'allow',
  },
  {
    id: 'addReaction',
    dataType: 'string',
    availableValues: ['allow', 'deny'],
    defaultValue: 'allow',
  },
  {
    id: 'initiateCall',
    dataType: 'string',
    availableValues: ['allow', 'deny'],
    defaultValue: 'allow',
  },
  { id: 'initiateCall.allowedType', dataType: 'stringArray', defaultValue: [] },
];
/** The scope's keys as the scope editor reads them: those definitions over the shipped keys. */
const LISTED = mergeCatalogue(SCOPE_PERMISSIONS, DEFINITIONS);

function ask(facts: Partial<GroupCanFacts>) {
  return explainCanInGroup({
    action: 'sendMessage',
    subject: alice,
    values: known(),
    group: { guid: 'hiking', type: 'public' },
    membership: { kind: 'member', scope: 'participant' },
    scope: { known: { permissions: { sendMessage: 'allow' }, seenAt: SCOPE_SEEN } },
    ...facts,
  });
}

const brief = (steps: CanStep[]) => steps.map((s) => [s.layer ?? '-', s.rule, s.verdict]);

describe('explainCanInGroup', () => {
  it('walks both layers, each step with its layer, and allows when each value was set here', () => {
    const { steps, conclusion } = ask({});
    expect(conclusion).toEqual({ kind: 'allowed' });
    expect(brief(steps).filter(([, , verdict]) => verdict !== 'not-checked')).toEqual([
      ['-', 'account', 'passes'],
      ['role', 'the action', 'passes'],
      ['role', 'its mode', 'passes'],
      ['role', 'the receivers', 'passes'],
      ['group', 'the group', 'passes'],
      ['group', 'a ban', 'passes'],
      ['group', 'membership', 'passes'],
      ['scope', 'the scope', 'passes'],
    ]);
    const scope = steps.find((s) => s.layer === 'scope');
    expect(scope).toMatchObject({
      key: 'sendMessage',
      value: 'allow',
      source: { kind: 'last-update', seenAt: SCOPE_SEEN },
      because: 'scope `participant` is allowed it',
    });
    expect(steps.find((s) => s.rule === 'membership')?.because).toBe(
      'a member, scope `participant`',
    );
  });

  it("is denied by the role's value, in the role's layer", () => {
    const { conclusion } = ask({ values: known({ sendMessage: 'deny' }) });
    expect(conclusion).toEqual({
      kind: 'denied',
      key: 'sendMessage',
      value: 'deny',
      why: 'role `support` is denied it',
      layer: 'role',
    });
  });

  it('is denied when the role keeps its messages from groups', () => {
    const { conclusion } = ask({
      values: known({ 'sendMessage.allowedReceiverTypes': ['user'] }),
    });
    expect(conclusion).toMatchObject({
      kind: 'denied',
      key: 'sendMessage.allowedReceiverTypes',
      why: 'a group is not in the list',
      layer: 'role',
    });
  });

  it("is denied by the scope's value this app set, in the scope's layer", () => {
    const { conclusion } = ask({
      scope: { known: { permissions: { sendMessage: 'deny' }, seenAt: SCOPE_SEEN, ref: 'ab12' } },
    });
    expect(conclusion).toEqual({
      kind: 'denied',
      key: 'sendMessage',
      value: 'deny',
      why: 'scope `participant` is denied it',
      layer: 'scope',
    });
  });

  it('is denied by a ban, whatever the values, and shows no way to join', () => {
    const { steps, conclusion } = ask({ membership: { kind: 'not-member', banned: true } });
    expect(conclusion).toMatchObject({ kind: 'denied', layer: 'group', key: undefined });
    expect(conclusion.kind === 'denied' && conclusion.why).toContain('banned from the group');
    expect(steps.some((s) => s.rule === 'to join')).toBe(false);
    expect(steps.some((s) => s.layer === 'scope')).toBe(false);
  });

  it('is denied to someone outside the group, and says what joining it would take', () => {
    const { steps, conclusion } = ask({ membership: { kind: 'not-member', banned: false } });
    expect(conclusion).toMatchObject({ kind: 'denied', layer: 'group' });
    expect(conclusion.kind === 'denied' && conclusion.why).toBe(
      'not a member: CometChat takes `sendMessage` in a group from its members',
    );
    const joining = steps.filter((s) => s.rule === 'to join');
    expect(joining.map((s) => [s.layer, s.key, s.verdict])).toEqual([
      ['role', 'joinGroup', 'passes'],
      ['role', 'joinGroup.allowedGroupTypes', 'passes'],
      ['group', undefined, 'passes'],
    ]);
    const priv = ask({
      group: { guid: 'staff', type: 'private' },
      membership: { kind: 'not-member', banned: false },
    });
    expect(priv.steps.at(-1)).toMatchObject({
      rule: 'to join',
      verdict: 'denies',
      because: 'a private group: nobody joins it, an admin or the app adds members',
    });
  });

  it("cannot tell when the scope's value is only the default CometChat lists", () => {
    const { steps, conclusion } = ask({ scope: { catalogue: LISTED } });
    expect(steps.find((s) => s.layer === 'scope')).toMatchObject({
      value: 'allow',
      source: { kind: 'default', listed: true },
    });
    expect(conclusion).toEqual({
      kind: 'cannot-tell',
      why: "*Message Sending* (`sendMessage`) was never set through this app, and CometChat offers no read of a group scope's permissions",
      byDefaults: 'allowed',
    });
  });

  it("takes the shipped keys' documented default when CometChat's list could not be read", () => {
    const { steps, conclusion } = ask({ scope: { catalogue: FALLBACK_SCOPE_CATALOGUE } });
    expect(steps.find((s) => s.layer === 'scope')).toMatchObject({
      value: 'allow',
      source: { kind: 'default' },
    });
    expect(conclusion).toMatchObject({ kind: 'cannot-tell', byDefaults: 'allowed' });
  });

  it("cannot tell when the scope's keys were not read at all", () => {
    const { conclusion } = ask({ scope: {} });
    expect(conclusion).toMatchObject({
      kind: 'cannot-tell',
      why: "*Message Sending* (`sendMessage`): the scope's keys were not read",
    });
  });

  it('cannot tell when CometChat did not say the member’s scope', () => {
    const { conclusion } = ask({ membership: { kind: 'member' }, scope: {} });
    expect(conclusion).toMatchObject({ kind: 'cannot-tell' });
    expect(conclusion.kind === 'cannot-tell' && conclusion.why).toContain(
      'CometChat did not say which of the three scopes is theirs',
    );
  });

  it('cannot tell when the banned list could not be read whole, for someone outside', () => {
    const { steps, conclusion } = ask({ membership: { kind: 'not-member', banned: undefined } });
    expect(steps.find((s) => s.rule === 'a ban')?.verdict).toBe('unknown');
    // Outside the group all the same: that denial is CometChat's fact, and stands.
    expect(conclusion).toMatchObject({ kind: 'denied', layer: 'group' });
  });

  it('is denied by the account before anything in the group is asked', () => {
    const { steps, conclusion } = ask({
      subject: { ...alice, deactivated: true },
      membership: { kind: 'not-asked', why: 'the account is deactivated' },
      scope: {},
    });
    expect(conclusion).toMatchObject({ kind: 'denied', why: 'the account is deactivated' });
    expect(steps.find((s) => s.rule === 'membership')?.verdict).toBe('not-checked');
  });

  it("reads the role's `denyForScopes` against the member's scope when a map names it", () => {
    const { conclusion } = ask({
      action: 'editMessage',
      values: known({ 'editMessage.denyForScopes': ['participant'] }),
      scope: { known: { permissions: { editMessage: 'allow' }, seenAt: SCOPE_SEEN } },
    });
    expect(conclusion).toMatchObject({
      kind: 'denied',
      key: 'editMessage.denyForScopes',
      why: 'scope `participant` is in the list',
      layer: 'role',
    });
  });

  it('cannot tell for a role mode of friends only, which CometChat does not explain in a group', () => {
    const { conclusion } = ask({ values: known({ 'sendMessage.mode': 'friends' }) });
    expect(conclusion).toMatchObject({ kind: 'cannot-tell' });
  });

  it("leaves the scope's and the role's other keys of the action unchecked", () => {
    const { steps } = ask({ action: 'initiateCall', scope: { catalogue: LISTED } });
    const unchecked = steps.filter((s) => s.verdict === 'not-checked').map((s) => [s.layer, s.key]);
    expect(unchecked).toContainEqual(['scope', 'initiateCall.allowedType']);
    expect(unchecked).toContainEqual(['role', 'initiateCall.allowedReceiverRoles']);
  });

  it('passes the scope when its permissions do not name the action', () => {
    const { steps } = ask({ action: 'deleteMessage', scope: { catalogue: LISTED } });
    expect(steps.find((s) => s.layer === 'scope')).toMatchObject({
      verdict: 'passes',
      because: "the scope's permissions do not name it",
    });
  });

  describe('joinGroup', () => {
    const join = (facts: Partial<GroupCanFacts>) =>
      ask({ action: 'joinGroup', membership: { kind: 'not-member', banned: false }, ...facts });

    it('is allowed to join a public group by values set here, with no scope asked', () => {
      const { steps, conclusion } = join({});
      expect(conclusion).toEqual({ kind: 'allowed' });
      expect(steps.some((s) => s.layer === 'scope')).toBe(false);
    });

    it('is denied a private group, and a group type the role does not list', () => {
      expect(join({ group: { guid: 'staff', type: 'private' } }).conclusion).toMatchObject({
        kind: 'denied',
        layer: 'group',
      });
      const typed = join({ values: known({ 'joinGroup.allowedGroupTypes': ['password'] }) });
      expect(typed.conclusion).toMatchObject({
        kind: 'denied',
        key: 'joinGroup.allowedGroupTypes',
        why: 'a `public` group is not in the list',
      });
    });
  });
});

describe('scopeValue', () => {
  it('takes the map this app set over the listed default, and says the default is listed', () => {
    const values = {
      known: { permissions: { addReaction: 'deny' }, seenAt: SCOPE_SEEN },
      catalogue: LISTED,
    };
    expect(scopeValue(values, 'addReaction')).toEqual({
      kind: 'value',
      value: 'deny',
      source: { kind: 'last-update', seenAt: SCOPE_SEEN },
    });
    expect(scopeValue(values, 'sendMessage')).toEqual({
      kind: 'value',
      value: 'allow',
      source: { kind: 'default', listed: true },
    });
    // A shipped key this app's CometChat no longer lists is not the scope's.
    expect(scopeValue(values, 'editMessage')).toEqual({
      kind: 'none',
      verdict: 'passes',
      because: "the scope's permissions do not name it",
    });
    expect(scopeValue({ catalogue: FALLBACK_SCOPE_CATALOGUE }, 'deleteMessage')).toEqual({
      kind: 'none',
      verdict: 'passes',
      because: "the scope's documented keys do not name it",
    });
  });
});

describe('scopeDefinitionsNeeded', () => {
  it('asks for the definitions only when the map this app set does not name the action', () => {
    const map = { permissions: { sendMessage: 'deny' }, seenAt: SCOPE_SEEN };
    expect(scopeDefinitionsNeeded('sendMessage', map)).toBe(false);
    expect(scopeDefinitionsNeeded('addReaction', map)).toBe(true);
    expect(scopeDefinitionsNeeded('sendMessage', undefined)).toBe(true);
    expect(scopeDefinitionsNeeded('joinGroup', undefined)).toBe(false);
  });
});

describe('GROUP_ACTION_KEYS', () => {
  it('holds the actions done in a group, and none about users alone', () => {
    for (const key of ['sendMessage', 'addReaction', 'initiateCall', 'joinGroup']) {
      expect(GROUP_ACTION_KEYS).toContain(key);
    }
    for (const key of ['listUsers', 'blockUser', 'createGroup', 'listGroups']) {
      expect(GROUP_ACTION_KEYS).not.toContain(key);
    }
  });
});
