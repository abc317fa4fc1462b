import { afterEach, describe, expect, it } from 'vitest';
import { CountedWebClient } from '../../src/observe/counted-web-client.ts';
import {
  type ScriptedAnswer,
  startWebApiServer,
  type WebApiServer,
} from '../fakes/web-api-server.ts';

// The Web API client the app uses: failures counted by method and why, after the client's own
// handling, and every answer handed on as the client reads it.

let server: WebApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODAL = {
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: 'x' },
  blocks: [],
};

function counted(slackApiUrl: string) {
  const failures: string[] = [];
  const client = new CountedWebClient(
    'xoxb-test',
    { slackApiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true },
    { slackApiFailure: (method, why) => void failures.push(`${method} ${why}`) },
  );
  return { client, failures };
}

describe('CountedWebClient', () => {
  it('counts an ok:false answer by its code, and nothing for a success', async () => {
    server = await startWebApiServer({
      'views.open': [{ body: { ok: false, error: 'expired_trigger_id' } }],
      'views.update': [{ body: { ok: true, view: { id: 'V1' } } }],
    });
    const { client, failures } = counted(server.url);
    await expect(client.views.open({ trigger_id: 'T', view: MODAL })).rejects.toMatchObject({
      data: { error: 'expired_trigger_id' },
    });
    const updated = await client.views.update({ view_id: 'V1', view: MODAL });
    expect(updated.view?.id).toBe('V1');
    expect(failures).toEqual(['views.open expired_trigger_id']);
  });

  it('counts HTTP errors, a 429, codes that are not plain as other, and network failures', async () => {
    const answers: Record<string, ScriptedAnswer[]> = {
      'chat.postMessage': [{ status: 503, body: {} }],
      'users.info': [
        {
          status: 429,
          body: { ok: false, error: 'ratelimited' },
          headers: { 'retry-after': '30' },
        },
      ],
      'conversations.open': [{ body: { ok: false, error: '<script>' } }],
    };
    server = await startWebApiServer(answers);
    const { client, failures } = counted(server.url);
    await expect(client.chat.postMessage({ channel: 'C1', text: 'hi' })).rejects.toThrow();
    await expect(client.users.info({ user: 'U1' })).rejects.toThrow();
    await expect(client.conversations.open({ users: 'U1' })).rejects.toThrow();
    const gone = counted('http://127.0.0.1:1/api/');
    await expect(gone.client.auth.test()).rejects.toThrow();
    expect([...failures, ...gone.failures]).toEqual([
      'chat.postMessage http_503',
      'users.info http_429',
      'conversations.open other',
      'auth.test network',
    ]);
  });
});
