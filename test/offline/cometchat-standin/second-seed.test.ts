import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  loadSeed,
  SANDBOX_SEED_NAMES,
  SANDBOX_SEEDS,
  SANDBOX_SESSION_IDS,
  type Sandbox,
  type SandboxSeedName,
  SECOND_SANDBOX_SESSION_IDS,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';
import { createCometChatClient } from '../../../src/cometchat/client.ts';
import { createLogger } from '../../../src/log.ts';
import { LogCapture } from '../../log-capture.ts';

// Two sandboxes side by side, one per seed, the way the offline stack serves two apps: what
// each knows, and that neither knows the other's calls or takes the other's key.

const FIRST_KEY = 'first-app-key-51d0';
const SECOND_KEY = 'second-app-key-8e3a';

let first: Sandbox;
let second: Sandbox;

beforeAll(async () => {
  [first, second] = await Promise.all([
    startSandbox({ apiKey: FIRST_KEY }),
    startSandbox({ apiKey: SECOND_KEY, seed: 'second' }),
  ]);
});
beforeEach(() => {
  first.reset();
  second.reset();
});
afterAll(() => Promise.all([first.close(), second.close()]));

interface RoleJson {
  role: string;
  name: string;
  description: string;
}

async function roles(sandbox: Sandbox, apiKey: string): Promise<RoleJson[]> {
  const response = await fetch(`${sandbox.apiUrl}/v3/roles`, { headers: { apikey: apiKey } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RoleJson[] }).data;
}

function getCall(sandbox: Sandbox, apiKey: string, sessionId: string): Promise<Response> {
  return fetch(`${sandbox.callUrl}/v3/calls/${encodeURIComponent(sessionId)}`, {
    headers: { apikey: apiKey },
  });
}

