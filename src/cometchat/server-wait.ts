/**
 * Headers read, first present wins, for the wait an answer asks for: CometChat sends
 * `X-Rate-Limit-Reset` beside `Retry-After`, and a 429 with only the former must not be waited
 * for past the budget either. The same headers, in the same order, as ky reads; the client reads
 * them itself (see ky-instance.ts, `afterStatusCodes`) because ky takes only whole seconds and
 * judges a reset time by the machine's clock, not the client's.
 */
const WAIT_HEADERS = [
  'retry-after',
  'ratelimit-reset',
  'x-ratelimit-retry-after',
  'x-ratelimit-reset',
  'x-rate-limit-reset',
];
/** A wait this large (in ms) is a Unix timestamp. */
const TIMESTAMP_FROM_MS = Date.parse('2024-01-01');

/**
 * The wait in ms the answer's headers ask for, judged on the clock `now`: seconds (`0.5` too), a
 * Unix time in seconds, or an HTTP date. Undefined when no header says or none can be read.
 */
export function serverWaitMs(headers: Headers, now: () => number): number | undefined {
  const header = WAIT_HEADERS.map((name) => headers.get(name)).find((value) => value !== null);
  if (!header) return undefined;
  let ms = Number(header) * 1000;
  if (Number.isNaN(ms)) ms = Date.parse(header) - now();
  else if (ms >= TIMESTAMP_FROM_MS) ms -= now();
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
}
