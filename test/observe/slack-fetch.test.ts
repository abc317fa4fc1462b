import { describe, expect, it } from 'vitest';
import { observedFetch } from '../../src/observe/slack-fetch.ts';

// The Web API client's fetch: failures counted by method and code, every answer handed on
// whole (the client reads its body and headers after this has read them once).

function recorder() {
  const failures: string[] = [];
  return {
    failures,
    metrics: {
      slackApiFailure: (method: string, code: string) => void failures.push(`${method} ${code}`),
    },
  };
}

const answering =
  (body: string, status = 200): typeof fetch =>
  async () =>
    new Response(body, {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-slack-req-id': 'r1' },
    });

const URL_OF = (method: string) => `https://slack.test/api/${method}`;

describe('observedFetch', () => {
  it('counts a short ok:false answer by its code, and hands the answer on whole', async () => {
    const { failures, metrics } = recorder();
    const body = '{"ok":false,"error":"expired_trigger_id"}';
    const response = await observedFetch(metrics, answering(body))(URL_OF('views.open'));
    expect(failures).toEqual(['views.open expired_trigger_id']);
    expect(await response.text()).toBe(body);
    expect(response.headers.get('x-slack-req-id')).toBe('r1');
  });

  it('counts a long ok:false answer too, and not a long success', async () => {
    const { failures, metrics } = recorder();
    const padding = 'x'.repeat(4_000);
    const failed = `{"ok":false,"error":"invalid_arguments","response_metadata":{"messages":["${padding}"]}}`;
    await observedFetch(metrics, answering(failed))(URL_OF('views.update'));
    const success = `{"ok":true,"view":{"id":"V1","private_metadata":"${padding}"}}`;
    const response = await observedFetch(metrics, answering(success))(URL_OF('views.update'));
    expect(failures).toEqual(['views.update invalid_arguments']);
    expect(await response.json()).toMatchObject({ ok: true, view: { id: 'V1' } });
  });

  it('counts HTTP errors, network failures, and codes that are not plain as other', async () => {
    const { failures, metrics } = recorder();
    await observedFetch(metrics, answering('{}', 503))(URL_OF('chat.postMessage'));
    await observedFetch(
      metrics,
      answering('{"ok":false,"error":"<script>"}'),
    )(URL_OF('chat.postMessage'));
    const down: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    await expect(observedFetch(metrics, down)(URL_OF('users.info'))).rejects.toThrow(
      'fetch failed',
    );
    expect(failures).toEqual([
      'chat.postMessage http_503',
      'chat.postMessage other',
      'users.info network',
    ]);
  });
});
