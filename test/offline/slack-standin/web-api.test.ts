import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebClient,
} from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

let standIn: SlackStandIn;
let bot: WebClient;

function client(token: string, options: { rejectRateLimitedCalls?: boolean } = {}): WebClient {
  return new WebClient(token, {
    slackApiUrl: standIn.apiUrl,
    // No retries: a failure the test injects must surface at once.
    retryConfig: { retries: 0 },
    logger: recordingLogger().logger,
    ...options,
  });
}

async function platformError(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebAPIPlatformError);
  return (error as WebAPIPlatformError).data.error;
}

const modal = (title = 'Edit role') => ({
  type: 'modal' as const,
  callback_id: 'edit_role',
  title: { type: 'plain_text' as const, text: title },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Loading…' } }],
});

beforeAll(async () => {
  standIn = await startSlackStandIn();
  bot = client(standIn.botToken);
});
afterEach(() => standIn.reset());
afterAll(() => standIn.close());

describe('Web API', () => {
  it('answers auth.test with the bot identity and records the call with its token', async () => {
    const result = await bot.auth.test();
    expect(result).toMatchObject({ ok: true, user_id: 'U0STANDINBOT', team_id: 'T0STANDIN' });
    expect(standIn.calls).toMatchObject([{ method: 'auth.test', token: standIn.botToken }]);
  });

  it('records chat.postMessage with blocks decoded and returns ts and channel', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Roles*' } }];
    const result = await bot.chat.postMessage({ channel: 'C1', text: 'Roles', blocks });
    expect(result).toMatchObject({ ok: true, channel: 'C1' });
    expect(result.ts).toMatch(/^\d+\.\d{6}$/);
    const call = await standIn.nextCall('chat.postMessage');
    expect(call.args).toMatchObject({ channel: 'C1', text: 'Roles', blocks });
  });

  it('posts to a user id in the DM channel conversations.open names', async () => {
    const opened = await bot.conversations.open({ users: 'U42' });
    const posted = await bot.chat.postMessage({ channel: 'U42', text: 'hello' });
    expect(posted.channel).toBe(opened.channel?.id);
    expect(posted.channel).toMatch(/^D/);
  });

  it('updates only messages the bot posted', async () => {
    const posted = await bot.chat.postMessage({ channel: 'C1', text: 'before' });
    const updated = await bot.chat.update({ channel: 'C1', ts: posted.ts ?? '', text: 'after' });
    expect(updated).toMatchObject({ ok: true, text: 'after' });
    expect(await platformError(bot.chat.update({ channel: 'C1', ts: '1.000001', text: 'x' }))).toBe(
      'message_not_found',
    );
  });

  it('keeps chat.unfurl cards by message or unfurl id, and refuses malformed ones', async () => {
    const card = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Role*' } }] };
    await bot.chat.unfurl({ channel: 'C1', ts: '1.000001', unfurls: { 'https://a/1': card } });
    await bot.chat.unfurl({
      unfurl_id: 'U1',
      source: 'composer',
      unfurls: { 'https://a/2': card },
    });
    expect(standIn.unfurls.get('C1/1.000001')).toEqual({ 'https://a/1': card });
    expect(standIn.unfurls.get('U1')).toEqual({ 'https://a/2': card });
    expect(await platformError(bot.chat.unfurl({ channel: 'C1', ts: '1.1', unfurls: {} }))).toBe(
      'missing_unfurls',
    );
    const tooMany = { blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) };
    expect(
      await platformError(
        bot.chat.unfurl({ channel: 'C1', ts: '1.1', unfurls: { 'https://a/3': tooMany } }),
      ),
    ).toBe('invalid_blocks');
    expect(
      await platformError(
        bot.chat.unfurl({
          unfurl_id: 'U1',
          source: 'elsewhere' as 'composer',
          unfurls: { 'https://a/4': card },
        }),
      ),
    ).toBe('invalid_arguments');
  });

  it('refuses what Slack refuses: too many blocks, a too long title', async () => {
    const blocks = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(await platformError(bot.chat.postMessage({ channel: 'C1', text: 'x', blocks }))).toBe(
      'invalid_blocks',
    );
    const view = modal('A title far longer than 24 characters');
    const error = await bot.views.open({ trigger_id: standIn.triggerId(), view }).catch((e) => e);
    expect(error.data.error).toBe('invalid_arguments');
    expect(error.data.response_metadata.messages).toEqual([
      '[ERROR] must be less than 25 characters [json-pointer:/view/title/text]',
    ]);
  });

  it('opens a view once per trigger_id and updates it by id and hash', async () => {
    const triggerId = standIn.triggerId();
    const opened = await bot.views.open({ trigger_id: triggerId, view: modal() });
    const view = opened.view ?? {};
    expect(view.id).toMatch(/^V/);
    expect(view.hash).toEqual(expect.any(String));
    expect(await platformError(bot.views.open({ trigger_id: triggerId, view: modal() }))).toBe(
      'exchanged_trigger_id',
    );

    const updated = await bot.views.update({
      view_id: view.id ?? '',
      hash: view.hash ?? '',
      view: modal('Permissions'),
    });
    expect(updated.view).toMatchObject({ id: view.id, title: { text: 'Permissions' } });
    expect(updated.view?.hash).not.toBe(view.hash);
    expect(standIn.views.get(view.id ?? '')).toMatchObject({ title: { text: 'Permissions' } });

    const stale = bot.views.update({
      view_id: view.id ?? '',
      hash: view.hash ?? '',
      view: modal(),
    });
    expect(await platformError(stale)).toBe('hash_conflict');
    expect(await platformError(bot.views.update({ view_id: 'V404', view: modal() }))).toBe(
      'not_found',
    );
  });

  it('refuses an unknown trigger_id', async () => {
    expect(await platformError(bot.views.open({ trigger_id: '1.2.3', view: modal() }))).toBe(
      'invalid_trigger_id',
    );
  });

  it('answers users.info and usergroups.users.list from what was configured', async () => {
    standIn.setUsers([{ id: 'U1', name: 'ada', is_admin: true }]);
    standIn.setUserGroups({ S1: ['U1', 'U2'] });
    const info = await bot.users.info({ user: 'U1' });
    expect(info.user).toMatchObject({ id: 'U1', name: 'ada', is_admin: true, is_owner: false });
    expect(await platformError(bot.users.info({ user: 'U2' }))).toBe('user_not_found');
    const members = await bot.usergroups.users.list({ usergroup: 'S1' });
    expect(members.users).toEqual(['U1', 'U2']);
    expect(await platformError(bot.usergroups.users.list({ usergroup: 'S2' }))).toBe(
      'no_such_subteam',
    );
  });

  it('answers users.conversations with the channels a user is in, by type, page by page', async () => {
    standIn.setChannelMembers({ C1: ['U1', 'U2'], C2: ['U2'], G3: ['U1'], C4: ['U1'] });
    const publicOnes = await bot.users.conversations({ user: 'U1' });
    expect(publicOnes.channels?.map((c) => c.id)).toEqual(['C1', 'C4']);
    const first = await bot.users.conversations({
      user: 'U1',
      types: 'public_channel,private_channel',
      limit: 2,
    });
    expect(first.channels?.map((c) => [c.id, c.is_private])).toEqual([
      ['C1', false],
      ['G3', true],
    ]);
    const cursor = first.response_metadata?.next_cursor ?? '';
    expect(cursor).not.toBe('');
    const second = await bot.users.conversations({
      user: 'U1',
      types: 'public_channel,private_channel',
      limit: 2,
      cursor,
    });
    expect(second.channels?.map((c) => c.id)).toEqual(['C4']);
    expect(second.response_metadata?.next_cursor).toBe('');
    expect(await platformError(bot.users.conversations({ user: 'U1', cursor: 'nonsense' }))).toBe(
      'invalid_cursor',
    );
    expect(await platformError(bot.users.conversations({ types: 'public_channel,dm' }))).toBe(
      'invalid_types',
    );
    standIn.setUsers([{ id: 'U1' }]);
    expect(await platformError(bot.users.conversations({ user: 'U9' }))).toBe('user_not_found');
    standIn.reset();
    expect((await bot.users.conversations({ user: 'U1' })).channels).toEqual([]);
  });

  it('checks the token kind and value', async () => {
    expect(await platformError(client('xoxb-wrong').auth.test())).toBe('invalid_auth');
    expect(await platformError(client(standIn.appToken).auth.test())).toBe(
      'not_allowed_token_type',
    );
    expect(await platformError(bot.apps.connections.open({}))).toBe('not_allowed_token_type');
    const opened = await client(standIn.appToken).apps.connections.open({});
    expect(opened.url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${standIn.port}/socket-mode\\?`));
  });

  it('answers unknown_method for a method it does not know', async () => {
    expect(await platformError(bot.apiCall('reactions.add', { name: 'eyes' }))).toBe(
      'unknown_method',
    );
  });

  it('accepts a JSON body with the token in the Authorization header', async () => {
    const response = await fetch(`${standIn.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${standIn.botToken}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify({ channel: 'C1', text: 'json', blocks: [{ type: 'divider' }] }),
    });
    expect(await response.json()).toMatchObject({ ok: true, channel: 'C1' });
    expect(standIn.calls.at(-1)?.args).toEqual({
      channel: 'C1',
      text: 'json',
      blocks: [{ type: 'divider' }],
    });
  });
});

