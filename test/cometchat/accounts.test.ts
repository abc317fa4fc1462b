import { describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNT_IDS } from '../../offline/cometchat-standin/server.ts';
import type { ChatMessage, MessageCursor, MessagePage } from '../../src/cometchat/account-model.ts';
import { sessionFingerprint } from '../../src/cometchat/sessions.ts';
import { captureLogger, errorTexts, failure, only, useSandboxClient } from './client-harness.ts';

// The client's sessions, messages and groups (account-model.ts) against the stand-in over
// loopback: what is sent, how the answers are read, that an auth token never leaves the client,
// and how the cursor pages through a user's messages. The seed is described in
// offline/cometchat-standin/README.md ("Accounts").

const { sandbox: standIn, client: clientOf } = useSandboxClient();
const { uid, noSessions, deactivated, groups, conversations, messages } = SANDBOX_ACCOUNT_IDS;

const tokensOf = (who: string) =>
  (standIn().state.accounts.authTokens.get(who) ?? []).map((t) => t.authToken);
const sentBy = (who: string) =>
  [...standIn().state.accounts.messages.values()].filter((m) => m.sender === who);

describe('sessionFingerprint', () => {
  it('is the first 8 hex characters of the token’s SHA-256', () => {
    // echo -n abc | sha256sum: ba7816bf8f01cfea...
    expect(sessionFingerprint('abc')).toBe('ba7816bf');
    expect(sessionFingerprint('abd')).not.toBe(sessionFingerprint('abc'));
  });
});

describe('listSessions', () => {
  it('reads every page of tokens, newest first, as fingerprints without the tokens', async () => {
    const tokens = tokensOf(uid);
    const sessions = await clientOf().listSessions(uid);
    expect(sessions.map((s) => s.platform)).toEqual(['web', 'ios', 'android']);
    expect(sessions.map((s) => s.createdAt)).toEqual([1_738_368_000, 1_736_899_200, 1_733_011_200]);
    expect(new Set(sessions.map((s) => s.fingerprint))).toEqual(
      new Set(tokens.map(sessionFingerprint)),
    );
    expect(sessions[1]).toMatchObject({ appInfo: 'Support Chat 2.4.0' });
    const text = JSON.stringify(sessions);
    for (const token of tokens) expect(text).not.toContain(token);
    // One page read (an attempt timed out on a loaded machine is retried: the same page again).
    const pages = new Set(
      standIn().requests.map((r) => JSON.stringify([r.method, r.path, r.query])),
    );
    expect([...pages].map((p) => JSON.parse(p))).toEqual([
      ['GET', `/v3/users/${uid}/auth_tokens`, { page: '1', perPage: '100' }],
    ]);
  });

  it('reads on while the pagination says there is more', async () => {
    const many = Array.from({ length: 150 }, (_, i) => ({
      authToken: `${noSessions}_token_${String(i).padStart(4, '0')}`,
      uid: noSessions,
      createdAt: 1_700_000_000 + i,
    }));
    standIn().state.accounts.authTokens.set(noSessions, many);
    const sessions = await clientOf().listSessions(noSessions);
    expect(sessions).toHaveLength(150);
    expect(sessions[0]?.createdAt).toBe(1_700_000_149);
    expect(standIn().requests.map((r) => r.query.page)).toEqual(['1', '2']);
  });

  it('answers no sessions for a user without any', async () => {
    expect(await clientOf().listSessions(noSessions)).toEqual([]);
  });

  it('reads the shapes of other versions: appInfo as an object, no platform', async () => {
    standIn().inject({
      kind: 'schema',
      body: {
        data: [
          {
            authToken: 'tok-1-abcdefgh',
            createdAt: '1700000000',
            appInfo: { name: 'App', version: '1.2' },
          },
          { authToken: 'tok-2-abcdefgh', createdAt: 1_700_000_100, platform: null },
        ],
      },
    });
    const sessions = await clientOf().listSessions(uid);
    expect(sessions).toEqual([
      {
        fingerprint: sessionFingerprint('tok-2-abcdefgh'),
        createdAt: 1_700_000_100,
        platform: undefined,
        userAgent: undefined,
        appInfo: undefined,
      },
      {
        fingerprint: sessionFingerprint('tok-1-abcdefgh'),
        createdAt: 1_700_000_000,
        platform: undefined,
        userAgent: undefined,
        appInfo: 'App 1.2',
      },
    ]);
  });

  it('is not_found for a deactivated user, as for an unknown one', async () => {
    for (const who of [deactivated, 'no-such-user']) {
      const error = await failure(clientOf().listSessions(who));
      expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_UID_NOT_FOUND' });
    }
  });
});

