import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { commandReply, type Harness, startHarness, textOf } from './harness.ts';

// An installer's mistakes in the CometChat addresses are told apart from an outage: the reply
// names the setting to check. (A host name that does not resolve is proven in the client's
// tests: offline, whether a lookup fails as "no such name" depends on the machine's resolver.)

describe('a wrong CometChat address', () => {
  const running: Harness[] = [];
  afterEach(async () => {
    for (const h of running.splice(0).reverse()) await h.stop();
  });

  /** A second app over the first one's stand-ins, with `env` for its settings. */
  async function withSettings(
    env: (urls: { api: string; call: string }) => Record<string, string>,
  ) {
    const base = await startHarness();
    running.push(base);
    const h = await startHarness({
      shared: { sandbox: base.sandbox, slack: base.slack },
      env: env({ api: base.sandbox.apiUrl, call: base.sandbox.callUrl }),
    });
    running.push(h);
    return h;
  }

  it('the REST address given with `/v3`', async () => {
    const h = await withSettings(({ api }) => ({ COMETCHAT_API_URL: `${api}/v3` }));
    const reply = textOf(await commandReply(h, 'roles'));
    expect(reply).toContain("CometChat's address for the role list has no such path");
    expect(reply).toContain('a setting is wrong, not CometChat');
    expect(reply).toContain('check COMETCHAT_API_URL (the address without `/v3`');
  });

  it('the two addresses swapped', async () => {
    const h = await withSettings(({ api, call }) => ({
      COMETCHAT_API_URL: call,
      COMETCHAT_CALL_API_URL: api,
    }));
    const roles = textOf(await commandReply(h, 'roles'));
    expect(roles).toContain('check COMETCHAT_API_URL');
    expect(roles).toContain("not COMETCHAT_CALL_API_URL's");
    const call = textOf(await commandReply(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`));
    expect(call).toContain("CometChat's address for the call lookup has no such path");
    expect(call).toContain('check COMETCHAT_CALL_API_URL');
  });
});

describe('the check at start', () => {
  const running: Harness[] = [];
  afterEach(async () => {
    for (const h of running.splice(0).reverse()) await h.stop();
  });

  it('logs that an app works, and names what is wrong with one that does not', async () => {
    const base = await startHarness();
    running.push(base);
    expect(
      base.logs.records().some((r) => r.msg === 'CometChat app checked: key and addresses work'),
    ).toBe(true);
    const wrong = await startHarness({
      shared: { sandbox: base.sandbox, slack: base.slack },
      env: { COMETCHAT_API_URL: `${base.sandbox.apiUrl}/v3` },
    });
    running.push(wrong);
    const [warning] = wrong.logs
      .records()
      .filter((r) => r.msg === 'CometChat app checked: a setting or the service is not right');
    expect(warning).toMatchObject({ level: 40, app: 'default', calls: 'ok' });
    expect(String(warning?.roles)).toContain('check COMETCHAT_API_URL');
    // The offline stack takes the check's requests out of the sandbox's record; the one to the
    // wrong path stays, as any request the check did not mean.
    expect(base.sandbox.requests.map((r) => r.path)).toEqual(['/v3/v3/roles']);
  });
});
