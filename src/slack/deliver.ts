import { RespondError, type RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { systemCodeOf } from '../error-cause.ts';
import { currentRequest } from '../request-context.ts';
import { factsOf } from './body-facts.ts';
import { errorField, platformErrorCode } from './slack-errors.ts';

// A reply goes through Bolt's `respond` (the request's response_url). What is here is what Bolt
// leaves to the app: where `respond` cannot reach the person, the reply still does, as an
// ephemeral message in the channel, a post (for a reply meant for everyone), or a direct message.

export interface SlackMessage {
  text: string;
  blocks?: KnownBlock[];
  /** Ephemeral (only the caller sees it) unless 'in_channel'. */
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
  delete_original?: boolean;
}

export interface Destination {
  responseUrl?: string | undefined;
  channelId?: string | undefined;
  userId: string;
}

export type Deliverer = (
  destination: Destination,
  message: SlackMessage,
  logger: Logger,
) => Promise<'response_url' | 'ephemeral' | 'channel' | 'dm' | 'lost'>;

const RESPONSE_URL_TIMEOUT_MS = 5_000;

/**
 * The fetch Bolt's `respond` posts to a response_url with (Bolt reads `clientOptions.fetch`).
 * Bolt sets no time limit of its own: a response_url that never answered would hold the listener,
 * and a stop's drain, for ever. A request that brings its own signal keeps it: the Web API
 * client, which is given the same options, times each call itself.
 */
export function fetchWithin(
  timeoutMs: number = RESPONSE_URL_TIMEOUT_MS,
  base: typeof fetch = fetch,
): typeof fetch {
  return (input, init) =>
    base(input, init?.signal ? init : { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

/** A reply to the person who asked: Bolt's `respond` is one, and so is {@link respondOrFallBack}. */
export type Respond = (message: SlackMessage) => Promise<void>;

/** Who a reply is for where no response_url reaches them, and the channel they asked in. */
export interface Recipient {
  userId: string;
  channelId?: string | undefined;
}

/** Who an interaction is from and where: a block action's or a message shortcut's. */
export function recipientOf(body: {
  user: { id: string };
  channel?: { id: string } | undefined;
}): Recipient {
  return { userId: body.user.id, channelId: body.channel?.id };
}

/**
 * Bolt's `respond`, and the fallbacks it does not have. Bolt's `respond` throws when Slack
 * refuses the response_url (expired, used five times, a 404 or 500) or cannot be reached: the
 * reply then goes by {@link createDeliverer}'s other routes, logged. Where Bolt gives no
 * `respond` (a payload without a response_url: a button in a modal or on the Home tab, a modal
 * submission, a global shortcut; Bolt's types say it is always there, it is not) those routes
 * are the only ones. Runs within a request: its logger is the request's.
 */
export function respondOrFallBack(
  respond: RespondFn | undefined,
  to: Recipient,
  deliver: Deliverer,
): Respond {
  return async (message) => {
    const reply: SlackMessage = { response_type: 'ephemeral', ...message };
    const { log } = currentRequest();
    if (respond) {
      try {
        await respond(reply);
        return;
      } catch (error) {
        if (error instanceof RespondError) {
          log.warn({ status: error.statusCode }, 'response_url refused the reply; falling back');
        } else {
          log.warn({ cause: causeOf(error) }, 'response_url failed; falling back');
        }
      }
    }
    await deliver(to, reply, log);
  };
}

/**
 * Sends a reply to the person who asked, for what Bolt gives no `respond` (a periodic job, the
 * error handler) and as {@link respondOrFallBack}'s fallback. A `response_url`, when given,
 * comes first; when Slack refuses it (expired, used five times, a 404 or 500), the reply still
 * reaches them as an ephemeral message in the channel (an `in_channel` reply: a message in the
 * channel, for everyone), and failing that as a direct message. Each fallback is logged; a
 * reply is never dropped silently.
 */
export function createDeliverer(client: WebClient, post: PostJson = postJson): Deliverer {
  return async (destination, message, logger) => {
    if (destination.responseUrl) {
      try {
        const status = await post(
          destination.responseUrl,
          JSON.stringify({ response_type: 'ephemeral', ...message }),
          RESPONSE_URL_TIMEOUT_MS,
        );
        if (status >= 200 && status < 300) return 'response_url';
        logger.warn({ status }, 'response_url refused the reply; falling back');
      } catch (error) {
        logger.warn({ cause: causeOf(error) }, 'response_url failed; falling back');
      }
    }
    const plain = { text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) };
    if (destination.channelId && message.response_type === 'in_channel') {
      try {
        await client.chat.postMessage({ channel: destination.channelId, ...plain });
        return 'channel';
      } catch (error) {
        logger.warn(
          { cause: slackErrorCode(error) },
          'chat.postMessage to the channel failed; falling back to a DM',
        );
      }
    } else if (destination.channelId) {
      try {
        await client.chat.postEphemeral({
          channel: destination.channelId,
          user: destination.userId,
          ...plain,
        });
        return 'ephemeral';
      } catch (error) {
        logger.warn(
          { cause: slackErrorCode(error) },
          'chat.postEphemeral failed; falling back to a DM',
        );
      }
    }
    try {
      const opened = await client.conversations.open({ users: destination.userId });
      const channel = opened.channel?.id;
      if (!channel) throw new Error('conversations.open returned no channel');
      await client.chat.postMessage({ channel, ...plain });
      return 'dm';
    } catch (error) {
      logger.error({ cause: slackErrorCode(error) }, 'reply could not be delivered by any route');
      return 'lost';
    }
  };
}

/** The largest answer to a reply that is read rather than cancelled. */
const SMALL_ANSWER_BYTES = 4_096;

/** POSTs a JSON body and resolves with the answer's status once its headers arrive. */
export type PostJson = (url: string, json: string, timeoutMs: number) => Promise<number>;

/**
 * The reply's POST, once, with fetch as Bolt's own `respond` sends it: a response_url takes five
 * replies in thirty minutes, and a retry of one that did arrive would show the person the same
 * reply twice; the fallbacks above cover a failure. A refusal resolves with its status.
 */
export async function postJson(url: string, json: string, timeoutMs: number): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    body: json,
    headers: { 'content-type': 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  // Slack answers with a word (`ok`, `expired_url`): read, it frees the connection at once;
  // cancelled, undici builds an AbortError with its stack for every reply. An answer that says
  // it is large, or does not say, is not read.
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  if (length <= SMALL_ANSWER_BYTES) await response.arrayBuffer();
  else await response.body?.cancel();
  return response.status;
}

/**
 * Why a request got no answer, in a word for the log: the system's code (fetch's TypeError wraps
 * the socket's error: `ECONNREFUSED`), else the error's name.
 */
export function causeOf(error: unknown): string {
  return systemCodeOf(error) ?? (error instanceof Error ? error.name : String(error));
}

/** The Slack error code of a Web API failure (e.g. `not_in_channel`), without the request. */
export function slackErrorCode(error: unknown): string {
  const refused = platformErrorCode(error);
  if (refused !== undefined) return refused;
  const code = errorField(error, 'code');
  return typeof code === 'string' ? code : String(errorField(error, 'message') ?? error);
}

/**
 * Where to answer a request, read from whatever payload Slack sent: for the error handler, which
 * sees every kind. `unknown` for the files that still pass a body on untyped (until they answer
 * through `respond`, when this takes Bolt's `AnyMiddlewareArgs['body']`).
 */
export function destinationOf(body: unknown): Destination {
  const { responseUrl, channelId, userId } = factsOf(body);
  return { responseUrl, channelId, userId: userId ?? '' };
}
