import type {
  ViewsOpenArguments,
  ViewsPublishArguments,
  ViewsPushArguments,
  ViewsUpdateArguments,
  WebClient,
} from '@slack/web-api';
import { ErrorCode, WebAPIRequestError } from '@slack/web-api';
import { errorField } from './slack-errors.ts';

// Modals and the Home tab, through the Web API client (its retries, timeout and rate-limit
// handling). Opening and pushing resolve with the view's id, which the features need to update
// a modal they drew as "loading"; an answer that names no view is a failure of the client's own
// kind, so everything that reads a Slack error reads it the same way.

export interface Views {
  /** Opens a modal with a trigger (good once, for three seconds); resolves with its view id. */
  open(args: ViewsOpenArguments): Promise<string>;
  /** Pushes a modal onto the open stack with a trigger; resolves with its view id. */
  push(args: ViewsPushArguments): Promise<string>;
  update(args: ViewsUpdateArguments): Promise<void>;
  publish(args: ViewsPublishArguments): Promise<void>;
}

export interface ViewsClients {
  /**
   * For the calls that spend a trigger (open, push): a trigger is good once and for three
   * seconds, so a retry or a wait for a rate limit could never succeed. One attempt, with a
   * timeout within the trigger's life.
   */
  triggered: WebClient;
  /** For update and publish: retried, and failing at once when Slack rate limits. */
  client: WebClient;
}

/**
 * A call that spends a trigger got no answer from Slack within the trigger's life (a timeout, a
 * failed connection, a 5xx): the form did not open, and trying again cannot open it.
 */
export class FormNotOpened extends Error {
  override readonly name = 'FormNotOpened';
  constructor(method: string, cause: unknown) {
    super(`${method} got no answer within the trigger's three seconds`, { cause });
  }
}

export function createViews({ triggered, client }: ViewsClients): Views {
  const spending = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      const code = errorField(error, 'code');
      if (code === ErrorCode.RequestError || code === ErrorCode.HTTPError) {
        throw new FormNotOpened(method, error);
      }
      throw error;
    }
  };
  return {
    open: async (args) =>
      viewIdOf('views.open', await spending('views.open', () => triggered.views.open(args))),
    push: async (args) =>
      viewIdOf('views.push', await spending('views.push', () => triggered.views.push(args))),
    update: async (args) => {
      await client.views.update(args);
    },
    publish: async (args) => {
      await client.views.publish(args);
    },
  };
}

function viewIdOf(method: string, answer: { view?: { id?: string } }): string {
  const id = answer.view?.id;
  if (id === undefined) {
    throw new WebAPIRequestError(new Error(`Slack's answer to ${method} named no view`));
  }
  return id;
}
