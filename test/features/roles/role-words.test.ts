import { describe, expect, it } from 'vitest';
import type { Role } from '../../../src/cometchat/schemas.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { PRESETS } from '../../../src/features/roles/presets.ts';
import { roleChangeFor } from '../../../src/features/roles/role-changes.ts';
import { DEFAULT_STAYS, parseRoleWords } from '../../../src/features/roles/role-words.ts';

const words = (text: string) => parseRoleWords(text.split(' '));
const role = (id: string, name = id, description = ''): Role => ({ role: id, name, description });
const ROLES = [role('default', 'Default'), role('vip', 'VIP', 'Paying')];

describe('role words', () => {
  it('reads create with a name, a copy, a preset; lower-cases ids as CometChat does', () => {
    expect(words('create Night-Shift')).toEqual({
      kind: 'create',
      role: 'night-shift',
      name: 'night-shift',
    });
    expect(words('create gold from VIP Gold members')).toEqual({
      kind: 'create',
      role: 'gold',
      name: 'Gold members',
      from: 'vip',
    });
    expect(words('create ro preset read-only')).toMatchObject({ preset: 'read-only' });
    expect(words('create ro preset nope')).toEqual(
      new Refusal(expect.stringContaining('There is no preset `nope`')),
    );
  });

  it('refuses deleting default, a bad id, a long name, and unknown verbs, each in one sentence', () => {
    expect(words('delete default')).toEqual(new Refusal(DEFAULT_STAYS));
    expect(words('delete no/such')).toBeInstanceOf(Refusal);
    expect(words(`rename vip ${'x'.repeat(101)}`)).toEqual(
      new Refusal('A name is at most 100 characters.'),
    );
    expect(words('rename vip')).toBeInstanceOf(Refusal);
    expect(words('explode vip')).toBeInstanceOf(Refusal);
    expect(words('describe vip')).toEqual({ kind: 'describe', role: 'vip', description: '' });
  });

  it('ships presets whose every value the catalogue accepts', () => {
    expect(PRESETS.map((p) => p.name)).toEqual(['read-only', 'no-calls', 'friends-only']);
  });
});

describe('roleChangeFor', () => {
  const create = (text: string) => words(text) as Exclude<ReturnType<typeof words>, Refusal>;

  it('refuses a role that exists, and a 26th, before anything is sent', () => {
    expect(roleChangeFor(create('create vip'), { roles: ROLES })).toContain(
      'There is a role `vip`',
    );
    const full = Array.from({ length: 25 }, (_, i) => role(`r${i}`));
    expect(roleChangeFor(create('create new'), { roles: full })).toContain(
      'CometChat keeps at most 25',
    );
  });

  it('copies only what differs from the defaults, and says when the source was never seen', () => {
    const asked = create('create gold from vip');
    expect(roleChangeFor(asked, { roles: ROLES })).toContain('has not seen the permissions');
    const known = {
      app: 'default',
      role: 'vip',
      permissions: { sendMessage: 'deny', listUsers: 'allow' },
      seenAt: 1,
    };
    const change = roleChangeFor(asked, { roles: ROLES, known });
    expect(change).toMatchObject({
      action: 'create',
      changes: [
        { key: 'name', before: null, after: 'gold' },
        { key: 'sendMessage', before: null, after: 'deny' },
      ],
    });
  });

  it('escapes names, and finds nothing to change in the same name', () => {
    const change = roleChangeFor(create('rename vip <!here>'), { roles: ROLES });
    expect(change).toMatchObject({ question: expect.stringContaining('*&lt;!here&gt;*') });
    expect(roleChangeFor(create('rename vip VIP'), { roles: ROLES })).toContain('already');
    expect(roleChangeFor(create('delete gone'), { roles: ROLES })).toContain('There is no role');
  });

  it('says how many users hold a role to delete', () => {
    const change = roleChangeFor(create('delete vip'), { roles: ROLES, holders: 3 });
    expect(change).toMatchObject({
      changes: [{ key: 'role', before: 'vip', after: null }],
      question: expect.stringContaining('3 users hold it'),
    });
  });
});
