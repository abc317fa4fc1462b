import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { boltLogger, createLogger, fieldName } from '../src/log.ts';
import { runInRequest } from '../src/request-context.ts';
import { scrub } from '../src/scrub.ts';
import { LogCapture } from './log-capture.ts';
import { duplicateKeys, expectEcsLine } from './log-ecs-rules.ts';

const API_KEY = 'cc-key-LogTest-4e5f6a7b';
const BOT_TOKEN = 'xoxb-999-888-LogTestToken';

function capture(secrets?: string[], level = 'debug') {
  const destination = new LogCapture();
  const logger = createLogger({ level, destination, ...(secrets ? { secrets } : {}) });
  return { logger, destination };
}

/** The one line written, as written (dotted keys). */
function onlyLine(destination: LogCapture): Record<string, unknown> {
  expect(destination.lines).toHaveLength(1);
  return JSON.parse(destination.lines[0] ?? '') as Record<string, unknown>;
}

describe('createLogger: lines in the Elastic Common Schema', () => {
  it('writes the level as text, @timestamp, message, ecs.version and service.name', () => {
    const { logger, destination } = capture();
    logger.info({ answer: 42 }, 'hello');
    const line = onlyLine(destination);
    expect(line).toMatchObject({
      'log.level': 'info',
      message: 'hello',
      'service.name': 'cometchat-slack-ops',
      'service.version': expect.stringMatching(/^\d+\.\d+\.\d+/),
      'cometchat_ops.answer': 42,
    });
    expect(line['ecs.version']).toMatch(/^8\.\d+\.\d+$/);
    expect(new Date(String(line['@timestamp'])).toISOString()).toBe(line['@timestamp']);
    for (const old of ['level', 'time', 'msg', 'service', 'answer'])
      expect(line).not.toHaveProperty(old);
    expectEcsLine(destination.lines[0] ?? '');
  });

  it('names each level as pino does', () => {
    const { logger, destination } = capture(undefined, 'trace');
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
      logger[level](level);
    }
    expect(destination.records().map((r) => [r.log.level, r.message])).toEqual(
      ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((l) => [l, l]),
    );
    for (const line of destination.lines) expectEcsLine(line);
  });

  it('honours the level', () => {
    const { logger, destination } = capture(undefined, 'warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(destination.records().map((r) => r.message)).toEqual(['loud']);
  });

  it('puts a user, a workspace and a component in their ECS fields, and the rest under cometchat_ops', () => {
    const { logger, destination } = capture();
    logger.info(
      { user: 'U1', team: 'T1', component: 'sweep', ref: 'r1', app: 'eu', event: 'e1', type: 't' },
      'fields',
    );
    expect(onlyLine(destination)).toMatchObject({
      'user.id': 'U1',
      'organization.id': 'T1',
      'log.logger': 'sweep',
      'cometchat_ops.ref': 'r1',
      'cometchat_ops.app': 'eu',
      'cometchat_ops.event': 'e1',
      'cometchat_ops.type': 't',
    });
    // ECS's `user`, `event` or `service` are objects: a string there would not be indexed.
    const document = expectEcsLine(destination.lines[0] ?? '');
    expect(document).toMatchObject({ user: { id: 'U1' }, event: { dataset: expect.any(String) } });
  });

  it('keeps a CometChat app apart from the service: one key each', () => {
    const { logger, destination } = capture();
    logger.info({ app: 'eu' }, 'call search answered');
    const [line = ''] = destination.lines;
    expect(line.match(/"cometchat_ops\.app":/g)).toHaveLength(1);
    expect(JSON.parse(line)).toMatchObject({
      'service.name': 'cometchat-slack-ops',
      'cometchat_ops.app': 'eu',
    });
  });

  it('takes a dotted name as the ECS field it names', () => {
    const { logger, destination } = capture();
    logger.info({ 'http.response.status_code': 503 }, 'answered');
    expect(onlyLine(destination)['http.response.status_code']).toBe(503);
    expect(fieldName('http.response.status_code')).toBe('http.response.status_code');
    expect(fieldName('role')).toBe('cometchat_ops.role');
  });

  it('writes an error as ECS error fields, with its causes and code, and nothing else of it', () => {
    const { logger, destination } = capture();
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const error = Object.assign(new TypeError('fetch failed', { cause }), {
      options: { headers: { apikey: 'header-value' } },
    });
    logger.error({ err: error }, 'failed');
    logger.warn({ err: 'not an Error' }, 'odd');
    logger.error(new RangeError('alone'));
    const [failed, odd, alone] = destination.records();
    expect(failed?.error).toEqual({
      type: 'TypeError',
      message: 'fetch failed: connect ECONNREFUSED',
      stack_trace: expect.stringMatching(/^TypeError: fetch failed\n.*caused by: Error: connect/s),
    });
    expect(destination.text()).not.toContain('header-value');
    expect(odd?.error).toEqual({ message: 'not an Error' });
    expect(alone).toMatchObject({ message: 'alone', error: { type: 'RangeError' } });
    logger.error({ err: cause }, 'with a code');
    expect(destination.records()[3]?.error).toMatchObject({ code: 'ECONNREFUSED' });
    for (const line of destination.lines) expectEcsLine(line);
    expect(destination.text()).not.toContain('"err"');
  });
});

