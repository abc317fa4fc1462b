import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import ky from 'ky';

// A reference, not a budget's baseline: bare Bolt (the same receiver and settings as
// bare-bolt.mjs) whose one command acknowledges, asks the sandbox for one call through ky, and
// posts a fixed line with Bolt's respond(). It does the upstream work `call` does (one ky GET, one
// reply) and nothing else the app does (no zod, no rendering, no metrics, no store), so
// `npm run bench:cpu` can say how much of the app's CPU per command is that request itself.

const port = Number(process.env.PORT);
const callUrl = process.env.COMETCHAT_CALL_API_URL ?? '';
const sessionId = process.env.BENCH_SESSION_ID ?? '';
const cometchat = ky.create({
  baseUrl: `${callUrl}/v3/`,
  headers: { apikey: process.env.COMETCHAT_API_KEY ?? '', accept: 'application/json' },
  timeout: 5_000,
  retry: { limit: 2 },
});
const receiver = new HTTPReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  endpoints: '/slack/events',
  customRoutes: [
    {
      path: '/healthz',
      method: ['GET'],
      /** @param {unknown} _request @param {import('node:http').ServerResponse} response */
      handler: (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      },
    },
  ],
  port,
});
const app = new App({
  token: 'xoxb-bench-baseline',
  botId: 'B0BASELINE',
  botUserId: 'U0BASELINE',
  tokenVerificationEnabled: false,
  receiver,
  logLevel: LogLevel.WARN,
});
app.command('/cometchat', async ({ ack, respond }) => {
  await ack();
  const call = await cometchat.get(`calls/${encodeURIComponent(sessionId)}`).json();
  const found = typeof call === 'object' && call !== null && 'data' in call;
  await respond({
    response_type: 'ephemeral',
    text: found ? 'Bolt and ky found it.' : 'Not found.',
  });
});
await app.start(port);