describe('revokeSession', () => {
  it('finds the token by its fingerprint and DELETEs that one token', async () => {
    const [oldest, middle, newest] = tokensOf(uid);
    if (!(oldest && middle && newest)) throw new Error('the seed has three tokens');
    await clientOf().revokeSession(uid, sessionFingerprint(middle));
    expect(tokensOf(uid)).toEqual([oldest, newest]);
    const deletes = standIn().requests.filter((r) => r.method === 'DELETE');
    expect(only(deletes).path).toBe(`/v3/users/${uid}/auth_tokens/${middle}`);
  });

  it('is not_found, sending no DELETE, when no session has that fingerprint', async () => {
    const error = await failure(clientOf().revokeSession(uid, '00000000'));
    expect(error).toMatchObject({ kind: 'not_found', operation: 'revokeSession' });
    expect(standIn().requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(tokensOf(uid)).toHaveLength(3);
  });

  it('keeps the token out of the log and the error when the request fails on its way', async () => {
    const token = tokensOf(uid)[0] ?? '';
    // Some fetches name the URL in a network failure (Deno's `error sending request for url`),
    // and ky names it in its own: the revoke-one URL holds the token.
    const failing: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = input instanceof Request ? input.method : init?.method;
      if (method === 'DELETE' && url.includes('/auth_tokens/')) {
        return Promise.reject(new TypeError(`error sending request for url (${url})`));
      }
      return fetch(input, init);
    };
    const { logger, capture } = captureLogger();
    const client = clientOf({ fetch: failing, logger, retryLimit: 1 });
    const error = await failure(client.revokeSession(uid, sessionFingerprint(token)));
    expect(error.kind).toBe('unavailable');
    // The failure and the retry were logged with their cause, its URL cut to the origin.
    const log = capture.text();
    expect(log).toContain('retrying CometChat request');
    expect(log).toContain('CometChat request failed');
    expect(log).toContain(`${new URL(standIn().apiUrl).origin}/[path]`);
    for (const text of [log, ...errorTexts(error)]) expect(text).not.toContain(token);
  });

  it('keeps the token out of the error when the service echoes it', async () => {
    const token = tokensOf(uid)[1] ?? '';
    const message = `The auth token ${token} does not exist.`;
    standIn().inject({
      kind: 'status',
      status: 404,
      method: 'DELETE',
      pathIncludes: '/auth_tokens/',
      body: {
        error: { code: 'ERR_AUTH_TOKEN_NOT_FOUND', message, details: { authToken: [token] } },
      },
    });
    const { logger, capture } = captureLogger();
    const error = await failure(clientOf({ logger }).revokeSession(uid, sessionFingerprint(token)));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_AUTH_TOKEN_NOT_FOUND' });
    expect(error.serviceMessage).toBe('The auth token [redacted] does not exist.');
    expect(capture.text()).toContain('CometChat request failed');
    for (const text of [capture.text(), ...errorTexts(error)]) expect(text).not.toContain(token);
  });
});

describe('revokeAllSessions', () => {
  it('sends one DELETE for every session', async () => {
    await clientOf().revokeAllSessions(uid);
    expect(only(standIn().requests)).toMatchObject({
      method: 'DELETE',
      path: `/v3/users/${uid}/auth_tokens`,
    });
    expect(tokensOf(uid)).toEqual([]);
  });
});

