import { errorResponse } from './errors.ts';
import type { SandboxResponse } from './response.ts';

/** The request body as the HTTP layer read it. */
export type RequestBody =
  | { kind: 'empty' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid'; text: string };

/** A 400 naming one field, the way the service reports a failed validation. */
export function badRequest(field: string, message: string): SandboxResponse {
  return errorResponse('ERR_BAD_REQUEST', { details: { [field]: [message] } });
}

/** Validation issues as the service's `details`: each field's messages, keyed by its name. */
export function detailsOf(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? 'body');
    details[field] = [...(details[field] ?? []), issue.message];
  }
  return details;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a write sent, when it was sent as JSON: the parsed value (undefined for no body), or the
 * 400 the service answers when the type is not JSON or the text does not parse.
 */
export function jsonBody(
  contentType: string | undefined,
  body: RequestBody,
): { ok: true; value: unknown } | { ok: false; response: SandboxResponse } {
  if (!/^application\/json\b/i.test(contentType ?? '')) {
    const message = 'The request body must be JSON (Content-Type: application/json).';
    return { ok: false, response: badRequest('body', message) };
  }
  if (body.kind === 'invalid') {
    return { ok: false, response: badRequest('body', 'The request body is not valid JSON.') };
  }
  return { ok: true, value: body.kind === 'json' ? body.value : undefined };
}
