import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  loadSeed,
  SANDBOX_ACCOUNT_IDS,
  type Sandbox,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

// A user's sessions, messages and groups on the stand-in, over HTTP, as live-api-notes.md
// describes them ("Sessions: auth tokens", "Messages", "Groups"); the seed they rest on.

const API_KEY = 'accounts-test-key-71fe';
const { uid, noSessions, deactivated, directWith, groups, conversations, messages } =
  SANDBOX_ACCOUNT_IDS;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
beforeEach(() => sandbox.reset());
afterAll(() => sandbox.close());

// Views of the stand-in's JSON for the assertions below (the stand-in is what is under test).
interface TokenJson {
  authToken: string;
  uid: string;
  createdAt: number;
  platform?: string;
}
interface MessageJson {
  id: string;
  sender: string;
  conversationId: string;
  sentAt: number;
  deletedAt?: number;
  editedAt?: number;
  data: { text?: string; attachments?: unknown[] };
}
interface Next {
  affix: 'append' | 'prepend';
  id: string;
  sentAt: number;
}
interface MessagePageJson {
  data: MessageJson[];
  meta: { current: { limit: number; count: number }; next?: Next };
}
interface GroupJson {
  guid: string;
  type: string;
  membersCount: number;
  hasJoined?: boolean;
  scope?: string;
}