describe('the second seed', () => {
  it('is chosen by the seed option; the default seed stays the default', () => {
    expect(first.seed).toBe('default');
    expect(second.seed).toBe('second');
    expect(SANDBOX_SEED_NAMES).toEqual(['default', 'second']);
    expect(SANDBOX_SEEDS.default.sessionIds).toBe(SANDBOX_SESSION_IDS);
    expect(SANDBOX_SEEDS.second.sessionIds).toBe(SECOND_SANDBOX_SESSION_IDS);
  });

  it('lists its own roles, in seed order', async () => {
    expect((await roles(second, SECOND_KEY)).map((r) => r.role)).toEqual([
      'default',
      'admin',
      'moderator',
      'auditor',
      'enterprise-admin',
    ]);
  });

  it('shares some role ids with the default seed, under other names and permissions', async () => {
    const [mine, theirs] = [await roles(second, SECOND_KEY), await roles(first, FIRST_KEY)];
    const nameOf = (list: RoleJson[], id: string) => list.find((r) => r.role === id)?.name;
    expect(nameOf(mine, 'default')).toBe('Member');
    expect(nameOf(theirs, 'default')).toBe('Default');
    expect(nameOf(mine, 'moderator')).toBe('Moderator');
    expect(nameOf(theirs, 'moderator')).toBe('Modérateur 🛡️');

    const permission = (sandbox: Sandbox, role: string, key: string) =>
      sandbox.state.permissions.get(role)?.[key];
    expect(permission(second, 'moderator', 'deleteMessage')).toBe('deny');
    expect(permission(first, 'moderator', 'deleteMessage')).toBe('allow');
    expect(permission(second, 'default', 'createGroup')).toBe('deny');
    expect(permission(first, 'default', 'createGroup')).toBe('allow');
    // admin is the same in both: a change promoted from one app to the other shows no diff.
    expect(second.state.permissions.get('admin')).toEqual(first.state.permissions.get('admin'));
  });

  it('has roles the default seed lacks, and lacks some it has', async () => {
    const mine = new Set((await roles(second, SECOND_KEY)).map((r) => r.role));
    const theirs = new Set((await roles(first, FIRST_KEY)).map((r) => r.role));
    for (const only of ['auditor', 'enterprise-admin']) {
      expect(mine.has(only), only).toBe(true);
      expect(theirs.has(only), only).toBe(false);
    }
    for (const only of ['support-agent', 'guest', 'banned', 'vip']) {
      expect(theirs.has(only), only).toBe(true);
      expect(mine.has(only), only).toBe(false);
    }
    expect(second.state.permissions.get('auditor')?.sendMessage).toBe('deny');
  });

  it('serves its own calls in their seeded shapes, and none of the default seed’s', async () => {
    for (const [name, id] of Object.entries(SECOND_SANDBOX_SESSION_IDS)) {
      expect(id, name).toMatch(/^v1\.us\.sandbox-app-2\./);
      const response = await getCall(second, SECOND_KEY, id);
      expect(response.status, name).toBe(200);
      const { data } = (await response.json()) as { data: unknown };
      const shape = Array.isArray(data) ? 'array' : 'object';
      expect(shape, name).toBe(second.state.calls.get(id)?.shape);
      // The default seed has no such call.
      expect((await getCall(first, FIRST_KEY, id)).status, name).toBe(404);
    }
    // The named calls, and the twenty recent ones made at start-up (none of them the default's).
    expect(second.state.calls.size).toBe(Object.keys(SECOND_SANDBOX_SESSION_IDS).length + 20);
    for (const id of second.state.calls.keys()) expect(first.state.calls.has(id), id).toBe(false);
    for (const id of Object.values(SANDBOX_SESSION_IDS)) {
      expect((await getCall(second, SECOND_KEY, id)).status, id).toBe(404);
    }
  });

  it('refuses the other sandbox’s key, naming its own app id', async () => {
    const response = await fetch(`${second.apiUrl}/v3/roles`, { headers: { apikey: FIRST_KEY } });
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(text).toContain(`application ${SANDBOX_SEEDS.second.appId}.`);
    expect(text).not.toContain(FIRST_KEY);
    expect(text).not.toContain(SECOND_KEY);
    expect((await getCall(first, SECOND_KEY, SANDBOX_SESSION_IDS.audioEnded)).status).toBe(401);
  });

  it('goes back to the second seed on reset, not to the default one', async () => {
    await fetch(`${second.apiUrl}/v3/roles/moderator/permissions`, {
      method: 'PUT',
      headers: { apikey: SECOND_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ permissions: { deleteMessage: 'allow' } }),
    });
    expect(second.state.permissions.get('moderator')?.deleteMessage).toBe('allow');
    second.reset();
    expect(second.state.permissions.get('moderator')?.deleteMessage).toBe('deny');
    expect(second.state.roles.map((r) => r.role)).toContain('auditor');
    expect(second.state.calls.has(SANDBOX_SESSION_IDS.audioEnded)).toBe(false);
  });

  it('loads fresh objects every time, so two sandboxes of one seed share nothing', () => {
    const a = loadSeed('second');
    const b = loadSeed('second');
    a.roles.splice(0);
    a.permissions.clear();
    expect(b.roles).toHaveLength(5);
    expect(b.permissions.size).toBe(5);
    expect(loadSeed().roles).toHaveLength(10);
  });

  it('refuses a seed name that does not exist', async () => {
    // What untyped code (a CLI, a JSON file) could pass.
    const unknown = 'third' as SandboxSeedName;
    expect(() => loadSeed(unknown)).toThrow(/no seed named "third"/);
    await expect(startSandbox({ apiKey: 'k', seed: unknown })).rejects.toThrow(/third/);
  });

  it('is data the app’s own client reads: every role and every call parses', async () => {
    const logs = new LogCapture();
    const client = createCometChatClient({
      apiUrl: second.apiUrl,
      callApiUrl: second.callUrl,
      apiKey: SECOND_KEY,
      timeoutMs: 2_000,
      budgetMs: 4_000,
      logger: createLogger({ level: 'warn', destination: logs }),
    });
    const listed = await client.listAllRoles();
    expect(listed.map((r) => r.role)).toEqual(second.state.roles.map((r) => r.role));
    for (const id of Object.values(SECOND_SANDBOX_SESSION_IDS)) {
      expect((await client.getCall(id)).sessionId).toBe(id);
    }
    expect(logs.lines).toEqual([]);
  });
});
