import { type Logger, LogLevel } from '@slack/web-api';

/**
 * A logger for the Slack SDK clients under test: keeps lines instead of printing them, so the test
 * output stays readable and a test can still assert that nothing was logged as an error.
 */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  let level = LogLevel.INFO;
  const keep =
    (at: string) =>
    (...message: unknown[]): void => {
      lines.push(`${at} ${message.map(String).join(' ')}`);
    };
  const logger: Logger = {
    debug: () => undefined,
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
  return { logger, lines };
}