describe('listMessages', () => {
  it('maps the query onto GET /v3/messages and reads a page oldest first', async () => {
    const cursor: MessageCursor = { affix: 'prepend', id: messages.newest, sentAt: 1_738_487_383 };
    const page = await clientOf().listMessages({
      sender: uid,
      since: 1_735_689_600,
      until: 1_738_487_383,
      conversationId: conversations.lobby,
      attachments: true,
      limit: 5,
      cursor,
    });
    expect(only(standIn().requests)).toMatchObject({
      method: 'GET',
      path: '/v3/messages',
      query: {
        sender: uid,
        fromTimestamp: '1735689600',
        toTimestamp: '1738487383',
        conversationId: conversations.lobby,
        hasAttachments: 'true',
        limit: '5',
        affix: 'prepend',
        id: messages.newest,
        sentAt: '1738487383',
      },
    });
    expect(page.messages).toHaveLength(5);
    expect(page.messages.every((m) => m.attachments === 1 && m.text === undefined)).toBe(true);
    const times = page.messages.map((m) => m.sentAt);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(page.next).toMatchObject({ affix: 'prepend', id: page.messages[0]?.id });
  });

  it('pages forward and back through all of a user’s messages: none twice, none skipped', async () => {
    const client = clientOf();
    const limit = 25;
    const read = (cursor?: MessageCursor) => client.listMessages({ sender: uid, limit, cursor });
    // Forward: newest first, each page's `next` going further back.
    const forward: MessagePage[] = [];
    let page = await read();
    while (page.messages.length > 0) {
      forward.push(page);
      page = await read(page.next);
    }
    const expected = sentBy(uid).map((m) => m.id);
    expect(expected.length).toBeGreaterThanOrEqual(250);
    const ids = (pages: MessagePage[]) => pages.flatMap((p) => p.messages.map((m) => m.id));
    const forwardIds = ids([...forward].reverse());
    expect(forwardIds).toEqual(expected);
    expect(new Set(forwardIds).size).toBe(forwardIds.length);
    // Back: from the oldest page, after its newest message, each `next` coming nearer now.
    const oldest = forward.at(-1)?.messages.at(-1);
    if (!oldest) throw new Error('no pages read');
    const back: MessagePage[] = [];
    page = await read({ affix: 'append', id: oldest.id, sentAt: oldest.sentAt });
    while (page.messages.length > 0) {
      back.push(page);
      page = await read(page.next);
    }
    // The same pages as forward, the oldest one aside (it was the starting point).
    expect(back.map((p) => p.messages.map((m) => m.id))).toEqual(
      forward
        .slice(0, -1)
        .reverse()
        .map((p) => p.messages.map((m) => m.id)),
    );
    expect([...ids(forward.slice(-1)), ...ids(back)]).toEqual(expected);
  });

  it('reads the edited, the deleted, the attachments and the text', async () => {
    const around = await clientOf().listMessages({
      sender: uid,
      limit: 8,
      cursor: { affix: 'append', id: messages.oldest },
    });
    const byId = new Map(around.messages.map((m) => [m.id, m]));
    expect(byId.get(messages.edited)?.editedAt).toBeGreaterThan(0);
    expect(byId.get(messages.deleted)?.deletedAt).toBeGreaterThan(0);
    expect(byId.get(messages.attachment)).toMatchObject({ type: 'image', attachments: 1 });
    expect(byId.get(messages.custom)).toMatchObject({ category: 'custom', type: 'poll' });
    expect(byId.get(messages.custom)?.text).toBeUndefined();
    expect(byId.get(messages.firstOfSeries)).toMatchObject({
      conversationId: conversations.lobby,
      receiverType: 'group',
      receiver: groups.lobby,
      text: 'Hi, my order still has not arrived (#1)',
      attachments: 0,
    });
  });

  it('asks for what is left to delete when told to', async () => {
    const page = await clientOf().listMessages({ sender: uid, hideDeleted: true, limit: 1000 });
    expect(only(standIn().requests).query.hideDeleted).toBe('true');
    expect(page.messages.map((m) => m.id)).toEqual(
      sentBy(uid)
        .filter((m) => !m.deletedAt)
        .map((m) => m.id),
    );
  });

  it('asks only for deleted ones when told to', async () => {
    const page = await clientOf().listMessages({ sender: uid, onlyDeleted: true, limit: 1000 });
    expect(only(standIn().requests).query.onlyDeleted).toBe('true');
    expect(page.messages.map((m) => m.id)).toEqual(
      sentBy(uid)
        .filter((m) => m.deletedAt)
        .map((m) => m.id),
    );
  });

  it('reads the shapes of other versions: numeric ids, no conversation id, no next id', async () => {
    standIn().inject({
      kind: 'schema',
      body: {
        data: [
          {
            id: 7,
            sender: 'b-user',
            receiverType: 'user',
            receiver: 'a-user',
            sentAt: '1700000000',
            data: { text: 'hi' },
          },
          {
            id: '8',
            sender: 'a-user',
            receiverType: 'group',
            receiver: 'lobby',
            category: 'message',
            type: 'file',
            data: { attachments: [{}, {}] },
            sentAt: 1_700_000_001,
            deletedAt: 1_700_000_100,
          },
        ],
        meta: { next: { affix: 'prepend', sentAt: 1_700_000_000 } },
      },
    });
    const page = await clientOf().listMessages({ sender: 'a-user', limit: 2 });
    expect(page.next).toBeUndefined();
    expect(page.messages).toEqual<ChatMessage[]>([
      {
        id: '7',
        conversationId: 'a-user_user_b-user',
        sender: 'b-user',
        receiverType: 'user',
        receiver: 'a-user',
        category: 'message',
        type: 'text',
        sentAt: 1_700_000_000,
        editedAt: undefined,
        deletedAt: undefined,
        text: 'hi',
        attachments: 0,
      },
      expect.objectContaining({
        id: '8',
        conversationId: 'group_lobby',
        attachments: 2,
        deletedAt: 1_700_000_100,
      }),
    ]);
  });

  it('refuses a page size the service would refuse, sending nothing', async () => {
    for (const limit of [0, 1001, 2.5]) {
      const error = await failure(clientOf().listMessages({ sender: uid, limit }));
      expect(error.kind).toBe('bad_request');
    }
    expect(standIn().requests).toEqual([]);
  });
});

