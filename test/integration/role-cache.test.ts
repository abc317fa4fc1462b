import { describe, expect, it } from 'vitest';
import { commandText } from './harness.ts';
import { applyChange, useHarness } from './support.ts';

describe('the role list cache in the running app', () => {
  const h = useHarness({ env: { COMETCHAT_ROLE_CACHE_SECONDS: '30' } });

  const listRequests = () =>
    h.sandbox.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v3/roles'));

  const roles = () => commandText(h, 'roles');

  it('serves a repeated list from memory and asks again after a change through the editor', async () => {
    await roles();
    await roles();
    expect(listRequests()).toHaveLength(1);

    await applyChange(h, { key: 'sendMessage', value: 'deny' });
    const beforeList = listRequests().length;

    const role = h.sandbox.state.roles.find((r) => r.role === 'default');
    if (!role) throw new Error('no default role');
    role.name = 'Default (renamed)';
    expect(await roles()).toContain('Default (renamed)');
    expect(listRequests()).toHaveLength(beforeList + 1);
  });
});
