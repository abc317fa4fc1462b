import { describe, expect, it } from 'vitest';
import type { Answer, Exchange } from '../../src/http.ts';
import { observedFetch } from '../../src/observe/slack-fetch.ts';

// The Web API client's fetch: the client's request sent as it is, failures counted by method and
// code, every answer handed on whole (the client reads its body and headers after this has read
// them once).

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
  (text: string, status = 200) =>
  async (_request: Exchange): Promise<Answer> => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-slack-req-id': 'r1' },
    text,
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
    const down = async (): Promise<Answer> => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    };
    await expect(observedFetch(metrics, down)(URL_OF('users.info'))).rejects.toThrow(
      'ECONNREFUSED',
    );
    expect(failures).toEqual([
      'chat.postMessage http_503',
      'chat.postMessage other',
      'users.info network',
    ]);
  });
});

describe('observedFetch sends', () => {
  it("the client's request as it is: method, address, headers, form and signal", async () => {
    const { metrics } = recorder();
    const sent: Exchange[] = [];
    const send = async (request: Exchange): Promise<Answer> => {
      sent.push(request);
      return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"ok":true}' };
    };
    const signal = AbortSignal.timeout(10_000);
    const response = await observedFetch(metrics, send)(URL_OF('views.open'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Bearer x' },
      body: 'trigger_id=T1&view=%7B%7D',
      signal,
    });
    expect(sent).toEqual([
      {
        method: 'POST',
        url: URL_OF('views.open'),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Bearer x' },
        body: 'trigger_id=T1&view=%7B%7D',
        timeoutMs: 60_000,
        readBody: true,
        signal,
      },
    ]);
    expect(response.status).toBe(200);
    expect(response.statusText).toBe('OK');
    expect(await response.json()).toEqual({ ok: true });
  });

  it('a 429 with its Retry-After, for the client to wait out', async () => {
    const { failures, metrics } = recorder();
    const send = async (): Promise<Answer> => ({
      status: 429,
      headers: { 'retry-after': '3', 'set-cookie': ['a=1', 'b=2'] },
      text: '',
    });
    const response = await observedFetch(metrics, send)(URL_OF('chat.postMessage'), {
      method: 'POST',
      body: '',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(failures).toEqual(['chat.postMessage http_429']);
  });
});
