import { BLOCK_KIT_LIMITS, blockKitProblems } from './block-kit-limits.ts';
import { isRecord } from './is-record.ts';

/** A response_url takes up to 5 posts within 30 minutes (platform-limits.md, "Time"). */
export const RESPONSE_URL_MAX_POSTS = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60 * 1000;

export interface IssuedResponseUrl {
  createdAt: number;
  posts: number;
}

export type ResponsePostVerdict =
  | { accepted: true; body: Record<string, unknown> }
  | { accepted: false; status: number; reason: string; body: unknown };

function parseBody(contentType: string | undefined, rawBody: string): unknown {
  try {
    // Bolt's respond() posts JSON; incoming-webhook style `payload=<JSON>` forms also work on Slack.
    if ((contentType ?? '').startsWith('application/x-www-form-urlencoded')) {
      const payload = new URLSearchParams(rawBody).get('payload');
      return payload === null ? undefined : (JSON.parse(payload) as unknown);
    }
    return JSON.parse(rawBody) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Decides what Slack would answer to one post on a response_url, given what is known about the
 * url (`undefined` if it was never issued). Counts the post when it is accepted.
 */
export function judgeResponsePost(
  issued: IssuedResponseUrl | undefined,
  contentType: string | undefined,
  rawBody: string,
  now: number,
): ResponsePostVerdict {
  const body = parseBody(contentType, rawBody);
  const refuse = (status: number, reason: string): ResponsePostVerdict => ({
    accepted: false,
    status,
    reason,
    body: body ?? rawBody,
  });
  if (issued === undefined) return refuse(404, 'no_active_hooks');
  if (now - issued.createdAt > RESPONSE_URL_LIFETIME_MS) return refuse(404, 'expired_url');
  if (issued.posts >= RESPONSE_URL_MAX_POSTS) return refuse(404, 'used_url');
  if (!isRecord(body)) return refuse(400, 'invalid_payload');
  const says = ['text', 'blocks', 'attachments'].some((field) => body[field] !== undefined);
  if (!says && body.delete_original !== true) {
    return refuse(400, 'no_text');
  }
  if (blockKitProblems(body.blocks, '/blocks', BLOCK_KIT_LIMITS.messageBlocks).length > 0) {
    return refuse(400, 'invalid_blocks');
  }
  issued.posts += 1;
  return { accepted: true, body };
}
