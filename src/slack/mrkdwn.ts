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
  const body = codeBody(text);
  return body === '' ? '' : `\`${body}\``;
}

const ENTITY: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>' };

/**
 * What a reader sees of mrkdwn these helpers made, as plain text, for a field that is not
 * mrkdwn (a workflow step's output or error): code spans' and bold's marks taken off, a user's
 * mention as their id and a channel's as `#` and its name (else its id), entities and the U+200B
 * around escaped marks (and before a quote's `>`) undone.
 */
export function plainOfMrkdwn(text: string): string {
  return text
    .replace(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g, '$1')
    .replace(/<#(C[A-Z0-9]+|G[A-Z0-9]+)(?:\|([^>]*))?>/g, (_: string, id: string, name?: string) =>
      name ? `#${name}` : `#${id}`,
    )
    .replace(
      /`([^`]*)`|\u200B([*_~`])\u200B|\*/g,
      (_: string, span?: string, escaped?: string) => span ?? escaped ?? '',
    )
    .replace(/^\u200B(?=&gt;)/gm, '')
    .replace(/&(amp|lt|gt);/g, (_, name: string) => ENTITY[name] ?? name);
}

/**
 * {@link code} of `text` cut to what shows in at most `max` characters inside the span: cut first,
 * then escaped (see {@link escapedUpTo}).
 */
export function codeUpTo(text: string, max: number): string {
  const body = cutThenEscape(text, max, codeBody);
  return body === '' ? '' : `\`${body}\``;
}

/** What goes between the backticks of {@link code}. */
function codeBody(text: string): string {
  return NEEDS_CODE.test(text)
    ? escapeControl(text)
        .replace(/`/g, '\u02CB')
        .replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')
    : text;
}

/**
 * External text as mrkdwn in at most `max` characters: cut first, then escaped. The cut falls
 * between whole characters of the text itself, so it can never split what escaping writes (an
 * entity, a U+200B pair), and it keeps as much as fits once escaped (an `&` becomes five
 * characters), so the bound holds on what is sent.
 */
export function escapedUpTo(text: string, max: number): string {
  return cutThenEscape(text, max, escapeMrkdwn);
}

/**
 * `escaped(text)` when it fits in `max` characters; else the longest start of `text`, cut between
 * whole user-perceived characters and trimmed, whose escaping fits with `…` after it.
 */
function cutThenEscape(text: string, max: number, escaped: (text: string) => string): string {
  checkMax(max);
  const whole = escaped(text);
  if (whole.length <= max) return whole;
  if (max < ELLIPSIS.length) return '';
  // Escaping never shortens a character, so no more than `max` of them can fit; and a longer
  // start never escapes shorter, so the longest that fits is found by halving.
  const units = leadingUnits(text, max);
  const shown = (count: number) => escaped(units.slice(0, count).join('').trimEnd());
  let fits = 0;
  let over = units.length + 1;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (shown(middle).length + ELLIPSIS.length <= max) fits = middle;
    else over = middle;
  }
  return `${shown(fits)}${ELLIPSIS}`;
}

/** The first `count` user-perceived characters of `text` (fewer when it has fewer). */
function leadingUnits(text: string, count: number): string[] {
  // ASCII, CR aside (CR LF is one character), is one character a code unit: the one past the
  // cut is looked at too, for a combining mark that would belong to the last one kept.
  if (ASCII_NO_CR.test(text.slice(0, count + 1))) return [...text.slice(0, count)];
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  const units: string[] = [];
  for (const { segment } of graphemes.segment(text)) {
    if (units.length === count) break;
    units.push(segment);
  }
  return units;
}
const ASCII_NO_CR = /^[^\r\u0080-\uffff]*$/;

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
 * Pieces of mrkdwn (each made safe already) joined by `separator`: as many whole pieces as fit in
 * `max` characters, then `…and N more` (that alone when not one fits). Composed mrkdwn is bounded
 * so, never cut: a cut could leave a span or bold open, or drop what follows it.
 */
export function joinedUpTo(pieces: readonly string[], separator: string, max: number): string {
  const total = pieces.length;
  const withMore = (shown: string, kept: number) => {
    if (kept === total) return shown;
    const more = `…and ${total - kept} more`;
    return kept === 0 ? more : `${shown}${separator}${more}`;
  };
  let shown = '';
  let best = withMore('', 0);
  for (const [i, piece] of pieces.entries()) {
    shown = i === 0 ? piece : `${shown}${separator}${piece}`;
    if (shown.length > max) break;
    const candidate = withMore(shown, i + 1);
    if (candidate.length <= max) best = candidate;
  }
  return best;
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
 * characters (never inside a surrogate pair, an emoji sequence or a combining mark).
 *
 * External text is cut before it is escaped: `escapeMrkdwn(truncate(text, n))`, or
 * {@link escapedUpTo} and {@link codeUpTo}, which keep the bound on the escaped text. Composed
 * mrkdwn is bounded by what it is made of, not cut; a bound that cuts it all the same (a Block
 * Kit limit, blocks.ts) never splits an entity (`&amp;`), a `<…>` control sequence (mention,
 * link, date) or a U+200B-wrapped formatting character from {@link escapeMrkdwn}.
 */
export function truncate(text: string, max: number): string {
  checkMax(max);
  if (text.length <= max) return text;
  if (max < ELLIPSIS.length) return '';
  const budget = max - ELLIPSIS.length;
  // Segmenting is the costly part (a roles page cuts dozens of cells), and plain text up to one
  // past the cut has nothing to keep whole: every character there is a unit of its own.
  const head = text.slice(0, budget + 1);
  return `${(PLAIN.test(head) ? head.slice(0, budget) : wholeUnitsUpTo(text, budget)).trimEnd()}${ELLIPSIS}`;
}

function checkMax(max: number): void {
  if (!Number.isInteger(max) || max < 0) {
    throw new RangeError(`truncate: max must be a non-negative integer, got ${max}`);
  }
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
