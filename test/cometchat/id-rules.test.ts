import { describe, expect, it } from 'vitest';
import {
  messageIdProblem,
  ruleIdProblem,
  storedUid,
  UidSchema,
  uidProblem,
} from '../../src/cometchat/id-rules.ts';
import { AccountSchema, accountOf } from '../../src/cometchat/model.ts';

// A uid read back from a button or a modal passes the same rule as one a person types; an
// account is one of the two a user can have.

describe('UidSchema', () => {
  it('takes what uidProblem takes', () => {
    for (const uid of ['cometchat-uid-4', 'u_1', 'A1', 'x'.repeat(100)]) {
      expect(UidSchema.parse(uid)).toBe(uid);
    }
  });

  it("refuses what uidProblem refuses, with uidProblem's sentence", () => {
    for (const uid of ['', 'a b', 'x'.repeat(101), 'name@example.com', '..', 'a\u0000b', '名前']) {
      const parsed = UidSchema.safeParse(uid);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(uidProblem(uid));
    }
    expect(UidSchema.safeParse(7).success).toBe(false);
  });
});

describe('storedUid', () => {
  it('lower-cases A to Z, as CometChat does when it creates a user, and nothing else', () => {
    expect(storedUid('CometChat-UID-1')).toBe('cometchat-uid-1');
    expect(storedUid('cometchat-uid-1')).toBe('cometchat-uid-1');
    // Not a uid (uidProblem refuses it), but never lengthened or changed past A to Z.
    expect(storedUid('İSTANBUL-Ä')).toBe('İstanbul-Ä');
    for (const uid of ['A1', 'a b', 'X'.repeat(101)]) {
      expect(uidProblem(storedUid(uid))).toBe(uidProblem(uid));
    }
  });
});

describe('accounts', () => {
  it('reads a user as deactivated while deactivatedAt is set, and knows the two accounts', () => {
    expect(accountOf({})).toBe('active');
    expect(accountOf({ deactivatedAt: 1_700_000_000 })).toBe('deactivated');
    expect(AccountSchema.options).toEqual(['active', 'deactivated']);
  });
});

describe('moderation ids', () => {
  it('takes a rule id without spaces up to 100 characters, and nothing else', () => {
    for (const id of ['profanity', 'default-keyword-filter', 'Rule_2', 'x'.repeat(100)]) {
      expect(ruleIdProblem(id)).toBeUndefined();
    }
    expect(ruleIdProblem('')).toBe('A rule id cannot be empty.');
    expect(ruleIdProblem('two words')).toBe('A rule id cannot contain spaces.');
    expect(ruleIdProblem('x'.repeat(101))).toBe('A rule id is at most 100 characters.');
    expect(ruleIdProblem('..')).toBe('A rule id cannot be `.` or `..`.');
  });

  it('takes a message id of digits only', () => {
    expect(messageIdProblem('9001')).toBeUndefined();
    for (const id of ['', '90 01', '9001a', '-1', '1'.repeat(21)]) {
      expect(messageIdProblem(id)).toBe('A message id is digits only, as CometChat numbers them.');
    }
  });
});
