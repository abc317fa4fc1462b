// What the client tells of its requests, for whoever counts them (the app's metrics). The client
// owns this vocabulary: it knows what a request, a retry and a rate limit are; the counter only
// records them.

/** Status of a CometChat request: the class of its HTTP status, or why there was none. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'other';

export interface CometChatObserver {
  /** A request ended, retries and waits included, after `seconds`. */
  cometchatRequest(operation: string, status: StatusClass, seconds: number): void;
  /** An attempt is about to be retried. */
  cometchatRetry(operation: string): void;
  /** The service answered 429, whether or not the request was then retried. */
  cometchatRateLimited(operation: string): void;
}

/** The classes of an answer's status, from 2xx on. */
const ANSWER_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * An answer's status as its class; with no answer, the failure's kind when it says why (a
 * timeout, the network), else `other`. A class, never the status: a label takes few values.
 */
export function statusClassOf(status: number | undefined, kind?: string): StatusClass {
  const answered = status === undefined ? undefined : ANSWER_CLASSES[Math.floor(status / 100) - 2];
  if (answered) return answered;
  if (kind === 'timeout') return 'timeout';
  if (kind === 'network') return 'network';
  return 'other';
}
