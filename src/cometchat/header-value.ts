/**
 * What fetch accepts as a header value: Latin-1 (it sends headers as bytes, one per code unit),
 * without NUL, CR or LF, and not starting or ending with a space or tab (it would trim them).
 */
const HEADER_VALUE = /^(?![\t ])[^\0\r\n\u0100-\uffff]*(?<![\t ])$/;

/**
 * Whether `value` can be sent as an HTTP header value as it is. fetch throws a TypeError for one
 * it cannot send, which would read as a network failure; callers check first and refuse.
 */
export function fitsHeader(value: string): boolean {
  return HEADER_VALUE.test(value);
}
