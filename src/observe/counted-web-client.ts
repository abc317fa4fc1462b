import { ErrorCode, type WebAPICallResult, WebClient, type WebClientOptions } from '@slack/web-api';
import { platformErrorCode } from '../slack/slack-errors.ts';
import { inSpan } from '../spans.ts';
import type { Metrics } from './metrics.ts';

// The app's Web API traffic, counted and traced: every call that fails, after the client's own
// retries, adds to the failures of its method and of why (Slack's error code, an HTTP status,
// the network), and each call is a span when tracing is on. Every method of the client
// (`chat.postMessage`, `views.open`, ...) goes through `apiCall`, so observing there sees them
// all and leaves the client's transport, retries and rate-limit handling as they are.

const PLAIN_CODE = /^[a-z_]{1,50}$/;

export class CountedWebClient extends WebClient {
  readonly #metrics: Pick<Metrics, 'slackApiFailure'>;

  constructor(token: string, options: WebClientOptions, metrics: Pick<Metrics, 'slackApiFailure'>) {
    super(token, options);
    this.#metrics = metrics;
  }

  override async apiCall(
    method: string,
    options?: Record<string, unknown>,
  ): Promise<WebAPICallResult> {
    try {
      return await inSpan(`Slack ${method}`, 'client', { 'slack.method': method }, () =>
        super.apiCall(method, options),
      );
    } catch (error) {
      this.#metrics.slackApiFailure(method, failureLabel(error));
      throw error;
    }
  }
}

/**
 * Why a call failed, as a metric label: Slack's error code (`other` when it is not a plain code,
 * so a label never carries free text), `http_<status>` (a 429 is `http_429`), or `network`.
 */
export function failureLabel(error: unknown): string {
  if (typeof error !== 'object' || error === null || !('code' in error)) return 'other';
  switch (error.code) {
    case ErrorCode.PlatformError: {
      const code = platformErrorCode(error);
      return code !== undefined && PLAIN_CODE.test(code) ? code : 'other';
    }
    case ErrorCode.HTTPError:
      return 'statusCode' in error ? `http_${String(error.statusCode)}` : 'other';
    case ErrorCode.RateLimitedError:
      return 'http_429';
    case ErrorCode.RequestError:
      return 'network';
    default:
      return 'other';
  }
}
