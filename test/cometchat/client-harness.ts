import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { RecordedRequest } from '../../offline/cometchat-standin/server.ts';
import { type Sandbox, startSandbox } from '../../offline/cometchat-standin/server.ts';
import {
  type CometChatClient,
  type CometChatClientOptions,
  createCometChatClient,
} from '../../src/cometchat/client.ts';
import { CometChatError } from '../../src/cometchat/errors.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { LogCapture } from '../log-capture.ts';

// What the client's tests share: a logger whose lines they read, and the checks that a failure
// is a CometChatError that carries no key, however it is turned into text.

export const API_KEY = 'cc-rest-key-7Hq2ZETA9xYw';
export const WRONG_KEY = 'cc-wrong-key-Q8vLmN3pR';
/** The client's clock in these tests: it stands still unless a test makes it move. */
export const T0 = Date.parse('2025-06-02T09:00:00Z');

/**
 * No `secrets` on purpose: the client itself must keep the key out of the log; the root
 * logger's scrubbing (tested in test/log.test.ts) is a second line of defence, not this one.
 */
export function captureLogger(): { logger: Logger; capture: LogCapture } {
  const capture = new LogCapture();
  return { logger: createLogger({ level: 'debug', destination: capture }), capture };
}

/** Every way an error can end up as text: none may carry the key. */
export function errorTexts(error: CometChatError): string[] {
  const { logger: errLogger, capture } = captureLogger();
  errLogger.error({ err: error }, 'request failed');
  const pinoLine = capture.lines.join('\n');
  // The pino line must really hold the error, or checking it would prove nothing.
  expect(pinoLine).toContain(error.ref);
  expect(pinoLine).toContain(error.kind);
  return [
    error.message,
    JSON.stringify(error),
    String(error),
    error.stack ?? '',
    inspect(error, { depth: 10, showHidden: true }),
    pinoLine,
  ];
}

/** The rejection of `promise`, which must be a CometChatError free of any key. */
export async function failure(promise: Promise<unknown>): Promise<CometChatError> {
  const outcome = await promise.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof CometChatError)) throw outcome;
  for (const text of errorTexts(outcome)) {
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(WRONG_KEY);
  }
  return outcome;
}

export function only(requests: RecordedRequest[]): RecordedRequest {
  expect(requests).toHaveLength(1);
  const [request] = requests;
  if (!request) throw new Error('no request recorded');
  return request;
}

/**
 * A stand-in for the file's tests (started once, reset before each) and a client of it with
 * small budgets, the clock at T0 and no jitter: `sandbox()` and `client(overrides)`.
 */
export function useSandboxClient(): {
  sandbox: () => Sandbox;
  client: (overrides?: Partial<CometChatClientOptions>) => CometChatClient;
} {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ apiKey: API_KEY });
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => sandbox?.reset());
  const started = () => {
    if (!sandbox) throw new Error('the stand-in is not started yet');
    return sandbox;
  };
  return {
    sandbox: started,
    client: (overrides = {}) =>
      createCometChatClient({
        apiUrl: started().apiUrl,
        callApiUrl: started().callUrl,
        apiKey: API_KEY,
        timeoutMs: 300,
        budgetMs: 1_500,
        logger: captureLogger().logger,
        now: () => T0,
        random: () => 0,
        ...overrides,
      }),
  };
}
