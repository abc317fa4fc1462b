import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { View } from '@slack/types';
import { ErrorCode, WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { failureSentence } from '../../src/replies/failure.ts';
import { createViews, FormNotOpened } from '../../src/slack/views.ts';
import {
  type ScriptedAnswer,
  startWebApiServer,
  type WebApiServer,
} from '../fakes/web-api-server.ts';

/** What the failure sentences are given: the budget they mention, and no secrets. */
const SENTENCE_DEPS = { budgetSeconds: 8, secrets: [] };

const view: View = {
  type: 'modal',
  title: { type: 'plain_text', text: 'Edit permissions' },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Role:* `default`' } }],
};

const TOKEN = 'xoxb-secret';
/** Short waits, so a test of the retries takes milliseconds. */
const RETRY = { retries: 2, minTimeout: 5, maxTimeout: 10 };

let server: WebApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The views over a Web API endpoint that answers each method from `script` in turn. */
async function viewsAnswering(script: Record<string, ScriptedAnswer[]>, timeout = 2_000) {
  server = await startWebApiServer(script, () => ({ body: { ok: true, view: { id: 'V1' } } }));
  const options = { slackApiUrl: server.url, rejectRateLimitedCalls: true, timeout };
  const views = createViews({
    triggered: new WebClient(TOKEN, { ...options, retryConfig: { retries: 0 } }),
    client: new WebClient(TOKEN, { ...options, retryConfig: RETRY }),
  });
  return { views, requests: server.requests };
}

describe('the views calls', () => {
  it('send the arguments with the bot token, and resolve with the view id', async () => {
    const { views, requests } = await viewsAnswering({
      'views.open': [{ body: { ok: true, view: { id: 'V1', blocks: [] } } }],
      'views.push': [{ body: { ok: true, view: { id: 'V2' } } }],
    });
    expect(await views.open({ trigger_id: 'T1', view })).toBe('V1');
    expect(await views.push({ trigger_id: 'T2', view })).toBe('V2');
    await views.update({ view_id: 'V1', hash: 'h1', view });
    await views.publish({ user_id: 'U1', view });
    expect(requests.map((r) => r.method)).toEqual([
      'views.open',
      'views.push',
      'views.update',
      'views.publish',
    ]);
    expect(requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    const form = (i: number) => new URLSearchParams(requests[i]?.body);
    expect(form(0).get('trigger_id')).toBe('T1');
    expect(JSON.parse(form(0).get('view') ?? '')).toEqual(view);
    expect(form(2).get('hash')).toBe('h1');
    expect(form(3).get('user_id')).toBe('U1');
  });

  it("fail with the Web API client's platform error on ok: false, so the same sentence is shown", async () => {
    const messages = ['[ERROR] must be less than 3001 characters'];
    const { views, requests } = await viewsAnswering({
      'views.open': [{ body: { ok: false, error: 'expired_trigger_id' } }],
      'views.update': [
        { body: { ok: false, error: 'invalid_arguments', response_metadata: { messages } } },
      ],
    });
    const expired = await views.open({ trigger_id: 'T1', view }).catch((e: unknown) => e);
    expect(expired).toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'expired_trigger_id' },
    });
    expect(failureSentence(expired, SENTENCE_DEPS)).toContain('three seconds');
    const refused = await views.update({ view_id: 'V1', view }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'invalid_arguments', response_metadata: { messages } },
    });
    // A refusal is an answer: not tried again.
    expect(requests).toHaveLength(2);
  });

  it('try an update again after a 5xx, then give up; a call that spends a trigger gets one attempt', async () => {
    const { views, requests } = await viewsAnswering({
      'views.update': [{ status: 503, body: {} }, { body: { ok: true, view: { id: 'V7' } } }],
      'views.publish': [
        { status: 502, body: {} },
        { status: 502, body: {} },
        { status: 502, body: 'bad gateway' },
      ],
      'views.open': [{ status: 503, body: {} }],
    });
    await views.update({ view_id: 'V7', view });
    expect(requests.filter((r) => r.method === 'views.update')).toHaveLength(2);

    const http = await views.publish({ user_id: 'U1', view }).catch((e: unknown) => e);
    expect(http).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 502 });
    expect(requests.filter((r) => r.method === 'views.publish')).toHaveLength(RETRY.retries + 1);

    const opened = await views.open({ trigger_id: 'T1', view }).catch((e: unknown) => e);
    expect(opened).toBeInstanceOf(FormNotOpened);
    expect((opened as FormNotOpened).cause).toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 503,
    });
    expect(requests.filter((r) => r.method === 'views.open')).toHaveLength(1);
  });

  it('end a call that spends a trigger within its timeout when Slack does not answer, and say so', async () => {
    const { views, requests } = await viewsAnswering({ 'views.open': [{ hang: true }] }, 100);
    const error = await views.open({ trigger_id: 'T1', view }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormNotOpened);
    expect(failureSentence(error, SENTENCE_DEPS)).toBe(
      'Slack did not let the app open the window in time (it allows three seconds). Click or run the command again.',
    );
    expect(requests).toHaveLength(1);
  });

  it('fail at once on a 429 with its Retry-After, in a sentence that says Slack is rate limiting', async () => {
    const { views, requests } = await viewsAnswering({
      'views.update': [{ status: 429, body: { ok: false }, headers: { 'retry-after': '30' } }],
    });
    const error = await views.update({ view_id: 'V1', view }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 30 });
    expect(failureSentence(error, SENTENCE_DEPS)).toBe(
      'Slack is rate limiting this app; try again in a minute.',
    );
    expect(requests).toHaveLength(1);
  });

  it('refuse an opening that names no view', async () => {
    const { views } = await viewsAnswering({ 'views.open': [{ body: { ok: true } }] });
    await expect(views.open({ trigger_id: 'T1', view })).rejects.toMatchObject({
      code: ErrorCode.RequestError,
    });
  });

  it('never put the token in an error', async () => {
    const { views } = await viewsAnswering({
      'views.update': [{ body: { ok: false, error: 'not_authed' } }],
    });
    const gone = createViews({
      triggered: new WebClient(TOKEN, {
        slackApiUrl: 'http://127.0.0.1:1/api/',
        retryConfig: { retries: 0 },
      }),
      client: new WebClient(TOKEN, {
        slackApiUrl: 'http://127.0.0.1:1/api/',
        retryConfig: { retries: 0 },
      }),
    });
    const errors = [
      await views.update({ view_id: 'V1', view }).catch((e: unknown) => e),
      await gone.update({ view_id: 'V1', view }).catch((e: unknown) => e),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('xoxb');
    }
  });
});

describe('views in the app', () => {
  it('go to Slack through src/slack/views.ts only, where the trigger rules live', () => {
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