function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
) {
  return fetch(`${sandbox.apiUrl}/v3/${path}`, {
    method,
    headers: { apikey: API_KEY, ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
}

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

async function codeOf(response: Response, status: number): Promise<string> {
  return (await json<{ error: { code: string } }>(response, status)).error.code;
}

const tokensOf = (who: string) => sandbox.state.accounts.authTokens.get(who) ?? [];
const sentBy = (who: string) =>
  [...sandbox.state.accounts.messages.values()].filter((m) => m.sender === who);

async function messagePage(query: string): Promise<MessagePageJson> {
  return json<MessagePageJson>(await call('GET', `messages?${query}`));
}

describe('the seed', () => {
  it('gives one user three sessions, another none, and a deactivated one a token', () => {
    const state = loadSeed();
    const three = state.accounts.authTokens.get(uid) ?? [];
    expect(new Set(three.map((t) => t.platform))).toEqual(new Set(['android', 'ios', 'web']));
    expect(new Set(three.map((t) => t.createdAt)).size).toBe(3);
    expect(state.accounts.authTokens.get(noSessions)).toBeUndefined();
    expect(state.users.get(deactivated)?.deactivatedAt).toBeDefined();
    expect(state.accounts.authTokens.get(deactivated)).toHaveLength(1);
  });

  it('gives the user 250 and more messages over weeks, in a group and a direct conversation', () => {
    const own = [...loadSeed().accounts.messages.values()].filter((m) => m.sender === uid);
    expect(own.length).toBeGreaterThanOrEqual(250);
    const where = new Set(own.map((m) => m.conversationId));
    expect(where).toContain(conversations.lobby);
    expect(where).toContain(conversations.direct);
    const times = own.map((m) => m.sentAt);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(28 * 86_400);
    expect(own.filter((m) => m.editedAt !== undefined).length).toBeGreaterThan(10);
    expect(own.filter((m) => m.deletedAt !== undefined).length).toBeGreaterThan(10);
    expect(own.filter((m) => Array.isArray(m.data.attachments)).length).toBeGreaterThan(10);
    expect(own.filter((m) => typeof m.data.text === 'string').length).toBeGreaterThan(200);
    const named = loadSeed().accounts.messages;
    expect(named.get(messages.edited)?.editedAt).toBeDefined();
    expect(named.get(messages.deleted)?.deletedAt).toBeDefined();
    expect(named.get(messages.attachment)?.data.attachments).toHaveLength(1);
    expect(named.get(messages.direct)?.conversationId).toBe(conversations.direct);
    expect(named.get(messages.newest)?.sentAt).toBe(Math.max(...times));
    expect(named.get(messages.oldest)?.sentAt).toBe(Math.min(...times));
    expect(named.get(messages.reply)?.sender).not.toBe(uid);
  });

  it('is the same on every load, whatever the time', () => {
    const early = loadSeed('default', 1_700_000_000).accounts;
    const late = loadSeed('default', 1_900_000_000).accounts;
    expect([...late.messages.values()]).toEqual([...early.messages.values()]);
    expect([...late.authTokens]).toEqual([...early.authTokens]);
  });

  it('puts the user in three groups, an admin of one', () => {
    const { members } = loadSeed().accounts;
    const theirs = [...members].filter(([, m]) => m.has(uid));
    expect(theirs.map(([guid]) => guid).sort()).toEqual(
      [groups.adminOf, groups.beta, groups.lobby].sort(),
    );
    expect(members.get(groups.adminOf)?.get(uid)?.scope).toBe('admin');
  });

  it('gives the second seed no accounts', () => {
    const { accounts } = loadSeed('second');
    expect(accounts.authTokens.size + accounts.messages.size + accounts.groups.size).toBe(0);
  });
});

describe('auth tokens', () => {
  it('lists a user’s tokens, paged', async () => {
    const first = await json<{ data: TokenJson[]; meta: { pagination: { total_pages: number } } }>(
      await call('GET', `users/${uid}/auth_tokens?perPage=2`),
    );
    expect(first.data).toHaveLength(2);
    expect(first.meta.pagination.total_pages).toBe(2);
    const second = await json<{ data: TokenJson[] }>(
      await call('GET', `users/${uid}/auth_tokens?perPage=2&page=2`),
    );
    expect([...first.data, ...second.data].map((t) => t.authToken)).toEqual(
      tokensOf(uid).map((t) => t.authToken),
    );
    const none = await json<{ data: TokenJson[] }>(
      await call('GET', `users/${noSessions}/auth_tokens`),
    );
    expect(none.data).toEqual([]);
  });

  it('revokes one token, then answers it is not found', async () => {
    const [oldest, ...rest] = tokensOf(uid);
    if (!oldest) throw new Error('no seeded token');
    const path = `users/${uid}/auth_tokens/${oldest.authToken}`;
    const answer = await json<{ data: { success: boolean; message: string } }>(
      await call('DELETE', path),
    );
    expect(answer.data.success).toBe(true);
    expect(JSON.stringify(answer)).not.toContain(oldest.authToken);
    expect(tokensOf(uid)).toEqual(rest);
    expect(await codeOf(await call('DELETE', path), 404)).toBe('ERR_AUTH_TOKEN_NOT_FOUND');
    // Another user's token is not this user's to revoke.
    const other = tokensOf(directWith)[0]?.authToken;
    expect(await codeOf(await call('DELETE', `users/${uid}/auth_tokens/${other}`), 404)).toBe(
      'ERR_AUTH_TOKEN_NOT_FOUND',
    );
    expect(tokensOf(directWith)).toHaveLength(1);
  });

  it('revokes every token at once', async () => {
    const answer = await json<{ data: { message: string } }>(
      await call('DELETE', `users/${uid}/auth_tokens`),
    );
    expect(answer.data.message).toBe(`Cleared Auth Tokens successfully for uid ${uid}.`);
    expect(tokensOf(uid)).toEqual([]);
    expect(tokensOf(directWith)).toHaveLength(1);
  });

  it('answers a deactivated or unknown uid ERR_UID_NOT_FOUND on every route named by it', async () => {
    const token = tokensOf(deactivated)[0]?.authToken;
    for (const who of [deactivated, 'nobody-here']) {
      for (const [method, path, init] of [
        ['GET', `users/${who}/auth_tokens`, {}],
        ['DELETE', `users/${who}/auth_tokens`, {}],
        ['DELETE', `users/${who}/auth_tokens/${token}`, {}],
        ['POST', `groups/${groups.lobby}/bannedusers/${who}`, {}],
        ['DELETE', `groups/${groups.lobby}/bannedusers/${who}`, {}],
        ['GET', 'groups', { headers: { onBehalfOf: who } }],
        ['GET', `messages?sender=${uid}`, { headers: { onBehalfOf: who } }],
      ] as const) {
        expect(await codeOf(await call(method, path, init), 404), `${method} ${path}`).toBe(
          'ERR_UID_NOT_FOUND',
        );
      }
    }
    expect(tokensOf(deactivated)).toHaveLength(1);
    // The user itself is still found, as before.
    expect((await call('GET', `users/${deactivated}`)).status).toBe(200);
  });
});

describe('the message list', () => {
  it('answers the newest `limit` without a cursor, oldest first, with where to go on', async () => {
    const own = sentBy(uid);
    const page = await messagePage(`sender=${uid}&limit=5`);
    expect(page.data.map((m) => m.id)).toEqual(own.slice(-5).map((m) => m.id));
    expect(page.meta.current).toEqual({ limit: 5, count: 5 });
    const oldest = own.at(-5);
    expect(page.meta.next).toEqual({ affix: 'prepend', id: oldest?.id, sentAt: oldest?.sentAt });
    // Ten by default.
    expect((await messagePage(`sender=${uid}`)).data).toHaveLength(10);
  });

  it('reads before the cursor with prepend and after it with append', async () => {
    const ids = sentBy(uid).map((m) => m.id);
    const at = ids.indexOf(messages.deleted);
    const before = await messagePage(`sender=${uid}&limit=3&affix=prepend&id=${messages.deleted}`);
    expect(before.data.map((m) => m.id)).toEqual(ids.slice(at - 3, at));
    expect(before.meta.next?.id).toBe(ids[at - 3]);
    const after = await messagePage(`sender=${uid}&limit=3&affix=append&id=${messages.deleted}`);
    expect(after.data.map((m) => m.id)).toEqual(ids.slice(at + 1, at + 4));
    expect(after.meta.next).toMatchObject({ affix: 'append', id: ids[at + 3] });
    // By time alone too.
    const sentAt = sandbox.state.accounts.messages.get(messages.deleted)?.sentAt;
    const byTime = await messagePage(`sender=${uid}&limit=3&affix=append&sentAt=${sentAt}`);
    expect(byTime.data.map((m) => m.id)).toEqual(ids.slice(at + 1, at + 4));
    // Past the end: an empty page and nowhere to go.
    const end = await messagePage(`sender=${uid}&affix=append&id=${messages.newest}`);
    expect(end.data).toEqual([]);
    expect(end.meta.next).toBeUndefined();
  });

  it('narrows by conversation, time, attachments and deletion', async () => {
    const own = sentBy(uid);
    const all = async (query: string) =>
      (await messagePage(`sender=${uid}&limit=1000&${query}`)).data.map((m) => m.id);
    const ids = (list: typeof own) => list.map((m) => m.id);
    expect(await all(`conversationId=${conversations.direct}`)).toEqual(
      ids(own.filter((m) => m.conversationId === conversations.direct)),
    );
    const from = own[100]?.sentAt ?? 0;
    const to = own[150]?.sentAt ?? 0;
    expect(await all(`fromTimestamp=${from}&toTimestamp=${to}`)).toEqual(ids(own.slice(100, 151)));
    expect(await all('hasAttachments=true')).toEqual(
      ids(own.filter((m) => Array.isArray(m.data.attachments))),
    );
    expect(await all('onlyDeleted=true')).toEqual(ids(own.filter((m) => m.deletedAt)));
    expect(await all('hideDeleted=true')).toEqual(ids(own.filter((m) => !m.deletedAt)));
    // No sender: everyone's, the replies too.
    expect((await messagePage('limit=1000')).data.length).toBe(
      sandbox.state.accounts.messages.size,
    );
  });

  it('refuses a limit or a cursor it cannot read', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=ten', 'affix=sideways&id=1', 'id=abc']) {
      expect(await codeOf(await call('GET', `messages?${query}`), 400), query).toBe(
        'ERR_BAD_REQUEST',
      );
    }
  });
});

describe('one message', () => {
  it('answers a chat message, and still the call messages', async () => {
    const { data } = await json<{ data: MessageJson }>(
      await call('GET', `messages/${messages.edited}`),
    );
    expect(data).toMatchObject({ id: messages.edited, sender: uid });
    expect(data.editedAt).toBeDefined();
    sandbox.state.callMessages.set('43400', [...sandbox.state.calls.keys()][0] ?? '');
    expect((await call('GET', 'messages/43400')).status).toBe(200);
    expect(await codeOf(await call('GET', 'messages/99999999'), 404)).toBe('ERR_MSG_NOT_FOUND');
  });

  it('deletes softly without a body, and for good with `permanent: true`', async () => {
    const soft = await json<{ data: MessageJson }>(
      await call('DELETE', `messages/${messages.firstOfSeries}`),
    );
    expect(soft.data.deletedAt).toBeDefined();
    expect(sandbox.state.accounts.messages.get(messages.firstOfSeries)?.deletedAt).toBe(
      soft.data.deletedAt,
    );
    const json_ = { 'content-type': 'application/json' };
    const softAgain = await call('DELETE', `messages/${messages.edited}`, {
      headers: json_,
      body: '{"permanent":false}',
    });
    expect(softAgain.status).toBe(200);
    expect(sandbox.state.accounts.messages.get(messages.edited)?.deletedAt).toBeDefined();
    const gone = await call('DELETE', `messages/${messages.direct}`, {
      headers: json_,
      body: '{"permanent":true}',
    });
    expect(gone.status).toBe(200);
    expect(sandbox.state.accounts.messages.has(messages.direct)).toBe(false);
    expect(await codeOf(await call('GET', `messages/${messages.direct}`), 404)).toBe(
      'ERR_MSG_NOT_FOUND',
    );
    expect(await codeOf(await call('DELETE', `messages/${messages.direct}`), 404)).toBe(
      'ERR_MSG_NOT_FOUND',
    );
    const bad = await call('DELETE', `messages/${messages.newest}`, {
      headers: json_,
      body: '{"permanent":"yes"}',
    });
    expect(await codeOf(bad, 400)).toBe('ERR_BAD_REQUEST');
    expect(sandbox.state.accounts.messages.get(messages.newest)?.deletedAt).toBeUndefined();
  });
});

describe('groups and bans', () => {
  it('lists every group, or those a user sees with hasJoined and scope', async () => {
    const all = await json<{ data: GroupJson[] }>(await call('GET', 'groups'));
    expect(all.data.map((g) => g.guid)).toEqual([...sandbox.state.accounts.groups.keys()]);
    expect(all.data.every((g) => g.hasJoined === undefined)).toBe(true);
    const theirs = await json<{ data: GroupJson[] }>(
      await call('GET', 'groups?perPage=1000', { headers: { onBehalfOf: uid } }),
    );
    const seen = Object.fromEntries(theirs.data.map((g) => [g.guid, [g.hasJoined, g.scope]]));
    expect(seen).toEqual({
      [groups.lobby]: [true, 'participant'],
      [groups.beta]: [true, 'participant'],
      [groups.adminOf]: [true, 'admin'],
      [groups.notJoined]: [false, undefined],
    });
  });

  it('answers one group and its members, and an unknown guid ERR_GUID_NOT_FOUND', async () => {
    const { data } = await json<{ data: GroupJson }>(await call('GET', `groups/${groups.lobby}`));
    expect(data.membersCount).toBe(5);
    const admins = await json<{ data: { uid: string; scope: string }[] }>(
      await call('GET', `groups/${groups.adminOf}/members?scopes=admin`),
    );
    expect(admins.data.map((m) => m.uid).sort()).toEqual([uid, 'customer-1004']);
    for (const path of ['groups/no-such-group', 'groups/no-such-group/members']) {
      expect(await codeOf(await call('GET', path), 404)).toBe('ERR_GUID_NOT_FOUND');
    }
    expect(await codeOf(await call('POST', `groups/no-such-group/bannedusers/${uid}`), 404)).toBe(
      'ERR_GUID_NOT_FOUND',
    );
  });

  it('bans a member out of the group, once, and lifts the ban once', async () => {
    const path = `groups/${groups.beta}/bannedusers/${uid}`;
    expect((await call('POST', path)).status).toBe(200);
    expect(sandbox.state.accounts.members.get(groups.beta)?.has(uid)).toBe(false);
    expect(sandbox.state.accounts.bans.get(groups.beta)?.has(uid)).toBe(true);
    expect(await codeOf(await call('POST', path), 400)).toBe('ERR_ALREADY_BANNED');
    const banned = await json<{ data: { uid: string }[] }>(
      await call('GET', `groups/${groups.beta}/bannedusers`),
    );
    expect(banned.data.map((b) => b.uid)).toEqual([uid]);
    expect((await call('DELETE', path)).status).toBe(200);
    expect(sandbox.state.accounts.bans.get(groups.beta)?.has(uid)).toBe(false);
    // Unbanned is not a member again: they may rejoin.
    expect(sandbox.state.accounts.members.get(groups.beta)?.has(uid)).toBe(false);
    expect(await codeOf(await call('DELETE', path), 400)).toBe('ERR_NOT_A_BANNED_USER');
  });

  it('lets a test fail one ban with a fault, and the next goes through', async () => {
    sandbox.inject({ kind: 'status', status: 500, method: 'POST', pathIncludes: '/bannedusers/' });
    expect((await call('POST', `groups/${groups.lobby}/bannedusers/${uid}`)).status).toBe(500);
    expect(sandbox.state.accounts.bans.get(groups.lobby)?.has(uid)).toBe(false);
    expect((await call('POST', `groups/${groups.beta}/bannedusers/${uid}`)).status).toBe(200);
    sandbox.inject({ kind: 'status', status: 404, pathIncludes: '/groups/' });
    expect(await codeOf(await call('GET', `groups/${groups.lobby}`), 404)).toBe(
      'ERR_GUID_NOT_FOUND',
    );
  });

  it('is back to the seed after a reset', async () => {
    await call('POST', `groups/${groups.lobby}/bannedusers/${uid}`);
    await call('DELETE', `users/${uid}/auth_tokens`);
    await call('DELETE', `messages/${messages.newest}`);
    sandbox.reset();
    expect(sandbox.state.accounts.members.get(groups.lobby)?.has(uid)).toBe(true);
    expect(sandbox.state.accounts.bans.get(groups.lobby)?.has(uid)).toBe(false);
    expect(tokensOf(uid)).toHaveLength(3);
    expect(sandbox.state.accounts.messages.get(messages.newest)?.deletedAt).toBeUndefined();
  });
});
