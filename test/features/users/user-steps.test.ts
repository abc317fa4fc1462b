import { describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../../src/cometchat/catalogue.ts';
import { explainCan } from '../../../src/features/users/can.ts';
import {
  askedOf,
  canAnswer,
  FIRST_DELIVERY_WAIT_MS,
  noApprovalsSentence,
  storedWithin,
  userOutputs,
} from '../../../src/features/users/user-steps.ts';
import { SLACK_CALL_LONGEST_MS } from '../../../src/slack/clients.ts';

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

describe('canAnswer, as plain text', () => {
  const known = (overrides: Record<string, string>) => ({
    known: { permissions: { ...defaultPermissions(), ...overrides }, seenAt: 1 },
  });
  const conclusionOf = (values: ReturnType<typeof known> | Record<string, never>) =>
    explainCan({
      action: 'sendMessage',
      subject: { uid: 'ali*ce', role: 'vip_1', deactivated: false },
      values,
    }).conclusion;

  it('names the key, its value and its layer that deny, with no mrkdwn', () => {
    expect(canAnswer(conclusionOf(known({ sendMessage: 'deny' })))).toBe(
      "denied by Message Sending (sendMessage) = deny in the role's permissions",
    );
  });

  it("names the group's layer, and why, where the group's walk denies", () => {
    const answer = canAnswer({
      kind: 'denied',
      key: 'sendMessage',
      value: 'deny',
      layer: 'scope',
      why: 'scope `participant` is denied it',
    });
    expect(answer).toBe(
      "denied by Message Sending (sendMessage) = deny in the member's scope's permissions in the group: scope participant is denied it",
    );
  });

  it('says it cannot tell, why, and what the defaults would give, with no mrkdwn', () => {
    const answer = canAnswer(conclusionOf({}));
    expect(answer).toMatch(/^cannot tell: /);
    expect(answer).toContain('(sendMessage) was never set through this app');
    expect(answer).toMatch(/\. By the documented defaults it would be (allowed|denied)\.$/);
    expect(answer).not.toMatch(/[`*]|&(amp|lt|gt);|\u200B/);
  });

  it('gives the deactivated account as why, and allowed as one word', () => {
    const deactivated = explainCan({
      action: 'sendMessage',
      subject: { uid: 'alice', role: 'vip', deactivated: true },
      values: known({}),
    }).conclusion;
    expect(canAnswer(deactivated)).toBe('denied: the account is deactivated');
    expect(canAnswer(conclusionOf(known({})))).toBe('allowed');
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

describe('storedWithin', () => {
  /** A store read that finds the request from its `found`th read on (never: Infinity). */
  const readFrom = (found: number) => {
    let reads = 0;
    return {
      read: async () => (++reads >= found ? 'request' : undefined),
      reads: () => reads,
    };
  };
  const sleeper = () => {
    const slept: number[] = [];
    return { slept, sleep: async (ms: number) => void slept.push(ms) };
  };

  it('answers at once what the store has, waiting for nothing', async () => {
    const { slept, sleep } = sleeper();
    expect(await storedWithin(readFrom(1).read, sleep)).toBe('request');
    expect(slept).toEqual([]);
  });

  it('reads again while the first delivery may still be posting, and finds it', async () => {
    const { slept, sleep } = sleeper();
    const store = readFrom(3);
    expect(await storedWithin(store.read, sleep)).toBe('request');
    expect(store.reads()).toBe(3);
    expect(slept).toHaveLength(2);
  });

  it('gives up after as long as a Slack post may take, and not before', async () => {
    const { slept, sleep } = sleeper();
    const store = readFrom(Number.POSITIVE_INFINITY);
    expect(await storedWithin(store.read, sleep)).toBeUndefined();
    const waited = slept.reduce((sum, ms) => sum + ms, 0);
    expect(waited).toBeGreaterThanOrEqual(FIRST_DELIVERY_WAIT_MS);
    expect(waited - (slept.at(-1) ?? 0)).toBeLessThan(FIRST_DELIVERY_WAIT_MS);
    // The last read comes after the whole wait.
    expect(store.reads()).toBe(slept.length + 1);
  });

  it("waits longer than a post through the app's client may take", () => {
    expect(FIRST_DELIVERY_WAIT_MS).toBeGreaterThan(SLACK_CALL_LONGEST_MS);
    // Three tries of 10 s each, and the waits between them (clients.ts).
    expect(SLACK_CALL_LONGEST_MS).toBeGreaterThanOrEqual(30_000);
  });
});
