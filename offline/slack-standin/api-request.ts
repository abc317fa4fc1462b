import { isRecord } from './is-record.ts';

/**
 * Arguments that callers send as JSON text inside a form body: `WebClient` JSON-encodes every
 * non-primitive argument when it form-encodes a call. Only these are decoded, so a message `text`
 * that happens to look like JSON stays text, as Slack treats it.
 */
export const JSON_ARGUMENT_FIELDS: ReadonlySet<string> = new Set([
  'blocks',
  'attachments',
  'view',
  'metadata',
  'unfurls',
  'user_auth_blocks',
  'outputs',
  'files',
]);

export type ParsedArguments =
  | { ok: true; args: Record<string, unknown>; bodyToken: string | undefined }
  | { ok: false; error: 'invalid_json' | 'invalid_form_data' };

function decodeJsonFields(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (!JSON_ARGUMENT_FIELDS.has(key) || typeof value !== 'string') return [key, value];
      try {
        return [key, JSON.parse(value) as unknown];
      } catch {
        // Slack reports a field it cannot decode later, per field; keep it as sent.
        return [key, value];
      }
    }),
  );
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Reads a Web API call's arguments the way Slack accepts them: query string, form-encoded or
 * JSON body. A `token` argument is taken out and returned apart, since Slack accepts the token
 * there as well as in the Authorization header.
 */
export function parseApiArguments(
  contentType: string | undefined,
  rawBody: string,
  query: URLSearchParams,
): ParsedArguments {
  const fromQuery = Object.fromEntries(query);
  let fromBody: Record<string, unknown> = {};
  const type = mediaType(contentType);
  if (type === 'application/json' && rawBody.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody);
    } catch {
      return { ok: false, error: 'invalid_json' };
    }
    if (!isRecord(parsed)) return { ok: false, error: 'invalid_json' };
    fromBody = parsed;
  } else if (type === 'application/x-www-form-urlencoded' || (type === '' && rawBody !== '')) {
    fromBody = Object.fromEntries(new URLSearchParams(rawBody));
  } else if (rawBody !== '') {
    return { ok: false, error: 'invalid_form_data' };
  }
  const { token, ...args } = decodeJsonFields({ ...fromQuery, ...fromBody });
  return { ok: true, args, bodyToken: typeof token === 'string' ? token : undefined };
}

export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return match?.[1];
}