describe('failure injection', () => {
  it('fails a method with a Slack error the given number of times', async () => {
    standIn.fail('views.open', { error: 'expired_trigger_id' });
    standIn.fail('chat.postMessage', { error: 'not_in_channel', times: 2 });
    expect(
      await platformError(bot.views.open({ trigger_id: standIn.triggerId(), view: modal() })),
    ).toBe('expired_trigger_id');
    await expect(
      bot.views.open({ trigger_id: standIn.triggerId(), view: modal() }),
    ).resolves.toMatchObject({ ok: true });
    for (const _ of [1, 2]) {
      expect(await platformError(bot.chat.postMessage({ channel: 'C1', text: 'x' }))).toBe(
        'not_in_channel',
      );
    }
    await expect(bot.chat.postMessage({ channel: 'C1', text: 'x' })).resolves.toMatchObject({
      ok: true,
    });
  });

  it('answers 429 with Retry-After', async () => {
    standIn.fail('chat.postMessage', { retryAfter: 7 });
    const limited = client(standIn.botToken, { rejectRateLimitedCalls: true });
    const error = await limited.chat.postMessage({ channel: 'C1', text: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(WebAPIRateLimitedError);
    expect(error.retryAfter).toBe(7);
  });

  it('answers an HTTP status', async () => {
    standIn.fail('users.info', { status: 503 });
    standIn.setUsers([{ id: 'U1' }]);
    const error = await bot.users.info({ user: 'U1' }).catch((e) => e);
    expect(error).toBeInstanceOf(WebAPIHTTPError);
    expect(error.statusCode).toBe(503);
  });
});

describe('waiting', () => {
  it('rejects with a message that names what it waited for', async () => {
    await bot.auth.test();
    await expect(standIn.nextCall('views.open', 0, 50)).rejects.toThrow(
      'a views.open call at index 0 or later (calls so far: [auth.test]) did not arrive within 50 ms',
    );
  });
});
