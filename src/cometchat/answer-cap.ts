// No answer of CometChat's is large: a role list holds at most a hundred roles and a page of
// calls, the largest the app reads, about half a megabyte with every participant of every call.
// An answer far past that is a fault or an attack, and reading it whole would hold its size in
// memory (and again on a retry). So answers are read through a cap, and one past it fails at
// once, is not retried, and is never read to its end.

/** The largest answer read: several times the largest page the app asks for. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export class AnswerTooLarge extends Error {
  override readonly name = 'AnswerTooLarge';
  constructor(
    maxBytes: number,
    readonly status: number,
  ) {
    super(`answer larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
  }
}

/**
 * The answer, read through the cap (for the host's `afterResponse` hook, so ky clones each answer
 * once): one that says it is too large fails before its body is read; one of an unknown or
 * compressed length comes back as a new Response whose body fails as it crosses the cap (an
 * error ky does not retry); one of a known, uncompressed length within the cap is left as it is
 * (undefined).
 */
export function cappedAnswer(
  response: Response,
  maxBytes: number = MAX_ANSWER_BYTES,
): Response | undefined {
  const { status, statusText, headers, body } = response;
  const declared = headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw new AnswerTooLarge(maxBytes, status);
  // A length is the body's as it is read only when the body is not compressed: fetch inflates a
  // gzip answer as it reads, so its 50 KB can be 50 MB.
  if (declared !== null && headers.get('content-encoding') === null) return undefined;
  if (body === null) return undefined;
  let read = 0;
  const cap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      read += chunk.byteLength;
      if (read > maxBytes) controller.error(new AnswerTooLarge(maxBytes, status));
      else controller.enqueue(chunk);
    },
  });
  return new Response(body.pipeThrough(cap), { status, statusText, headers });
}
