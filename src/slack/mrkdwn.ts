/**
 * Safe mrkdwn from external strings (CometChat names, ids, descriptions, URLs).
 *
 * Slack parses `&`, `<` and `>` as control characters: unescaped, a role called `<!channel>`
 * pings a whole channel and `<https://evil|docs>` becomes a disguised link. Everything from
 * outside the app goes through one of these helpers before it is put into `mrkdwn` text.
 * (`plain_text` objects are not parsed and need none of this.)
 */

const ZWSP = '\u200B';
const ELLIPSIS = '…';
const MISSING = '—';

const CONTROL: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// Most external text needs no escaping at all: one test, then no new string (a role list
// renders about two hundred of these).
const NEEDS_CONTROL = /[&<>]/;
const NEEDS_MRKDWN = /[&<>*_~`]/;
const NEEDS_CODE = /[&<>`\r\n\u2028\u2029]/;

function escapeControl(text: string): string {
  if (!NEEDS_CONTROL.test(text)) return text;
  return text.replace(/[&<>]/g, (c) => CONTROL[c] ?? c);
}

/**
 * Escapes external text for mrkdwn: `&<>` become entities, and formatting characters can
 * neither start nor end bold, italics, strike-through or code.
 *
 * Slack has no escape for `*`, `_`, `~` and `` ` ``; it only treats one as a delimiter at a word
 * boundary (`*bold*` formats, `a*b*c` does not). Each of them is wrapped in U+200B ZERO WIDTH
 * SPACE, so it is never next to a boundary: whether a parser takes U+200B for a letter or for a
 * space, a delimiter needs a boundary on one side and a non-space on the other, which a
 * character with U+200B on both sides cannot have. So a name like `*_~` cannot break the
 * surrounding `*${name}*`. Unlike Unicode look-alikes (`∗`, `ˍ`), the reader still sees the
 * real characters, and removing U+200B gives back the (entity-escaped) original.
 * A `>` at the start of a line would open a block quote, so a U+200B goes before it too.
 *
 * Identifiers people copy (session ids, uids) are better shown with {@link code}, which leaves
 * them as they are.
 */
