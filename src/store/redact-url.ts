/**
 * A URL fit for an error message or a log line: its password is replaced by `***`. A username
 * that stands alone is hidden too, because `redis://PASSWORD@host` is a common slip.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    else if (parsed.username) parsed.username = '***';
    return parsed.href;
  } catch {
    // Not a URL the WHATWG parser accepts: still hide anything between `//` and `@`.
    return url.replace(/\/\/[^/@]*@/, '//***@');
  }
}
