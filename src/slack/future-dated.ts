import type { HTTPReceiver } from '@slack/bolt';
import type { Logger } from 'pino';

/** How far the request's timestamp may be from our clock, either way (Slack's guidance). */
const MAX_SKEW_SECONDS = 5 * 60;

/**
 * Bolt refuses a request signed more than five minutes ago, but not one dated more than five
 * minutes ahead, which would stay replayable for as long as it is dated ahead. Slack's guidance
 * is the absolute difference: this refuses those too, the way Bolt refuses a stale one (401,
 * before the body is read or anything runs).
 */
export function refuseFutureDated(
  receiver: HTTPReceiver,
  logger: Logger,
  now: () => number = Date.now,
): void {
  const next = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    const header = req.headers['x-slack-request-timestamp'];
    const sent = Number(Array.isArray(header) ? header[0] : header);
    const ahead = sent - now() / 1000;
    if (Number.isFinite(ahead) && ahead > MAX_SKEW_SECONDS) {
      logger.warn({ aheadSeconds: Math.round(ahead) }, 'request refused: dated in the future');
      res.writeHead(401).end();
      return;
    }
    next(req, res);
  };
}
