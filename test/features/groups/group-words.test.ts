import { describe, expect, it } from 'vitest';
import { findGuidCandidates, guidProblem } from '../../../src/cometchat/id-rules.ts';
import { Refusal } from '../../../src/features/feature.ts';
import {
  parseGroupsWords,
  parseGroupWords,
  SCOPE_PROBLEM,
} from '../../../src/features/groups/group-words.ts';
import { askedChangeOf } from '../../../src/features/groups/member-changes.ts';

// What `/cometchat group` and `/cometchat groups` read, and the one sentence for words they
// cannot; whether a member's change is one at all.

const refusal = (value: unknown) => (value instanceof Refusal ? value.problem : undefined);

describe('a guid', () => {
  it('is lower-case letters, digits, - and _, at most 100 characters', () => {
    expect(guidProblem('hiking_club-2')).toBeUndefined();
    expect(guidProblem('Hiking')).toContain('lower-case letters, digits');
    expect(guidProblem('hiking!')).toContain('lower-case letters, digits');
    expect(guidProblem('a'.repeat(101))).toBe('A guid is at most 100 characters.');
    expect(guidProblem('')).toBe('A guid cannot be empty.');
  });

  it('is found in a message as a word with a letter and a digit, - or _', () => {
    expect(
      findGuidCandidates(
        'Why can she not post in hiking-club or Group_7? See :white_check_mark: 2026-11-20',
      ),
    ).toEqual(['hiking-club', 'group_7']);
  });
});

describe('/cometchat group', () => {
  it('reads a card, lower-casing the guid as CometChat stores it', () => {
    expect(parseGroupWords(['Hiking'])).toEqual({ kind: 'card', guid: 'hiking' });
  });

  it('reads the members, by scope and page, and the banned', () => {
    expect(parseGroupWords(['hiking', 'members', 'scope:Moderator', 'page:2'])).toEqual({
      kind: 'members',
      guid: 'hiking',
      scope: 'moderator',
      page: 2,
    });
    expect(parseGroupWords(['hiking', 'banned'])).toEqual({
      kind: 'banned',
      guid: 'hiking',
      page: 1,
    });
  });

  it('reads a scope change, a kick, a ban and an unban', () => {
    expect(parseGroupWords(['hiking', 'scope', 'Ana-1', 'admin'])).toEqual({
      kind: 'scope',
      guid: 'hiking',
      uid: 'ana-1',
      scope: 'admin',
    });
    for (const action of ['kick', 'ban', 'unban']) {
      expect(parseGroupWords(['hiking', action, 'ana'])).toEqual({
        kind: 'member',
        guid: 'hiking',
        uid: 'ana',
        action,
      });
    }
  });

  it('refuses a guid that cannot be one, a scope that is not one of the three, in one sentence', () => {
    expect(refusal(parseGroupWords(['hik/ing']))).toBe(
      'A guid is lower-case letters, digits, `-` and `_` only, as CometChat stores it.',
    );
    expect(refusal(parseGroupWords(['hiking', 'scope', 'ana', 'owner']))).toBe(SCOPE_PROBLEM);
    expect(refusal(parseGroupWords(['hiking', 'members', 'scope:owner']))).toBe(SCOPE_PROBLEM);
    expect(SCOPE_PROBLEM).toBe(
      'A scope is `admin`, `moderator`, `participant`: one of the three CometChat has.',
    );
    expect(refusal(parseGroupWords(['hiking', 'kick', 'a b!']))).toContain('A uid');
    expect(refusal(parseGroupWords(['hiking', 'kick']))).toMatch(/^Usage: /);
    expect(refusal(parseGroupWords([]))).toMatch(/^Usage: /);
  });
});

describe('/cometchat groups', () => {
  it('reads text, a type and a page in any order', () => {
    expect(parseGroupsWords(['type:Private', 'hik', 'page:3'])).toEqual({
      text: 'hik',
      type: 'private',
      page: 3,
    });
    expect(parseGroupsWords([])).toEqual({ page: 1 });
  });

  it('refuses a type that is not one, and two texts', () => {
    expect(refusal(parseGroupsWords(['type:secret']))).toBe(
      'A group type is `public`, `private` or `password`.',
    );
    expect(refusal(parseGroupsWords(['a', 'b']))).toContain('one guid or name prefix');
  });
});

describe("a member's change, asked", () => {
  const none = { scope: undefined, banned: false };
  it('is a change from where the member stands', () => {
    expect(
      askedChangeOf(
        'g',
        'u',
        { scope: 'participant', banned: false },
        { key: 'scope', to: 'admin' },
      ),
    ).toEqual({
      key: 'scope',
      before: 'participant',
      after: 'admin',
    });
    expect(askedChangeOf('g', 'u', { scope: 'admin', banned: false }, { key: 'kick' })).toEqual({
      key: 'membership',
      before: 'member',
      after: 'kicked',
    });
    expect(askedChangeOf('g', 'u', none, { key: 'ban' })).toEqual({
      key: 'ban',
      before: 'none',
      after: 'banned',
    });
    expect(askedChangeOf('g', 'u', { scope: undefined, banned: true }, { key: 'unban' })).toEqual({
      key: 'ban',
      before: 'banned',
      after: 'none',
    });
  });

  it('is one sentence when there is nothing to change', () => {
    const notMember = '`u` is not a member of group `g`; nothing was changed.';
    expect(askedChangeOf('g', 'u', none, { key: 'scope', to: 'admin' })).toBe(notMember);
    expect(askedChangeOf('g', 'u', none, { key: 'kick' })).toBe(notMember);
    expect(
      askedChangeOf('g', 'u', { scope: 'admin', banned: false }, { key: 'scope', to: 'admin' }),
    ).toBe('`u` in group `g` has scope `admin` already; nothing to change.');
    expect(askedChangeOf('g', 'u', { scope: undefined, banned: true }, { key: 'ban' })).toBe(
      '`u` in group `g` is banned already; nothing to change.',
    );
    expect(askedChangeOf('g', 'u', none, { key: 'unban' })).toBe(
      '`u` in group `g` is not banned; nothing to lift.',
    );
  });
});
