// The Web API client throws its errors with the answer's body as `data`; when Slack refused a
// call, that body says why in `error` (`not_in_channel`, `channel_not_found`...).

/** Slack's own error code for a refused Web API call, when the error carries one. */
export function platformErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('data' in error)) return undefined;
  const { data } = error;
  if (typeof data !== 'object' || data === null || !('error' in data)) return undefined;
  return typeof data.error === 'string' ? data.error : undefined;
}

/**
 * One field of whatever was thrown, read without trusting its type: the Web API client's errors
 * add `code`, `data` and `retryAfter`, Bolt's wrapper `original`.
 */
export function errorField(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? Reflect.get(error, key) : undefined;
}

/** Slack's errors that mean the app cannot post in the channel (not a member, a DM, gone). */
export const NOT_THERE: ReadonlySet<string> = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
]);

/** Slack's refusals that pass: the same call is taken later. Any other refusal is for good. */
export const PASSING: ReadonlySet<string> = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/**
 * Whether Slack refused a call for now, so that the same call is taken later: a passing refusal,
 * or the Web API client's own rate-limit error (thrown with no answer's body once its waits run
 * out). A call with no answer at all may have been taken, and is not one.
 */
export function refusedForNow(error: unknown): boolean {
  if (errorField(error, 'code') === 'slack_webapi_rate_limited_error') return true;
  return PASSING.has(platformErrorCode(error) ?? '');
}
