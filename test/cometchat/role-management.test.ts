import { describe, expect, it } from 'vitest';
import { failure, only, useSandboxClient } from './client-harness.ts';

// The client's role management (definitions, create, update, delete, unset) against the
// stand-in over real HTTP on loopback, as client.test.ts does for the rest.

const { sandbox: standIn, client: clientOf } = useSandboxClient();
const client = () => clientOf();

const writes = () => standIn().requests.filter((r) => r.method !== 'GET');

describe('role management', () => {
  it('reads every definition, the key the shipped catalogue lacks included', async () => {
    const definitions = await client().listPermissionDefinitions('default');
    const ids = definitions.map((d) => d.id);
    expect(ids).toContain('sendMessage');
    expect(ids).toContain('removeReaction');
    expect(definitions.find((d) => d.id === 'sendMessage')).toMatchObject({
      dataType: 'string',
      availableValues: ['allow', 'deny'],
      defaultValue: 'allow',
    });
    expect(only(standIn().requests).path).toBe('/v3/roles/default/permissions');
  });

  it('creates a role by one POST, never retried: a repeat would be refused as taken', async () => {
    const role = await client().createRole({ role: 'night', name: 'Night', description: 'Late' });
    expect(role).toMatchObject({ role: 'night', name: 'Night', description: 'Late' });
    expect(only(writes())).toMatchObject({
      method: 'POST',
      path: '/v3/roles',
      body: { role: 'night', name: 'Night', description: 'Late' },
    });
    standIn().requests.length = 0;
    standIn().inject({ kind: 'status', status: 503, method: 'POST', pathIncludes: '/roles' });
    const error = await failure(client().createRole({ role: 'day', name: 'Day' }));
    expect(error.kind).toBe('unavailable');
    expect(writes()).toHaveLength(1);
  });

  it('renames, and unsets an emptied description rather than sending it empty', async () => {
    await client().updateRole('vip', { name: 'Gold' });
    await client().updateRole('vip', { description: '' });
    expect(writes().map((r) => r.body)).toEqual([{ name: 'Gold' }, { unset: ['description'] }]);
    expect(standIn().state.roles.find((r) => r.role === 'vip')).toMatchObject({
      name: 'Gold',
      description: '',
    });
  });

  it('deletes a role; an unknown one is not_found', async () => {
    await client().deleteRole('vip');
    expect(standIn().state.roles.some((r) => r.role === 'vip')).toBe(false);
    const error = await failure(client().deleteRole('vip'));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_ROLE_NOT_FOUND' });
  });

  it('unsets one key, answering the map after; a key not set is ERR_PERMISSION_NOT_FOUND', async () => {
    await client().setRolePermissions('guest', { sendMessage: 'deny' });
    const after = await client().unsetRolePermission('guest', 'sendMessage');
    expect(after.permissions.sendMessage).toBe('allow');
    expect(writes().at(-1)).toMatchObject({
      method: 'DELETE',
      path: '/v3/roles/guest/permissions/sendMessage',
    });
    const error = await failure(client().unsetRolePermission('guest', 'sendMessage'));
    expect(error).toMatchObject({ status: 404, serviceCode: 'ERR_PERMISSION_NOT_FOUND' });
  });
});
