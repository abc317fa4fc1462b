import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { View } from '@slack/types';
import { ErrorCode } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import type { Answer, Exchange } from '../../src/http.ts';
import { failureSentence } from '../../src/slack/failure.ts';
import { createViews, retryWaits } from '../../src/slack/views.ts';

const view: View = {
  type: 'modal',
  title: { type: 'plain_text', text: 'Edit permissions' },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Role:* `default`' } }],
};

type Reply = Answer | Error;

const RETRY = { retries: 2, minTimeout: 200, maxTimeout: 1_000 };

const json = (body: unknown, status = 200, headers: Answer['headers'] = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  text: JSON.stringify(body),
});

/** Views over a transport that records each exchange and answers from `replies` in turn. */
function viewsAnswering(...replies: Reply[]) {
  const sent: Exchange[] = [];
  const waits: number[] = [];
  const views = createViews({
    apiUrl: 'http://slack.test/api',
    botToken: 'xoxb-secret',
    timeoutMs: 10_000,
    retry: RETRY,
    send: async (request) => {
      sent.push(request);
      const reply = replies.shift() ?? json({ ok: true, view: { id: 'V1' } });
      if (reply instanceof Error) throw reply;
      return reply;
    },
    wait: async (ms) => {
      waits.push(ms);
    },
  });
  return { views, sent, waits };
}

describe('the views calls', () => {
  it('post the arguments as JSON with the bot token, and resolve with the view id', async () => {
    const { views, sent } = viewsAnswering(
      json({ ok: true, view: { id: 'V1', blocks: [] } }),
      json({ ok: true, view: { id: 'V2' } }),
    );
    expect(await views.open({ trigger_id: 'T1', view })).toBe('V1');
    expect(await views.push({ trigger_id: 'T2', view })).toBe('V2');
    await views.update({ view_id: 'V1', hash: 'h1', view });
    await views.publish({ user_id: 'U1', view });
    expect(sent.map((s) => s.url)).toEqual([
      'http://slack.test/api/views.open',
      'http://slack.test/api/views.push',
      'http://slack.test/api/views.update',
      'http://slack.test/api/views.publish',
    ]);
    expect(sent[0]?.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      authorization: 'Bearer xoxb-secret',
    });
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual({ trigger_id: 'T1', view });
    expect(JSON.parse(sent[2]?.body ?? '')).toEqual({ view_id: 'V1', hash: 'h1', view });
    expect(JSON.parse(sent[3]?.body ?? '')).toEqual({ user_id: 'U1', view });
    expect(sent.every((s) => s.method === 'POST' && s.readBody && s.timeoutMs === 10_000)).toBe(
      true,
    );
  });

  it("fail with the Web API client's platform error on ok: false, so the same sentence is shown", async () => {
    const { views, sent } = viewsAnswering(
      json({ ok: false, error: 'expired_trigger_id' }),
      json({
        ok: false,
        error: 'invalid_arguments',
        response_metadata: { messages: ['[ERROR] must be less than 3001 characters'] },
      }),
    );
    const expired = await views.open({ trigger_id: 'T1', view }).catch((e: unknown) => e);
    expect(expired).toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'expired_trigger_id' },
    });
    expect(failureSentence(expired, 8)).toContain('three seconds');
    const refused = await views.update({ view_id: 'V1', view }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: ErrorCode.PlatformError,
      data: {
        error: 'invalid_arguments',
        response_metadata: { messages: ['[ERROR] must be less than 3001 characters'] },
      },
    });
    // A refusal is an answer: not tried again.
    expect(sent).toHaveLength(2);
  });

  it('try a call again after no answer or a 5xx, waiting as p-retry would, then give up', async () => {
    const down = new Error('connect ECONNREFUSED');
    const once = viewsAnswering(
      down,
      json({ ok: false }, 503),
      json({ ok: true, view: { id: 'V7' } }),
    );
    expect(await once.views.open({ trigger_id: 'T1', view })).toBe('V7');
    expect(once.waits).toEqual([200, 400]);

    const always = viewsAnswering(down, down, down, down);
    const error = await always.views.update({ view_id: 'V1', view }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RequestError, original: down });
    expect(always.sent).toHaveLength(RETRY.retries + 1);

    const failing = viewsAnswering(json({}, 502), json({}, 502), {
      status: 502,
      headers: {},
      text: 'bad gateway',
    });
    const http = await failing.views.publish({ user_id: 'U1', view }).catch((e: unknown) => e);
    expect(http).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 502 });
  });

  it('fail at once on a 429 with its Retry-After, in a sentence that says Slack is rate limiting', async () => {
    const { views, sent } = viewsAnswering(json({ ok: false }, 429, { 'retry-after': '30' }));
    const error = await views.update({ view_id: 'V1', view }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 30 });
    expect(failureSentence(error, 8)).toBe(
      'Slack is rate limiting this app; try again in a minute.',
    );
    expect(sent).toHaveLength(1);
  });

  it('refuse an answer that is not a Web API answer, or an opening that names no view', async () => {
    const { views } = viewsAnswering(
      { status: 200, headers: {}, text: '<html>' },
      json({ ok: true }),
    );
    await expect(views.update({ view_id: 'V1', view })).rejects.toMatchObject({
      code: ErrorCode.RequestError,
    });
    await expect(views.open({ trigger_id: 'T1', view })).rejects.toMatchObject({
      code: ErrorCode.RequestError,
    });
  });

  it('never put the token in an error', async () => {
    const { views } = viewsAnswering(
      new Error('socket hang up'),
      new Error('socket hang up'),
      new Error('socket hang up'),
      json({ ok: false, error: 'not_authed' }),
    );
    const errors = [
      await views.update({ view_id: 'V1', view }).catch((e: unknown) => e),
      await views.update({ view_id: 'V1', view }).catch((e: unknown) => e),
    ];
    for (const error of errors) {
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('xoxb');
    }
  });
});

describe('retryWaits', () => {
  it('doubles from the first wait and stops at the longest', () => {
    expect(retryWaits({ retries: 4, minTimeout: 200, maxTimeout: 1_000 })).toEqual([
      200, 400, 800, 1_000,
    ]);
    expect(retryWaits({ retries: 0, minTimeout: 200, maxTimeout: 1_000 })).toEqual([]);
  });
});

describe('views in the app', () => {
  it('go to Slack through src/slack/views.ts only (the Web API client walks the view twice)', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(20);
    const direct = files
      .filter((file) => relative('slack', file) !== 'views.ts')
      .filter((file) =>
        /client\.views\.|apiCall\(\s*['"`]views\./.test(readFileSync(join(src, file), 'utf8')),
      );
    expect(direct).toEqual([]);
  });
});
