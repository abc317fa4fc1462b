/**
 * Decodes one raw path segment exactly once, as the live service does. Anything that could
 * only come from a client that failed to escape an id, or that tries to walk the path (`/`,
 * `\`, `..`, control characters, broken percent-encoding), is not an id: the caller answers
 * "not found" and the raw path stays in the request log for the test to inspect.
 */
export function decodeIdSegment(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (decoded === '' || decoded === '.' || decoded.includes('..')) return undefined;
  if (decoded.includes('/') || decoded.includes('\\') || hasControlCharacter(decoded)) {
    return undefined;
  }
  return decoded;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