describe('createLogger: children', () => {
  it('writes a child’s bindings under their ECS names, and answers bindings() as they were bound', () => {
    const { logger, destination } = capture();
    const child = logger.child({ ref: 'r1', user: 'U1', team: 'T1', component: 'http' });
    child.info('bound');
    expect(onlyLine(destination)).toMatchObject({
      'cometchat_ops.ref': 'r1',
      'user.id': 'U1',
      'organization.id': 'T1',
      'log.logger': 'http',
    });
    expect(child.child({ operation: 'listRoles' }).bindings()).toEqual({
      ref: 'r1',
      user: 'U1',
      team: 'T1',
      component: 'http',
      operation: 'listRoles',
    });
  });

  it('writes no key twice when a child, or a line, repeats what its logger carries', () => {
    const { logger, destination } = capture();
    const request = logger.child({ ref: 'r1', user: 'U1' });
    // The CometChat client binds the reference it was given again, with its operation.
    request.child({ ref: 'r1', operation: 'getCall' }).warn({ user: 'U1', ref: 'r1' }, 'repeated');
    const [line = ''] = destination.lines;
    expect(duplicateKeys(line)).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({
      'cometchat_ops.ref': 'r1',
      'user.id': 'U1',
      'cometchat_ops.operation': 'getCall',
    });
  });
});

describe('createLogger: the request a line belongs to', () => {
  it('adds the running request’s reference to a line of any logger, across awaits', async () => {
    const { logger, destination } = capture();
    const bolt = boltLogger(logger);
    const other = logger.child({ component: 'cometchat', app: 'eu' });
    await runInRequest(inRequest('r1'), async () => {
      bolt.debug('ack() call begins');
      await new Promise((resolve) => setTimeout(resolve, 1));
      other.warn('retrying CometChat request');
      void Promise.resolve().then(() => logger.info('not awaited'));
    });
    await new Promise((resolve) => setTimeout(resolve, 1));
    logger.info('after the request');
    expect(destination.records().map((r) => [r.message, r.cometchat_ops.ref])).toEqual([
      ['ack() call begins', 'r1'],
      ['retrying CometChat request', 'r1'],
      ['not awaited', 'r1'],
      ['after the request', undefined],
    ]);
  });

  it('keeps the reference a logger or a line names, once', () => {
    const { logger, destination } = capture();
    runInRequest(inRequest('r1'), () => {
      logger.child({ ref: 'r0' }).info('a digest of its own');
      logger.info({ ref: 'r2' }, 'a line naming its own');
    });
    expect(destination.records().map((r) => r.cometchat_ops.ref)).toEqual(['r0', 'r2']);
    for (const line of destination.lines) expect(duplicateKeys(line)).toEqual([]);
  });

  it('keeps two requests’ references apart while both run', async () => {
    const { logger, destination } = capture();
    const request = (ref: string, ms: number) =>
      runInRequest(inRequest(ref), async () => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        logger.info(`done ${ref}`);
      });
    await Promise.all([request('slow', 20), request('fast', 1)]);
    expect(destination.records().map((r) => [r.message, r.cometchat_ops.ref])).toEqual([
      ['done fast', 'fast'],
      ['done slow', 'slow'],
    ]);
  });
});

