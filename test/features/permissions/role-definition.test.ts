import { describe, expect, it } from 'vitest';
import type { Role } from '../../../src/cometchat/schemas.ts';
import { decodeConfirm } from '../../../src/features/permissions/editor-state.ts';
import {
  roleChangesProblem,
  roleHasChange,
  roleStaleness,
} from '../../../src/features/permissions/role-definition.ts';

const role = (id: string, name = id, description = ''): Role => ({ role: id, name, description });

describe('a change to a role itself', () => {
  it('is exactly what the app makes: a deletion is `role` to nothing, an update names or describes', () => {
    expect(roleChangesProblem('delete', [{ key: 'role', before: 'vip', after: null }])).toBe(
      undefined,
    );
    expect(roleChangesProblem('delete', [{ key: 'sendMessage', after: 'deny' }])).toBeDefined();
    expect(roleChangesProblem('update', [{ key: 'name', before: 'A', after: 'B' }])).toBe(
      undefined,
    );
    expect(roleChangesProblem('update', [{ key: 'sendMessage', after: 'deny' }])).toBeDefined();
    expect(roleChangesProblem('create', [{ key: 'sendMessage', after: 'deny' }])).toBeDefined();
    expect(roleChangesProblem('create', [{ key: 'name', after: ' ' }])).toBeDefined();
  });

  it('refuses forged confirmation metadata that is not one', () => {
    const base = { role: 'vip', id: 'a'.repeat(24) };
    const forged = {
      ...base,
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'sendMessage', after: 'deny', explicit: false }],
    };
    expect(decodeConfirm(JSON.stringify(forged))).toBeUndefined();
    const real = {
      ...base,
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
    };
    expect(decodeConfirm(JSON.stringify(real))?.subject).toEqual({
      kind: 'role',
      action: 'delete',
    });
  });

  it('is stale when the role is gone, renamed meanwhile, or exists already to create', () => {
    const rename = {
      role: 'vip',
      action: 'update' as const,
      changes: [{ key: 'name', before: 'VIP', after: 'Gold' }],
    };
    expect(roleStaleness([role('vip', 'VIP')], rename)).toBeUndefined();
    expect(roleStaleness([role('vip', 'Platinum')], rename)).toContain('since the review');
    expect(roleStaleness([], rename)).toContain('no role `vip` any more');
    const create = {
      role: 'vip',
      action: 'create' as const,
      changes: [{ key: 'name', after: 'V' }],
    };
    expect(roleStaleness([role('vip')], create)).toContain('exists now');
    const full = Array.from({ length: 25 }, (_, i) => role(`r${i}`));
    expect(roleStaleness(full, create)).toContain('at most 25');
  });

  it('finds an unknown outcome applied when CometChat has the change', () => {
    const remove = {
      role: 'vip',
      action: 'delete' as const,
      changes: [{ key: 'role', after: null }],
    };
    expect(roleHasChange([], remove)).toBe(true);
    expect(roleHasChange([role('vip')], remove)).toBe(false);
    const rename = {
      role: 'vip',
      action: 'update' as const,
      changes: [{ key: 'name', after: 'Gold' }],
    };
    expect(roleHasChange([role('vip', 'Gold')], rename)).toBe(true);
  });
});
