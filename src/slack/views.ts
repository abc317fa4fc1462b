import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ViewsOpenArguments,
  type ViewsPublishArguments,
  type ViewsPushArguments,
  type ViewsUpdateArguments,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
} from '@slack/web-api';
import { z } from 'zod';
import type { Answer, Exchange } from '../http.ts';

// Modals and the Home tab go to Slack through here: Slack's four views methods, sent as JSON.
// Not through the Web API client: it form-encodes the view (a quarter of what an editor opening
// allocated) and, whatever the log level, walks Slack's answer, which echoes the whole view, to
// redact tokens for a debug line (over a third). BENCHMARKS.md, "Cheaper per command, third pass".
// Failures are the client's own error classes, so everything that reads a Slack error (failure
// sentences, logs) reads these the same way.

export interface Views {
  /** Opens a modal with a trigger (good once, for three seconds); resolves with its view id. */
  open(args: ViewsOpenArguments): Promise<string>;
  /** Pushes a modal onto the open stack with a trigger; resolves with its view id. */
  push(args: ViewsPushArguments): Promise<string>;
  update(args: ViewsUpdateArguments): Promise<void>;
  publish(args: ViewsPublishArguments): Promise<void>;
}

export interface ViewsOptions {
  /** The Web API's address, e.g. https://slack.com/api (with or without the last slash). */
  apiUrl: string;
  botToken: string;
  /** One HTTP exchange (src/http.ts), counted by observe/slack-fetch.ts in the app. */
  send: (request: Exchange) => Promise<Answer>;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Waits before a retry; tests pass one that does not. */
  wait?: (ms: number) => Promise<unknown>;
}

/**
 * How a call that got no answer, or a 5xx, is tried again, in the terms the Web API client takes
 * (p-retry's): the app gives both the same policy.
 */
export interface RetryPolicy {
  retries: number;
  minTimeout: number;
  maxTimeout: number;
}

/** The wait before each retry, as p-retry waits them: doubling from the first to the longest. */
export function retryWaits(policy: RetryPolicy): number[] {
  return Array.from({ length: policy.retries }, (_, i) =>
    Math.min(policy.minTimeout * 2 ** i, policy.maxTimeout),
  );
}

/** What the app reads of an answer; the echoed view's other fields are not looked at. */
const ViewsAnswer = z.object({
  ok: z.boolean(),
  error: z.string().optional(),
  view: z.object({ id: z.string() }).optional(),
  response_metadata: z.object({ messages: z.array(z.string()).optional() }).optional(),
});

export function createViews(options: ViewsOptions): Views {
  const base = options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`;
  const wait = options.wait ?? sleep;
  const waits = retryWaits(options.retry);
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    authorization: `Bearer ${options.botToken}`,
  };

  const answerOf = async (method: string, body: string): Promise<Answer> => {
    for (let attempt = 0; ; attempt += 1) {
      const again = waits[attempt];
      let answer: Answer;
      try {
        answer = await options.send({
          method: 'POST',
          url: `${base}${method}`,
          headers,
          body,
          timeoutMs: options.timeoutMs,
          readBody: true,
        });
      } catch (error) {
        if (again === undefined) {
          throw new WebAPIRequestError(error instanceof Error ? error : new Error(String(error)));
        }
        await wait(again);
        continue;
      }
      if (answer.status >= 500 && again !== undefined) {
        await wait(again);
        continue;
      }
      return answer;
    }
  };

  const call = async (method: string, args: object): Promise<string | undefined> => {
    const answer = await answerOf(method, JSON.stringify(args));
    if (answer.status === 429) {
      throw new WebAPIRateLimitedError(Number(answer.headers['retry-after'] ?? 60) || 60);
    }
    if (answer.status !== 200) {
      throw new WebAPIHTTPError(answer.status, '', {}, answer.text.slice(0, 500));
    }
    const parsed = ViewsAnswer.safeParse(parseJson(answer.text));
    if (!parsed.success) {
      throw new WebAPIRequestError(
        new Error(`Slack's answer to ${method} was not a Web API answer`),
      );
    }
    const result = parsed.data;
    if (!result.ok) {
      // Slack's messages say which part of a view it refused (invalid_arguments): kept for the log.
      const messages = result.response_metadata?.messages;
      throw new WebAPIPlatformError({
        ok: false,
        error: result.error ?? 'unknown',
        ...(messages ? { response_metadata: { messages } } : {}),
      });
    }
    return result.view?.id;
  };

  const opened = async (method: string, args: object): Promise<string> => {
    const id = await call(method, args);
    if (id === undefined) {
      throw new WebAPIRequestError(new Error(`Slack's answer to ${method} named no view`));
    }
    return id;
  };

  return {
    open: (args) => opened('views.open', args),
    push: (args) => opened('views.push', args),
    update: async (args) => {
      await call('views.update', args);
    },
    publish: async (args) => {
      await call('views.publish', args);
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
