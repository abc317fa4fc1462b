import { describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../../src/cometchat/catalogue.ts';
import {
  ACTION_KEYS,
  type CanFacts,
  explainCan,
  factsNeeded,
} from '../../../src/features/users/can.ts';

const alice = { uid: 'alice', role: 'support', deactivated: false };
const bob = { uid: 'bob', role: 'customer', deactivated: false };
const SEEN = 1_700_000_000_000;

/** A role map as the last update returned it: the defaults with `overrides`. */
function known(overrides: Record<string, string | string[] | null> = {}) {
  return { known: { permissions: { ...defaultPermissions(), ...overrides }, seenAt: SEEN } };
}

function ask(facts: Partial<CanFacts>) {
  return explainCan({
    action: 'sendMessage',
    subject: alice,
    target: bob,
    values: known(),
    friends: undefined,
    blocked: { bySubject: false, byTarget: false },
    ...facts,
  });
}

describe('explainCan', () => {
  it('allows when every value the walk uses was set through this app and nothing blocks', () => {
    const { conclusion, steps } = ask({});
    expect(conclusion).toEqual({ kind: 'allowed' });
    expect(steps.map((s) => [s.rule, s.verdict])).toContainEqual(['blocks', 'passes']);
    expect(steps.find((s) => s.key === 'sendMessage')?.source).toEqual({
      kind: 'last-update',
      seenAt: SEEN,
    });
  });

  it('says which change set a value when the map was stored with its reference', () => {
    const values = known();
    const { steps } = ask({ values: { known: { ...values.known, ref: '0a1b2c3d4e' } } });
    const fromTheMap = steps.filter((s) => s.source?.kind === 'last-update');
    expect(fromTheMap.length).toBeGreaterThan(1);
    for (const step of fromTheMap) {
      expect(step.source).toEqual({ kind: 'last-update', seenAt: SEEN, ref: '0a1b2c3d4e' });
    }
    // A map an earlier version stored has no reference, and the walk makes none up.
    const earlier = ask({}).steps.find((s) => s.key === 'sendMessage');
    expect(earlier?.source).toStrictEqual({ kind: 'last-update', seenAt: SEEN });
  });

  it('denies by the mode `friends` between two who are not friends', () => {
    const { conclusion } = ask({
      values: known({ 'sendMessage.mode': 'friends' }),
      friends: false,
    });
    expect(conclusion).toMatchObject({ kind: 'denied', key: 'sendMessage.mode', value: 'friends' });
  });

  it('passes the mode `friends` between friends', () => {
    const { conclusion } = ask({ values: known({ 'sendMessage.mode': 'friends' }), friends: true });
    expect(conclusion).toEqual({ kind: 'allowed' });
  });

  it("denies by `allowedReceiverRoles` when the target's role is not listed", () => {
    const { conclusion } = ask({
      values: known({ 'sendMessage.allowedReceiverRoles': ['support', 'admin'] }),
    });
    expect(conclusion).toMatchObject({
      kind: 'denied',
      key: 'sendMessage.allowedReceiverRoles',
      value: ['support', 'admin'],
    });
  });

  it('denies by the action itself, and by a deactivated account first of all', () => {
    expect(ask({ values: known({ sendMessage: 'deny' }) }).conclusion).toMatchObject({
      kind: 'denied',
      key: 'sendMessage',
      value: 'deny',
    });
    const deactivated = ask({ subject: { ...alice, deactivated: true }, values: {} });
    expect(deactivated.conclusion).toMatchObject({
      kind: 'denied',
      why: 'the account is deactivated',
    });
  });

  it('denies when either blocked the other, whatever the role says', () => {
    const { conclusion } = ask({ blocked: { bySubject: false, byTarget: true } });
    expect(conclusion).toMatchObject({ kind: 'denied', why: '`bob` blocked `alice`' });
  });

  it('cannot tell when the role was never changed through this app, and says what defaults give', () => {
    const { conclusion, steps } = ask({ values: {} });
    expect(conclusion).toMatchObject({ kind: 'cannot-tell', byDefaults: 'allowed' });
    expect(conclusion.kind === 'cannot-tell' && conclusion.why).toContain(
      "CometChat offers no read of a role's permissions",
    );
    expect(steps.find((s) => s.key === 'sendMessage')?.source).toEqual({ kind: 'default' });
  });

  it('cannot tell a friends-only action without the other user', () => {
    const { conclusion } = ask({
      values: known({ 'sendMessage.mode': 'friends' }),
      target: undefined,
    });
    expect(conclusion).toMatchObject({ kind: 'cannot-tell' });
    expect(conclusion.kind === 'cannot-tell' && conclusion.why).toContain('name the other user');
  });

  it('lists the keys it cannot check as such, and never lets them decide', () => {
    const { steps, conclusion } = ask({});
    const unchecked = steps.filter((s) => s.verdict === 'not-checked').map((s) => s.key);
    expect(unchecked).toContain('sendMessage.allowedMessageTypes');
    expect(conclusion).toEqual({ kind: 'allowed' });
  });
});

describe('factsNeeded', () => {
  it('asks about friendship only for a friends-only mode, and blocks only towards a user', () => {
    expect(factsNeeded('sendMessage', known({ 'sendMessage.mode': 'friends' }), true)).toEqual({
      friends: true,
      blocks: true,
    });
    expect(factsNeeded('sendMessage', known(), true)).toEqual({ friends: false, blocks: true });
    expect(factsNeeded('listUsers', known(), true)).toEqual({ friends: false, blocks: false });
    expect(factsNeeded('sendMessage', known(), false)).toEqual({ friends: false, blocks: false });
  });

  it('knows the action keys from the catalogue', () => {
    expect(ACTION_KEYS).toEqual(
      expect.arrayContaining([
        'sendMessage',
        'initiateCall',
        'listUsers',
        'getUserDetails',
        'joinGroup',
      ]),
    );
    expect(ACTION_KEYS).not.toContain('sendMessage.mode');
  });
});
