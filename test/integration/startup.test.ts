import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../offline/cometchat-standin/server.ts';
import { type SlackStandIn, startSlackStandIn } from '../../offline/slack-standin/server.ts';
import { OFFLINE_SECRETS, offlineEnv } from '../../offline/stack/offline-stack.ts';
import { startSlackApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { LogCapture } from '../log-capture.ts';

describe('starting the app', () => {
  let slack: SlackStandIn | undefined;
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await Promise.all([slack?.close(), sandbox?.close()]);
  });

  it.each(['http', 'socket'] as const)(
    'a bot token Slack refuses fails the start (%s), instead of an app that answers nothing',
    async (mode) => {
      slack = await startSlackStandIn();
      sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey });
      const config = loadConfig({
        ...offlineEnv(sandbox, slack, mode),
        SLACK_BOT_TOKEN: 'xoxb-not-the-installed-token',
      });
      const logs = new LogCapture();
      const logger = createLogger({ level: 'info', secrets: config.secrets, destination: logs });
      await expect(startSlackApp({ config, logger })).rejects.toThrow(
        'Slack refused SLACK_BOT_TOKEN (invalid_auth)',
      );
      expect(slack.calls.map((c) => c.method)).toEqual(['auth.test']);
      // Nothing was left listening or connected.
      expect(slack.socketConnectionCount()).toBe(0);
      expect(logs.text()).not.toContain('xoxb-not-the-installed-token');
    },
  );
});
