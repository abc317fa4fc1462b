import { describe, expect, it } from 'vitest';
import { boltLogger, createLogger, scrub } from '../src/log.ts';
import { LogCapture } from './log-capture.ts';

const API_KEY = 'cc-key-LogTest-4e5f6a7b';
const BOT_TOKEN = 'xoxb-999-888-LogTestToken';

function capture(secrets?: string[], level = 'debug') {
  const destination = new LogCapture();
  const logger = createLogger({ level, destination, ...(secrets ? { secrets } : {}) });
  return { logger, destination };
}

describe('createLogger', () => {
  it('writes one JSON object a line, with the service name', () => {
    const { logger, destination } = capture();
    logger.info({ answer: 42 }, 'hello');
    expect(destination.records()).toEqual([
      expect.objectContaining({
        service: 'cometchat-slack-ops',
        answer: 42,
        msg: 'hello',
        level: 30,
      }),
    ]);
  });

  it('keeps the CometChat app a line names apart from the service name: one key each', () => {
    const { logger, destination } = capture();
    logger.info({ app: 'eu' }, 'call search answered');
    const [line] = destination.lines;
    expect(line?.match(/"app":/g)).toHaveLength(1);
    expect(JSON.parse(line ?? '')).toMatchObject({ service: 'cometchat-slack-ops', app: 'eu' });
  });

  it('honours the level', () => {
    const { logger, destination } = capture(undefined, 'warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(destination.records().map((r) => r.msg)).toEqual(['loud']);
  });

  it('redacts credentials by field name, at the top and in what a request, options or an error carry', () => {
    const { logger, destination } = capture();
    logger.info(
      {
        apiKey: 'top-level-value-1',
        token: 'top-level-value-2',
        request: { headers: { apikey: 'header-value-3', accept: 'application/json' } },
        options: { apikey: 'nested-value-4', botToken: 'nested-value-5' },
        config: {
          slack: { botToken: 'slack-value-6', signingSecret: 'slack-value-7' },
          cometchat: { apiKey: 'cc-value-8', apiUrl: 'https://x.example' },
        },
      },
      'redaction',
    );
    const text = destination.text();
    for (let i = 1; i <= 8; i += 1) expect(text).not.toMatch(new RegExp(`value-${i}\\b`));
    const [record] = destination.records();
    expect(record).toMatchObject({
      apiKey: '[redacted]',
      request: { headers: { apikey: '[redacted]', accept: 'application/json' } },
      config: {
        slack: '[redacted]',
        cometchat: { apiKey: '[redacted]', apiUrl: 'https://x.example' },
      },
    });
  });

  it("redacts every CometChat app's key in a logged config", () => {
    const { logger, destination } = capture();
    const apps = [
      { name: 'prod', apiKey: 'app-key-value-1', apiUrl: 'https://prod.example' },
      { name: 'staging', apiKey: 'app-key-value-2', apiUrl: 'https://staging.example' },
    ];
    logger.info({ config: { cometchat: { apps, timeoutMs: 3000 } } }, 'config');
    expect(destination.text()).not.toMatch(/app-key-value/);
    expect(destination.records()[0]).toMatchObject({
      config: {
        cometchat: {
          apps: [
            { name: 'prod', apiKey: '[redacted]', apiUrl: 'https://prod.example' },
            { name: 'staging', apiKey: '[redacted]', apiUrl: 'https://staging.example' },
          ],
          timeoutMs: 3000,
        },
      },
    });
  });

  it('scrubs secret values wherever they ended up: message, fields, errors, children', () => {
    const { logger, destination } = capture([API_KEY, BOT_TOKEN]);
    logger.warn(`upstream said: bad key ${API_KEY}`);
    logger.info({ note: { deep: { deeper: [`Bearer ${BOT_TOKEN}`] } } }, 'nested');
    const error = new Error(`request with apikey=${API_KEY} failed`);
    logger.error({ err: error }, 'failed');
    logger.child({ ref: 'r1' }).info({ echoed: API_KEY }, 'child');
    const text = destination.text();
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(BOT_TOKEN);
    expect(destination.lines).toHaveLength(4);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(5);
    const records = destination.records();
    expect(records[2]).toMatchObject({
      msg: 'failed',
      err: { type: 'Error', message: 'request with apikey=[redacted] failed' },
    });
    expect(records[3]).toMatchObject({ ref: 'r1', echoed: '[redacted]' });
  });

  it('scrubs a secret that JSON escapes', () => {
    const odd = 'key"with\\odd\nchars';
    const { logger, destination } = capture([odd]);
    logger.info({ value: odd }, `message ${odd}`);
    expect(destination.text()).not.toContain(JSON.stringify(odd).slice(1, -1));
    expect(destination.records()[0]).toMatchObject({
      value: '[redacted]',
      msg: 'message [redacted]',
    });
  });

  it('leaves values too short to be secrets alone, so lines stay readable', () => {
    const { logger, destination } = capture(['abc', '']);
    logger.info('abc abc');
    expect(destination.records()[0]?.msg).toBe('abc abc');
  });
});

describe('scrub', () => {
  it('replaces every occurrence of every secret', () => {
    expect(scrub(`a ${API_KEY} b ${API_KEY} c ${BOT_TOKEN}`, [API_KEY, BOT_TOKEN])).toBe(
      'a [redacted] b [redacted] c [redacted]',
    );
    expect(scrub('nothing here', [API_KEY])).toBe('nothing here');
  });
});

describe('boltLogger', () => {
  it('sends Bolt lines through the root logger, errors as err', () => {
    const { logger, destination } = capture([BOT_TOKEN]);
    const bolt = boltLogger(logger);
    bolt.info('starting', { port: 3000 });
    bolt.error('failed to call', new Error(`token ${BOT_TOKEN} is invalid`));
    const [info, error] = destination.records();
    expect(info).toMatchObject({ component: 'bolt', msg: 'starting {"port":3000}', level: 30 });
    expect(error).toMatchObject({
      component: 'bolt',
      msg: 'failed to call',
      level: 50,
      err: { message: 'token [redacted] is invalid' },
    });
    expect(destination.text()).not.toContain(BOT_TOKEN);
  });

  it('follows setLevel and setName', () => {
    const { logger, destination } = capture();
    const bolt = boltLogger(logger);
    bolt.setLevel('error' as Parameters<typeof bolt.setLevel>[0]);
    expect(bolt.getLevel()).toBe('error');
    bolt.info('dropped');
    bolt.setName('socket-mode');
    // Renaming keeps the level that was set.
    expect(bolt.getLevel()).toBe('error');
    bolt.warn('dropped too');
    bolt.error('kept');
    const records = destination.records();
    expect(records.map((r) => r.msg)).toEqual(['kept']);
    expect(records[0]?.component).toBe('socket-mode');
  });

  it('does not throw on a value that cannot be made JSON', () => {
    const { logger, destination } = capture();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    boltLogger(logger).warn('odd', cyclic);
    expect(destination.records()[0]?.msg).toBe('odd [object Object]');
  });
});
