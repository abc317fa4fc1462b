import { lookup } from 'node:dns/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { freePort } from '../crash/child-app.ts';
import { commandReply, type Harness, startHarness, textOf } from './harness.ts';

// An installer's mistakes in the CometChat addresses are told apart from an outage: the reply
// names the setting to check.

/** Host names that never resolve (RFC 6761 reserves `.invalid`), one for each address. */
const NO_SUCH_HOST = { api: 'roles.nosuchhost.invalid', call: 'calls.nosuchhost.invalid' };

/**
 * Whether this machine's resolver answers "no such name" (ENOTFOUND) for a `.invalid` host, as
 * any resolver that can reach a name server does. One with none to ask says "try again"
 * (EAI_AGAIN), which is rightly no wrong setting; it may also take its time: 2 s at most here.
 */
async function resolverSaysNoSuchName(host: string): Promise<boolean> {
  const answer = lookup(host).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ENOTFOUND',
  );
  const late = new Promise<false>((resolve) => setTimeout(() => resolve(false), 2_000).unref());
  return Promise.race([answer, late]);
}

/**
 * Where the resolver cannot say it, fetch fails for `hosts` as it does when the lookup says "no
 * such name" (undici wraps the lookup's error), the way the client's own test injects it; every
 * other request goes out as usual.
 */
function noSuchName(hosts: readonly string[]): void {
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!hosts.includes(url.hostname)) return real(input, init);
    const cause = Object.assign(new Error(`getaddrinfo ENOTFOUND ${url.hostname}`), {
      code: 'ENOTFOUND',
      hostname: url.hostname,
    });
    throw new TypeError('fetch failed', { cause });
  });
}

describe('a wrong CometChat address', () => {
  const running: Harness[] = [];
  afterEach(async () => {
    for (const h of running.splice(0).reverse()) await h.stop();
    vi.restoreAllMocks();
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

  it('a host name that does not resolve', async () => {
    if (!(await resolverSaysNoSuchName(NO_SUCH_HOST.api))) {
      noSuchName(Object.values(NO_SUCH_HOST));
    }
    const h = await withSettings(() => ({
      COMETCHAT_API_URL: `http://${NO_SUCH_HOST.api}`,
      COMETCHAT_CALL_API_URL: `http://${NO_SUCH_HOST.call}`,
    }));
    const roles = textOf(await commandReply(h, 'roles'));
    expect(roles).toContain(
      "CometChat's address for the role list does not resolve: a setting is wrong, not CometChat. An admin should check COMETCHAT_API_URL if it is set, else COMETCHAT_APP_ID and COMETCHAT_REGION.",
    );
    expect(roles).not.toContain('status page');
    const call = textOf(await commandReply(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`));
    expect(call).toContain(
      "CometChat's address for the call lookup does not resolve: a setting is wrong, not CometChat. An admin should check COMETCHAT_CALL_API_URL if it is set, else COMETCHAT_APP_ID and COMETCHAT_REGION.",
    );
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
      base.logs
        .records()
        .some((r) => r.message === 'CometChat app checked: key and addresses work'),
    ).toBe(true);
    const wrong = await startHarness({
      shared: { sandbox: base.sandbox, slack: base.slack },
      env: { COMETCHAT_API_URL: `${base.sandbox.apiUrl}/v3` },
    });
    running.push(wrong);
    const [warning] = wrong.logs
      .records()
      .filter((r) => r.message === 'CometChat app checked: a setting or the service is not right');
    expect(warning).toMatchObject({
      log: { level: 'warn' },
      cometchat_ops: { app: 'default', calls: 'ok' },
    });
    expect(String(warning?.cometchat_ops.roles)).toContain('check COMETCHAT_API_URL');
    // The offline stack takes the check's requests out of the sandbox's record; the one to the
    // wrong path stays, as any request the check did not mean.
    expect(base.sandbox.requests.map((r) => r.path)).toEqual(['/v3/v3/roles']);
  });

  it('names the app and the setting when nothing answers at its address', async () => {
    const base = await startHarness();
    running.push(base);
    // A port nothing listens on: as a CometChat address behind a firewall or mistyped.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await startHarness({
      shared: { sandbox: base.sandbox, slack: base.slack },
      env: { COMETCHAT_CALL_API_URL: closed },
    });
    running.push(unreachable);
    const [warning] = unreachable.logs
      .records()
      .filter((r) => r.message === 'CometChat app checked: a setting or the service is not right');
    expect(warning).toMatchObject({ cometchat_ops: { app: 'default', roles: 'ok' } });
    expect(String(warning?.cometchat_ops.calls)).toContain('check COMETCHAT_CALL_API_URL');
  });
});
