import { Writable } from 'node:stream';
import { expect } from 'vitest';
import {
  type OfflineStack,
  type OfflineStackOptions,
  startOfflineStack,
} from '../../src/dev/offline-stack.ts';
import { assertWithinLimits } from '../../src/slack/limits.ts';

/** Every log line the app wrote, as text and parsed. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line) this.lines.push(line);
    done();
  }
  records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface Harness extends OfflineStack {
  logs: LogCapture;
  /** Messages posted to response_urls and through the Web API, in order. */
  messages(): Record<string, unknown>[];
  /** Views opened, updated or pushed, in order. */
  views(): Record<string, unknown>[];
  /** Checks every message and view that reached Slack against Block Kit's limits. */
  checkAllPayloads(): void;
}

export async function startHarness(options: OfflineStackOptions = {}): Promise<Harness> {
  const logs = new LogCapture();
  const stack = await startOfflineStack({
    ...options,
    env: { LOG_LEVEL: 'debug', ...options.env },
    logDestination: logs,
  });
  const messages = () => [
    ...stack.slack.responses.map((r) => r.body),
    ...stack.slack.calls
      .filter((c) => ['chat.postMessage', 'chat.postEphemeral', 'chat.update'].includes(c.method))
      .map((c) => c.args),
  ];
  const views = () =>
    stack.slack.calls
      .filter((c) => c.method.startsWith('views.'))
      .map((c) => c.args.view as Record<string, unknown>);
  return {
    ...stack,
    logs,
    messages,
    views,
    checkAllPayloads() {
      for (const message of messages()) assertWithinLimits('message', message);
      for (const view of views()) assertWithinLimits('view', view);
      // Views the app returned in a response_action (push/update) reach Slack in the HTTP
      // answer, not through the Web API; the stand-in keeps them with the others.
      for (const view of stack.slack.views.values()) assertWithinLimits('view', view);
      for (const ack of stack.slack.acks) {
        const payload = ack.payload as { view?: unknown } | undefined;
        if (payload?.view) assertWithinLimits('view', payload.view);
      }
    },
  };
}

/** All mrkdwn/plain text in a payload, for assertions on what a person would read. */
export function textOf(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [key, inner] of Object.entries(v))
        if (key !== 'private_metadata' && key !== 'value') walk(inner);
    }
  };
  walk(value);
  return out.join('\n');
}

export function expectNoMentions(payload: unknown): void {
  const text = textOf(payload);
  expect(text).not.toMatch(/<[!@#]/);
}
