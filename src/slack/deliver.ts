import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { exchange, succeeded } from '../http.ts';

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
 * Sends a reply to the person who asked. The command's `response_url` comes first; when Slack
 * refuses it (expired, used five times, a 404 or 500), the reply still reaches them as an
 * ephemeral message in the channel (an `in_channel` reply: a message in the channel, for
 * everyone), and failing that as a direct message. Each fallback is logged; a reply is never
 * dropped silently.
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
        if (succeeded(status)) return 'response_url';
        logger.warn({ status }, 'response_url refused the reply; falling back');
      } catch (error) {
        const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
        logger.warn(
          { cause: String(typeof code === 'string' ? code : (name ?? error)) },
          'response_url failed; falling back',
        );
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

/** POSTs a JSON body and resolves with the answer's status once its headers arrive. */
export type PostJson = (url: string, json: string, timeoutMs: number) => Promise<number>;

/** The reply's POST (node:http: see src/http.ts); the answer's body is dropped. */
export async function postJson(url: string, json: string, timeoutMs: number): Promise<number> {
  const answer = await exchange({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: json,
    timeoutMs,
    readBody: false,
  });
  return answer.status;
}

/** The Slack error code of a Web API failure (e.g. `not_in_channel`), without the request. */
export function slackErrorCode(error: unknown): string {
  const data = (error as { data?: { error?: unknown } })?.data;
  if (data && typeof data.error === 'string') return data.error;
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : String((error as Error)?.message ?? error);
}

/** Where to answer an interaction, read from whatever payload Slack sent. */
export function destinationOf(body: unknown): Destination {
  const b = body as {
    response_url?: string;
    response_urls?: { response_url?: string }[];
    channel_id?: string;
    channel?: { id?: string };
    user_id?: string;
    user?: { id?: string };
  };
  return {
    responseUrl: b.response_url ?? b.response_urls?.[0]?.response_url,
    channelId: b.channel_id ?? b.channel?.id,
    userId: b.user_id ?? b.user?.id ?? '',
  };
}
