import { afterEach, describe, expect, it } from 'vitest';
import {
  parseServeEnv,
  type ServedStandIns,
  sendFirstCommand,
  serveStandIns,
  standInSettings,
} from '../../offline/stack/serve.ts';
import { startSlackApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import type { RunningApp } from '../../src/start.ts';
import { LogCapture } from '../log-capture.ts';

// What docker-compose.yml's offline profile does, on loopback and without containers: the
// stand-ins from offline/stack/serve.ts, the app started apart from them with the settings they
// print, and the one command they send once it connects.

describe('offline/stack/serve.ts', () => {
  let served: ServedStandIns | undefined;
  let app: RunningApp | undefined;
  afterEach(async () => {
    // The app first: a Socket Mode client would otherwise try to reconnect to nothing.
    await app?.stop();
    await served?.close();
    app = undefined;
    served = undefined;
  });

  it('prints the settings an app needs, and drives that app in Socket Mode', async () => {
    const printed: string[] = [];
    const print = (line: string) => printed.push(line);
    const config = parseServeEnv({
      SLACK_STANDIN_PORT: '0',
      SANDBOX_API_PORT: '0',
      SANDBOX_CALL_PORT: '0',
    });
    served = await serveStandIns(config, print);
    const settings = standInSettings(served.sandbox, served.slack, config.sandbox.options.apiKey);
    for (const [name, value] of Object.entries(settings)) {
      expect(printed).toContain(`  ${name}=${value}`);
    }

    const appConfig = loadConfig({ ...settings, PORT: '0', STORE_URL: 'memory:' });
    expect(appConfig.slack.socketMode).toBe(true);
    const logs = new LogCapture();
    app = await startSlackApp({
      config: appConfig,
      logger: createLogger({ level: 'warn', secrets: appConfig.secrets, destination: logs }),
    });

    await sendFirstCommand(served.slack, print);
    const reply = printed.slice(printed.indexOf('\nThe app is connected. > /cometchat roles'));
    // The role list, drawn: a role of the sandbox's seed and its Edit button.
    expect(reply.join('\n')).toContain('[ Edit admin ]');
  });

  it('refuses a port that is not one', () => {
    expect(() => parseServeEnv({ SLACK_STANDIN_PORT: 'http' })).toThrow(
      /stand-ins: invalid environment\n {2}SLACK_STANDIN_PORT/,
    );
  });
});
