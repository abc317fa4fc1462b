import type { Metrics } from './metrics.ts';

// The Slack Web API client's fetch, counting the calls that fail by method and error code: an
// HTTP error, a network failure, or an answer of `ok: false` (read from a copy of the body, after
// the caller has its answer, so it costs the caller nothing).

const METHOD = /\/api\/([a-zA-Z]+(?:\.[a-zA-Z]+)+)$/;
const ERROR_CODE = /^[a-z_]{1,50}$/;

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
      response
        .clone()
        .json()
        .then(
          (body: unknown) => {
            const answer = body as { ok?: unknown; error?: unknown } | null;
            if (answer?.ok !== false) return;
            const code = typeof answer.error === 'string' ? answer.error : '';
            metrics.slackApiFailure(method, ERROR_CODE.test(code) ? code : 'other');
          },
          () => {},
        );
    }
    return response;
  };
}
