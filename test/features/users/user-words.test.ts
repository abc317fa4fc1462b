import { describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../../src/cometchat/catalogue.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { permissionsInShort } from '../../../src/features/users/user-card.ts';
import { describeUserSearch } from '../../../src/features/users/user-list-view.ts';
import { parseUsersWords, parseUserWords } from '../../../src/features/users/user-words.ts';

const problem = (read: unknown) => (read instanceof Refusal ? read.problem : undefined);

describe('parseUserWords', () => {
  it('reads a card, and "can" with or without the other user', () => {
    expect(parseUserWords(['cometchat-uid-1'])).toEqual({ kind: 'card', uid: 'cometchat-uid-1' });
    expect(parseUserWords(['u1', 'can', 'SENDMESSAGE'])).toEqual({
      kind: 'can',
      uid: 'u1',
      action: 'sendMessage',
    });
    expect(parseUserWords(['u1', 'CAN', 'initiateCall', 'u2'])).toEqual({
      kind: 'can',
      uid: 'u1',
      action: 'initiateCall',
      target: 'u2',
    });
  });

  it('reads each uid as CometChat stores it, in lower case', () => {
    expect(parseUserWords(['CometChat-UID-1'])).toEqual({ kind: 'card', uid: 'cometchat-uid-1' });
    expect(parseUserWords(['Ana_Souza', 'can', 'sendMessage', 'BO-2'])).toEqual({
      kind: 'can',
      uid: 'ana_souza',
      action: 'sendMessage',
      target: 'bo-2',
    });
    expect(parseUserWords(['U1', 'role', 'VIP'])).toEqual({ kind: 'role', uid: 'u1', role: 'vip' });
  });

  it('refuses an unknown action by listing the actions, and a bad uid by its rule', () => {
    expect(problem(parseUserWords(['u1', 'can', 'fly']))).toMatch(
      /^There is no action `fly`\. The actions are `listUsers`, .*`sendMessage`/,
    );
    expect(problem(parseUserWords(['u1', 'can', 'sendMessage', 'x'.repeat(101)]))).toBe(
      'A uid is at most 100 characters.',
    );
    expect(problem(parseUserWords(['名前']))).toContain('letters, digits, `-` and `_` only');
  });

  it('reads "can <action> in <guid>", the guid as CometChat stores it; `in` alone is a uid', () => {
    expect(parseUserWords(['u1', 'can', 'sendmessage', 'IN', 'Hiking-Club'])).toEqual({
      kind: 'can',
      uid: 'u1',
      action: 'sendMessage',
      group: 'hiking-club',
    });
    expect(parseUserWords(['u1', 'can', 'sendMessage', 'in'])).toEqual({
      kind: 'can',
      uid: 'u1',
      action: 'sendMessage',
      target: 'in',
    });
  });

  it('refuses a guid that cannot be one, and an action with no meaning in a group', () => {
    // The guid rule's own sentence (id-rules.ts), whichever words it has.
    expect(problem(parseUserWords(['u1', 'can', 'sendMessage', 'in', 'a/b']))).toMatch(
      /^A guid is .*letters, digits, `-` and `_` only/,
    );
    expect(problem(parseUserWords(['u1', 'can', 'sendMessage', 'in', 'g'.repeat(101)]))).toBe(
      'A guid is at most 100 characters.',
    );
    expect(problem(parseUserWords(['u1', 'can', 'listUsers', 'in', 'hiking']))).toMatch(
      /^`listUsers` is not done inside a group\. In a group they are `listMessages`, .*`sendMessage`.*`joinGroup`\.$/,
    );
  });

  it('answers anything else with the usage', () => {
    for (const words of [
      [],
      ['u1', 'hug'],
      ['u1', 'can'],
      ['u1', 'can', 'sendMessage', 'u2', 'u3'],
      ['u1', 'can', 'sendMessage', 'in', 'hiking', 'now'],
      ['u1', 'can', 'sendMessage', 'on', 'hiking'],
    ]) {
      expect(problem(parseUserWords(words)), words.join(' ')).toMatch(/^Usage: /);
    }
  });
});

describe('parseUsersWords', () => {
  it('reads the text, the role, deactivated and the page in any order', () => {
    expect(parseUsersWords([])).toEqual({ deactivated: false, page: 1 });
    expect(parseUsersWords(['deactivated', 'role:Premium', 'cust', 'page:2'])).toEqual({
      text: 'cust',
      role: 'premium',
      deactivated: true,
      page: 2,
    });
    // A bare number is text: uids are often a database's numbers.
    expect(parseUsersWords(['1001'])).toEqual({ text: '1001', deactivated: false, page: 1 });
  });

  it('refuses two texts, two roles, a bad role or page', () => {
    expect(problem(parseUsersWords(['ann', 'bob']))).toContain('one uid or name prefix');
    expect(problem(parseUsersWords(['role:a', 'role:b']))).toBe('Name one role at most.');
    expect(problem(parseUsersWords(['role:not a role']))).toContain('A role id is');
    expect(problem(parseUsersWords(['page:0']))).toContain('The page must be');
  });

  it('describes the filters in words', () => {
    expect(describeUserSearch({ deactivated: false })).toBe('all active users');
    expect(describeUserSearch({ text: 'ann', role: 'vip', deactivated: true })).toBe(
      'uid or name starting with `ann` · role `vip` · deactivated',
    );
  });
});

describe('permissionsInShort', () => {
  it('says when the app never changed the role, and that the service offers no read', () => {
    expect(permissionsInShort('vip', undefined)).toContain('This app has never changed `vip`');
  });

  it('lists the keys the last known map sets away from the defaults', () => {
    const text = permissionsInShort('vip', {
      app: 'default',
      role: 'vip',
      permissions: { ...defaultPermissions(), sendMessage: 'deny' },
      seenAt: 1_700_000_000_000,
    });
    expect(text).toContain('1 key differ');
    expect(text).toContain('*Message Sending* (`sendMessage`) = `deny`');
    expect(text).toContain('The rest are documented defaults.');
  });
});