export function escapeMrkdwn(text: string): string {
  if (!NEEDS_MRKDWN.test(text)) return text;
  return escapeControl(text)
    .replace(/[*_~`]/g, `${ZWSP}$&${ZWSP}`)
    .replace(/^&gt;/gm, `${ZWSP}&gt;`);
}

/**
 * Inline code for an external string. Inside a code span Slack applies no other formatting, so
 * only `&<>` are escaped, and characters a reader may copy (`_` in `cometchat-uid_1`) stay
 * untouched. A backtick would end the span and cannot be escaped; it becomes U+02CB MODIFIER
 * LETTER GRAVE ACCENT, which looks the same. Line breaks become spaces: a code span is one line.
 * Put the result after a space or punctuation: Slack only opens a span at a word boundary.
 */
export function code(text: string): string {
  return codeUpTo(text, Number.POSITIVE_INFINITY);
}

/** {@link code} whose text is cut (after escaping) to at most `max` characters. */
export function codeUpTo(text: string, max: number): string {
  const body = NEEDS_CODE.test(text)
    ? escapeControl(text)
        .replace(/`/g, '\u02CB')
        .replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')
    : text;
  const shown = body.length > max ? truncate(body, max) : body;
  return shown === '' ? '' : `\`${shown}\``;
}

/**
 * External text as mrkdwn in at most `max` characters: escaped, then cut. Escaping first keeps
 * the bound true (an `&` becomes five characters) and the cut never splits an entity.
 */
export function escapedUpTo(text: string, max: number): string {
  return truncate(escapeMrkdwn(text), max);
}

/**
 * Identifiers people copy (role ids, uids), one {@link code} span each and a list joined with
 * `, `, so each copies exactly, with no U+200B from {@link escapeMrkdwn}. A string is one id.
 * With `max`, whole ids are kept while their text fits in `max` characters (the first always),
 * then `…` says there are more: an id is never cut, since a cut id copies wrong.
 */
export function codeList(ids: string | readonly string[], max = Number.POSITIVE_INFINITY): string {
  const kept: string[] = [];
  let length = 0;
  for (const id of typeof ids === 'string' ? [ids] : ids) {
    const span = code(id);
    if (span === '') continue;
    length += (kept.length > 0 ? 2 : 0) + id.length;
    if (kept.length > 0 && length > max) return `${kept.join(', ')}, ${ELLIPSIS}`;
    kept.push(span);
  }
  return kept.join(', ');
}

/**
 * A link when `url` is an absolute http(s) URL, else just the escaped label, so a `javascript:`
 * or `slack://` URL from outside never becomes clickable. In the URL, `|` (which would end it)
 * and `<>` are percent-encoded and `&` is written `&amp;` as Slack expects; the label is
 * escaped with {@link escapeMrkdwn}. An empty label shows the URL.
 */
export function link(url: string, label: string): string {
  const href = httpHref(url);
  if (href === undefined) return escapeMrkdwn(label === '' ? url : label);
  return label === '' ? `<${href}>` : `<${href}|${escapeMrkdwn(label)}>`;
}

function httpHref(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  return parsed.href.replace(/[|<>]/g, (c) => encodeURIComponent(c)).replace(/&/g, '&amp;');
}

/**
 * Cuts `text` to at most `max` UTF-16 units (so at most `max` characters as Slack counts them),
 * ending with `…` when something was cut. It cuts only between whole user-perceived
 * characters (never inside a surrogate pair, an emoji sequence or a combining mark) and never
 * inside an entity (`&amp;`), a `<…>` control sequence (mention, link, date) or a
 * U+200B-wrapped formatting character from {@link escapeMrkdwn}: so escape first, then cut.
 */
export function truncate(text: string, max: number): string {
  if (!Number.isInteger(max) || max < 0) {
    throw new RangeError(`truncate: max must be a non-negative integer, got ${max}`);
  }
  if (text.length <= max) return text;
  if (max < ELLIPSIS.length) return '';
  const budget = max - ELLIPSIS.length;
  // Segmenting is the costly part (a roles page cuts dozens of cells), and plain text up to one
  // past the cut has nothing to keep whole: every character there is a unit of its own.
  const head = text.slice(0, budget + 1);
  return `${(PLAIN.test(head) ? head.slice(0, budget) : wholeUnitsUpTo(text, budget)).trimEnd()}${ELLIPSIS}`;
}

/**
 * ASCII without what starts an entity or a `<…>` sequence (`&`, `<`) and without CR (CR LF is one
 * character): between any two of these, a cut splits nothing.
 */
const PLAIN = /^[\t\n\x20-\x25\x27-\x3b\x3d-\x7e]*$/;

/** The longest run of whole units from the start of `text` within `budget` UTF-16 units. */
function wholeUnitsUpTo(text: string, budget: number): string {
  let kept = '';
  for (const unit of uncuttableUnits(text)) {
    if (kept.length + unit.length > budget) break;
    kept += unit;
  }
  return kept;
}

/** Split with a capture group: odd indices are the atoms, even indices the text between. */
const ATOM = /(&(?:[a-z][a-z0-9]*|#[0-9]+|#x[0-9a-f]+);|<[^<>]*>|\u200B[*_~`]\u200B)/i;
/**
 * Made on first use: the first Intl object a process makes loads ICU's data, 10–20 ms that
 * start-up need not wait for (plain ASCII, the common case, is cut without it).
 */
let graphemes: Intl.Segmenter | undefined;

function* uncuttableUnits(text: string): Generator<string> {
  const parts = text.split(ATOM);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (i % 2 === 1) yield part;
    else {
      graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
      for (const { segment } of graphemes.segment(part)) yield segment;
    }
  }
}

/**
 * `<!date^UNIX^FORMAT|FALLBACK>`: Slack shows the time in each reader's own zone; clients that
 * cannot render it show the ISO-8601 UTC fallback. `format` is a trusted template of Slack date
 * tokens, not external text. Missing, non-finite, zero or negative times give `—`: upstream
 * APIs use 0 for "not set", and no call predates 1970.
 */
export function slackDate(
  unixSeconds: number | null | undefined,
  format = '{date_short_pretty} {time}',
): string {
  if (typeof unixSeconds !== 'number' || !Number.isFinite(unixSeconds) || unixSeconds <= 0) {
    return MISSING;
  }
  const seconds = Math.floor(unixSeconds);
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return MISSING;
  // Without the milliseconds (always three digits: `.000Z`).
  const iso = `${date.toISOString().slice(0, -5)}Z`;
  return `<!date^${seconds}^${format}|${iso}>`;
}

/** `HH:MM:SS` (hours grow past 99 if needed); fractions are dropped; invalid or negative: `—`. */
export function hms(totalSeconds: number | null | undefined): string {
  if (typeof totalSeconds !== 'number' || !Number.isFinite(totalSeconds) || totalSeconds < 0) {
    return MISSING;
  }
  const s = Math.floor(totalSeconds);
  const parts = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return parts.map((n) => String(n).padStart(2, '0')).join(':');
}

/** The length of a call; the same as {@link hms}, named for what it shows. */
export const duration = hms;
