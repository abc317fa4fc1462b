import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  confirm,
  confirmationOf,
  openEditor,
  submitView,
  switchCategory,
  withFieldSet,
} from '../../src/dev/editor-steps.ts';
import { type Harness, startHarness, textOf } from './harness.ts';

describe('the role list cache in the running app', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ env: { COMETCHAT_ROLE_CACHE_SECONDS: '30' } });
  });
  afterEach(async () => {
    h.checkAllPayloads();
    await h.stop();
  });

  const listRequests = () =>
    h.sandbox.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v3/roles'));

  async function roles(): Promise<string> {
    const mark = h.slack.responses.length;
    await h.driver.command('roles');
    return textOf((await h.slack.nextResponse(mark)).body);
  }

  it('serves a repeated list from memory and asks again after a change through the editor', async () => {
    await roles();
    await roles();
    expect(listRequests()).toHaveLength(1);

    const editor = await openEditor(h, 'default');
    const messages = await switchCategory(h, editor, 'Messages');
    await submitView(h, messages, withFieldSet(messages, 'sendMessage', 'deny'));
    const confirmation = confirmationOf(h, editor);
    if (!confirmation) throw new Error('no confirmation');
    await confirm(h, confirmation);
    const beforeList = listRequests().length;

    const role = h.sandbox.state.roles.find((r) => r.role === 'default');
    if (!role) throw new Error('no default role');
    role.name = 'Default (renamed)';
    expect(await roles()).toContain('Default (renamed)');
    expect(listRequests()).toHaveLength(beforeList + 1);
  });
});
