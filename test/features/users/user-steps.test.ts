import { describe, expect, it } from 'vitest';
import {
  askedOf,
  canAnswer,
  noApprovalsSentence,
  userOutputs,
} from '../../../src/features/users/user-steps.ts';

// The users feature's steps, their pure parts: the lookup's outputs, and the change asked.

const alice = {
  uid: 'alice',
  name: 'Alice',
  role: 'premium',
  status: 'available',
  createdAt: 1_700_000_000,
  lastActiveAt: 1_700_000_500,
};

describe('userOutputs', () => {
  it('gives the user, deactivated as a boolean, and no can answer without an action', () => {
    expect(userOutputs(alice, undefined)).toEqual({
      name: 'Alice',
      role: 'premium',
      status: 'available',
      deactivated: false,
      created_at: 1_700_000_000,
      last_active_at: 1_700_000_500,
      can: '',
    });
  });

  it('says deactivated, leaves out times CometChat did not give, and answers can', () => {
    const { createdAt: _, lastActiveAt: __, ...bare } = alice;
    expect(userOutputs({ ...bare, deactivatedAt: 1 }, { kind: 'allowed' })).toEqual({
      name: 'Alice',
      role: 'premium',
      status: 'available',
      deactivated: true,
      can: 'allowed',
    });
  });
});

describe('canAnswer', () => {
  it('puts the conclusion first, then why', () => {
    expect(canAnswer({ kind: 'allowed' })).toBe('allowed');
    expect(canAnswer({ kind: 'denied', why: 'the role denies it' })).toBe(
      'denied: the role denies it',
    );
    expect(canAnswer({ kind: 'cannot-tell', why: 'not known' })).toBe('cannot tell: not known');
  });
});

describe('askedOf', () => {
  it("asks a role change from the user's role now", () => {
    expect(askedOf(alice, { key: 'role', to: 'vip' })).toEqual({
      uid: 'alice',
      name: 'Alice',
      role: 'premium',
      key: 'role',
      before: 'premium',
      after: 'vip',
    });
  });

  it("asks an account change from the user's account now", () => {
    expect(askedOf({ ...alice, deactivatedAt: 1 }, { key: 'status', to: 'active' })).toMatchObject({
      key: 'status',
      before: 'deactivated',
      after: 'active',
    });
  });
});

describe('noApprovalsSentence', () => {
  it('names the app and the setting that would give a step its second person', () => {
    expect(noApprovalsSentence({ name: 'prod' })).toContain('`prod`');
    expect(noApprovalsSentence({ name: 'prod' })).toContain('APPROVAL_CHANNEL');
  });
});
