import { type RespondArguments, RespondError, type RespondFn } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { runInRequest } from '../../src/request-context.ts';
import {
  type Deliverer,
  type Destination,
  fetchWithin,
  respondOrFallBack,
  type SlackMessage,
} from '../../src/slack/deliver.ts';
import { LogCapture } from '../log-capture.ts';

// A reply through Bolt's respond, and the routes it falls back to where respond cannot reach the
// person: which route each message takes, and what is logged on the way.

function setup(respond?: (message: string | RespondArguments) => Promise<unknown>) {
  const logs = new LogCapture();
  const log = createLogger({ level: 'info', destination: logs });
  const delivered: { to: Destination; message: SlackMessage }[] = [];
  const deliver: Deliverer = async (to, message) => {
    delivered.push({ to, message });
    return 'ephemeral';
  };
  const responded: (string | RespondArguments)[] = [];
  const boltRespond: RespondFn | undefined =
    respond &&
    (async (message) => {
      responded.push(message);
      await respond(message);
      return new Response('ok');
    });
  const reply = respondOrFallBack(boltRespond, { userId: 'U1', channelId: 'C1' }, deliver);
  const send = (message: SlackMessage) =>
    runInRequest({ ref: 'ref0000009', log, receivedAt: 0 }, () => reply(message));
  return { send, responded, delivered, logs };
}

describe('respondOrFallBack', () => {
  it('replies through respond, ephemeral unless the message says otherwise, and nothing else', async () => {
    const { send, responded, delivered } = setup(async () => undefined);
    await send({ text: 'hello' });
    await send({ text: 'for all', response_type: 'in_channel', replace_original: true });
    expect(responded).toEqual([
      { response_type: 'ephemeral', text: 'hello' },
      { response_type: 'in_channel', text: 'for all', replace_original: true },
    ]);
    expect(delivered).toEqual([]);
  });

  it('falls back to the channel and the person when Slack refuses the response_url, logged', async () => {
    const { send, delivered, logs } = setup(async () => {
      throw new RespondError('Failed to respond to the response_url: 404 Not Found', 404);
    });
    await send({ text: 'hello' });
    expect(delivered).toEqual([
      {
        to: { userId: 'U1', channelId: 'C1' },
        message: { response_type: 'ephemeral', text: 'hello' },
      },
    ]);
    const warning = logs.records().find((r) => r.message.startsWith('response_url refused'));
    expect(warning).toMatchObject({ log: { level: 'warn' }, cometchat_ops: { status: 404 } });
  });

  it('falls back when the response_url cannot be reached, naming why', async () => {
    const { send, delivered, logs } = setup(async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
      });
    });
    await send({ text: 'hello' });
    expect(delivered).toHaveLength(1);
    const warning = logs.records().find((r) => r.message === 'response_url failed; falling back');
    expect(warning).toMatchObject({ cometchat_ops: { cause: 'ECONNREFUSED' } });
  });

  it('takes the fallback at once where Bolt gives no respond (no response_url)', async () => {
    const { send, responded, delivered, logs } = setup(undefined);
    await send({ text: 'hello' });
    expect(responded).toEqual([]);
    expect(delivered.map((d) => d.to)).toEqual([{ userId: 'U1', channelId: 'C1' }]);
    expect(logs.records()).toEqual([]);
  });
});

describe('fetchWithin: the fetch Bolt posts to a response_url with', () => {
  it('gives a request without a signal one that times out, and keeps a signal given', async () => {
    const seen: (RequestInit | undefined)[] = [];
    const base = async (_input: string | URL | Request, init?: RequestInit) => {
      seen.push(init);
      return new Response('ok');
    };
    const limited = fetchWithin(1, base);
    await limited('https://hooks.slack.test/actions/T1/1/x', { method: 'POST', body: '{}' });
    const own = new AbortController().signal;
    await limited('https://slack.test/api/chat.postMessage', { signal: own });

    const [bolt, webApi] = seen;
    expect(bolt?.method).toBe('POST');
    expect(bolt?.body).toBe('{}');
    const signal = bolt?.signal;
    if (!signal) throw new Error('no signal given');
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    expect(signal.reason).toMatchObject({ name: 'TimeoutError' });
    expect(webApi?.signal).toBe(own);
  });
});