describe('createLogger: secrets', () => {
  it('redacts credentials by field name, at the top and in what a request, options or a cause carry', () => {
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
        headers: { authorization: 'Bearer header-value-9', 'x-slack-signature': 'v0=value-10' },
        cause: { headers: { authorization: 'value-11' } },
      },
      'redaction',
    );
    const text = destination.text();
    for (let i = 1; i <= 11; i += 1) expect(text).not.toMatch(new RegExp(`value-${i}\\b`));
    expect(destination.records()[0]?.cometchat_ops).toMatchObject({
      apiKey: '[redacted]',
      request: { headers: { apikey: '[redacted]', accept: 'application/json' } },
      config: {
        slack: '[redacted]',
        cometchat: { apiKey: '[redacted]', apiUrl: 'https://x.example' },
      },
      headers: { authorization: '[redacted]', 'x-slack-signature': '[redacted]' },
    });
  });

  it('redacts a credential a child is bound to', () => {
    const { logger, destination } = capture();
    logger.child({ token: 'bound-value-1', options: { apiKey: 'bound-value-2' } }).info('child');
    expect(destination.text()).not.toMatch(/bound-value/);
    expect(destination.records()[0]?.cometchat_ops).toMatchObject({
      token: '[redacted]',
      options: { apiKey: '[redacted]' },
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
    expect(destination.records()[0]?.cometchat_ops).toMatchObject({
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
    // Once in each line, and twice in the error's: its message and its stack trace.
    expect(text.match(/\[redacted\]/g)).toHaveLength(5);
    const records = destination.records();
    expect(records[2]).toMatchObject({
      message: 'failed',
      error: { type: 'Error', message: 'request with apikey=[redacted] failed' },
    });
    expect(records[3]?.cometchat_ops).toMatchObject({ ref: 'r1', echoed: '[redacted]' });
  });

  it('scrubs a secret that JSON escapes', () => {
    const odd = 'key"with\\odd\nchars';
    const { logger, destination } = capture([odd]);
    logger.info({ value: odd }, `message ${odd}`);
    expect(destination.text()).not.toContain(JSON.stringify(odd).slice(1, -1));
    expect(destination.records()[0]).toMatchObject({
      message: 'message [redacted]',
      cometchat_ops: { value: '[redacted]' },
    });
  });

  it('leaves values too short to be secrets alone, so lines stay readable', () => {
    const { logger, destination } = capture(['abc', '']);
    logger.info('abc abc');
    expect(destination.records()[0]?.message).toBe('abc abc');
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
  it('sends Bolt lines through the root logger, errors as ECS error fields', () => {
    const { logger, destination } = capture([BOT_TOKEN]);
    const bolt = boltLogger(logger);
    bolt.info('starting', { port: 3000 });
    bolt.error('failed to call', new Error(`token ${BOT_TOKEN} is invalid`));
    const [info, error] = destination.records();
    expect(info).toMatchObject({
      log: { logger: 'bolt', level: 'info' },
      message: 'starting {"port":3000}',
    });
    expect(error).toMatchObject({
      log: { logger: 'bolt', level: 'error' },
      message: 'failed to call',
      error: { message: 'token [redacted] is invalid' },
    });
    expect(destination.text()).not.toContain(BOT_TOKEN);
    for (const line of destination.lines) expectEcsLine(line);
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
    expect(records.map((r) => r.message)).toEqual(['kept']);
    expect(records[0]?.log.logger).toBe('socket-mode');
  });

  it('does not throw on a value that cannot be made JSON', () => {
    const { logger, destination } = capture();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    boltLogger(logger).warn('odd', cyclic);
    expect(destination.records()[0]?.message).toBe('odd [object Object]');
  });
});

/** A request's context with reference `ref`, for work run as that request. */
function inRequest(ref: string) {
  return { ref, log: pino({ enabled: false }), receivedAt: 0 };
}