describe('getMessage and deleteMessage', () => {
  it('reads one message, and an unknown id is not_found', async () => {
    const message = await clientOf().getMessage(messages.edited);
    expect(message).toMatchObject({
      id: messages.edited,
      sender: uid,
      text: 'Thanks, that worked! (#4)',
    });
    const error = await failure(clientOf().getMessage('424242424'));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_MSG_NOT_FOUND' });
  });

  it('deletes softly with no body, and for good only when asked', async () => {
    await clientOf().deleteMessage(messages.newest, { permanent: false });
    const soft = only(standIn().requests);
    expect(soft).toMatchObject({ method: 'DELETE', path: `/v3/messages/${messages.newest}` });
    expect(soft.body).toBeUndefined();
    expect(standIn().state.accounts.messages.get(messages.newest)?.deletedAt).toBeDefined();
    standIn().requests.length = 0;
    await clientOf().deleteMessage(messages.edited, { permanent: true });
    expect(only(standIn().requests).body).toEqual({ permanent: true });
    expect(standIn().state.accounts.messages.has(messages.edited)).toBe(false);
  });

  it('accepts any 2xx answer to a deletion', async () => {
    standIn().inject({ kind: 'malformed', status: 200, rawBody: '' });
    await clientOf().deleteMessage(messages.newest, { permanent: false });
    standIn().inject({ kind: 'schema', body: { data: { action: 'edited' } } });
    await clientOf().deleteMessage(messages.newest, { permanent: false });
  });
});

describe('listUserGroups', () => {
  it('lists the groups on the user’s behalf and keeps those they joined, with their scope', async () => {
    const theirs = await clientOf().listUserGroups(uid);
    expect(theirs).toEqual([
      { guid: groups.lobby, name: 'Support lobby', type: 'public', scope: 'participant' },
      { guid: groups.beta, name: 'Beta testers', type: 'private', scope: 'participant' },
      {
        guid: groups.adminOf,
        name: "Liam's *book* club & <friends>",
        type: 'password',
        scope: 'admin',
      },
    ]);
    const request = only(standIn().requests);
    expect(request).toMatchObject({ path: '/v3/groups', query: { page: '1', perPage: '1000' } });
    expect(request.headers.onbehalfof).toBe(uid);
  });

  it('is not_found for a deactivated user, and refuses an empty uid', async () => {
    const error = await failure(clientOf().listUserGroups(deactivated));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_UID_NOT_FOUND' });
    standIn().requests.length = 0;
    expect((await failure(clientOf().listUserGroups(''))).kind).toBe('bad_request');
    expect(standIn().requests).toEqual([]);
  });
});

describe('banGroupMember and unbanGroupMember', () => {
  it('POSTs the ban and DELETEs it', async () => {
    await clientOf().banGroupMember(groups.beta, uid);
    await clientOf().unbanGroupMember(groups.beta, uid);
    expect(standIn().requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v3/groups/${groups.beta}/bannedusers/${uid}`,
      `DELETE /v3/groups/${groups.beta}/bannedusers/${uid}`,
    ]);
    expect(standIn().state.accounts.bans.get(groups.beta)?.has(uid)).toBe(false);
  });

  it('never repeats a ban (a POST), but repeats an unban', async () => {
    standIn().inject({
      kind: 'status',
      status: 503,
      method: 'POST',
      pathIncludes: '/bannedusers/',
    });
    const error = await failure(clientOf().banGroupMember(groups.lobby, uid));
    expect(error).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(standIn().requests).toHaveLength(1);
    expect(standIn().state.accounts.bans.get(groups.lobby)?.has(uid)).toBe(false);
    await clientOf().banGroupMember(groups.lobby, uid);
    standIn().requests.length = 0;
    standIn().inject({
      kind: 'status',
      status: 503,
      method: 'DELETE',
      pathIncludes: '/bannedusers/',
    });
    await clientOf().unbanGroupMember(groups.lobby, uid);
    expect(standIn().requests).toHaveLength(2);
  });

  it('says the service’s words when it refuses', async () => {
    const unbanned = await failure(clientOf().unbanGroupMember(groups.lobby, uid));
    expect(unbanned).toMatchObject({ kind: 'bad_request', serviceCode: 'ERR_NOT_A_BANNED_USER' });
    const gone = await failure(clientOf().banGroupMember(groups.lobby, deactivated));
    expect(gone).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_UID_NOT_FOUND' });
    const nowhere = await failure(clientOf().banGroupMember('no-such-group', uid));
    expect(nowhere).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_GUID_NOT_FOUND' });
  });
});
