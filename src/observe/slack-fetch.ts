import type { Metrics } from './metrics.ts';

// The Slack Web API client's fetch, counting the calls that fail by method and error code: an
// HTTP error, a network failure, or an answer of `ok: false`. The body is read once, here, and
// handed on as a new Response: a clone (a tee of the body stream) and a second JSON parse of
// every answer cost an editor opening about an eighth of its CPU, since views.open and
// views.update answer with the whole view.

const METHOD = /\/api\/([a-zA-Z]+(?:\.[a-zA-Z]+)+)$/;
const ERROR_CODE = /^[a-z_]{1,50}$/;
/** Slack writes `ok` first; an answer this short is read in full whatever its order. */
const SAYS_FAILED = /^\s*\{\s*"ok"\s*:\s*false/;
const SHORT = 2_048;

/** The Web API method a URL calls, or `other`. */
export function methodOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return METHOD.exec(path)?.[1] ?? 'other';
}

export function observedFetch(
  metrics: Pick<Metrics, 'slackApiFailure'>,
  base: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = methodOf(url);
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      metrics.slackApiFailure(method, 'network');
      throw error;
    }
    if (!response.ok) {
      metrics.slackApiFailure(method, `http_${response.status}`);
    } else if (response.headers.get('content-type')?.includes('json')) {
      const text = await response.text();
      if (text.length < SHORT || SAYS_FAILED.test(text)) {
        const code = failureCode(text);
        if (code !== undefined) metrics.slackApiFailure(method, code);
      }
      return new Response(text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    return response;
  };
}

/** The error code of an `ok: false` answer (`other` when it is not a plain code), else undefined. */
function failureCode(text: string): string | undefined {
  let answer: { ok?: unknown; error?: unknown } | null;
  try {
    answer = JSON.parse(text) as { ok?: unknown; error?: unknown } | null;
  } catch {
    return undefined;
  }
  if (answer?.ok !== false) return undefined;
  const code = typeof answer.error === 'string' ? answer.error : '';
  return ERROR_CODE.test(code) ? code : 'other';
}
