import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

// What the baselines share: a bare Bolt app over HTTP with the same receiver settings as the
// real one, a /healthz route for the bench's start check, and one `/cometchat` listener. Its bot
// identity is given, so Bolt never calls auth.test: the bare app makes no Web API call of its
// own. Plain JavaScript, run without a loader like every subject (processes.ts). With
// SLACK_API_URL and SLACK_BOT_TOKEN set (same-in-bolt.mjs), its client talks to the stand-in.

/** Starts the app on PORT with `listener` as its one command. */
export async function startBareBolt(listener) {
  const port = Number(process.env.PORT);
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
    token: process.env.SLACK_BOT_TOKEN || 'xoxb-bench-baseline',
    clientOptions: process.env.SLACK_API_URL ? { slackApiUrl: process.env.SLACK_API_URL } : {},
    botId: 'B0BASELINE',
    botUserId: 'U0BASELINE',
    tokenVerificationEnabled: false,
    receiver,
    logLevel: LogLevel.WARN,
  });
  app.command('/cometchat', listener);
  await app.start(port);
  // Exits rather than dying by the signal, so that a --cpu-prof profile is written.
  process.once('SIGTERM', () => process.exit(0));
}
