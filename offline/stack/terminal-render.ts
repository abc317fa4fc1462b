// Renders Block Kit as plain terminal text, for the offline try: close enough to what Slack
// shows that a newcomer can read a reply, with no claim to be Slack's renderer. Pure.

type Json = Record<string, unknown>;

const WIDTH = 78;

/** The emoji the app writes, as a terminal can draw them. */
const EMOJI: Readonly<Record<string, string>> = {
  large_green_circle: '●',
  white_circle: '○',
  large_orange_circle: '◐',
  large_yellow_circle: '◐',
  large_blue_circle: '◍',
  black_circle: '◉',
  red_circle: '✕',
  heavy_minus_sign: '–',
  grey_question: '?',
  warning: '⚠',
  white_check_mark: '✔',
  x: '✘',
  hourglass_flowing_sand: '⏳',
  information_source: 'ℹ',
  hourglass: '⌛',
  movie_camera: '🎥',
  no_entry: '⛔',
  telephone_receiver: '☎',
  page_facing_up: '📄',
  bell: '🔔',
};

/** An ISO date to the minute, `2023-07-10 14:42` (UTC): narrow, and all a reader needs. */
const toMinute = (iso: string) => iso.replace(/^(\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\dZ$/, '$1 $2');

/**
 * Bold as Slack shows it: `*Role*` is drawn `Role`. An asterisk the app escaped (between
 * zero-width spaces, as in a name like `*Bold*`) and a code span stay as they are: Slack shows
 * both as written, and the difference is what the drawing should let a reader see.
 */
const ESCAPED_STAR = /\u200b\*\u200b/g;
const HELD_STAR = '\u{F0000}';
const BOLD = /(^|[\s(])\*([^*\s](?:[^*\n]*[^*\s])?)\*(?=$|[\s.,:;!?)])/gm;

function withoutBold(text: string): string {
  return text
    .replace(ESCAPED_STAR, HELD_STAR)
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(BOLD, '$1$2')))
    .join('')
    .replaceAll(HELD_STAR, '\u200b*\u200b');
}

/**
 * Slack mrkdwn to readable text: dates to their fallback (to the minute), bold as plain text,
 * links to `label (url)`, entities decoded. Code spans keep their backticks: they mark what is
 * exact to copy.
 */
export function mrkdwnToText(text: string): string {
  return withoutBold(text)
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, (_, fallback: string) => toMinute(fallback))
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<(https?:[^>]+)>/g, '$1')
    .replace(/:([a-z_]+):/g, (whole, name: string) => EMOJI[name] ?? whole)
    .replace(/\u200b/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function textOf(value: unknown): string {
  const t = value as { text?: unknown } | undefined;
  return typeof t?.text === 'string' ? mrkdwnToText(t.text) : '';
}

function indent(text: string, prefix = '  '): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

function elementText(element: Json): string {
  switch (element.type) {
    case 'button':
      return `[ ${textOf(element.text)} ]`;
    case 'static_select':
    case 'external_select': {
      const chosen = element.initial_option as Json | undefined;
      const shown = chosen ? textOf(chosen.text) : textOf(element.placeholder) || 'choose';
      return `‹${shown} ▾›`;
    }
    case 'image':
      return '';
    case 'mrkdwn':
    case 'plain_text':
      return textOf(element);
    default:
      return `‹${String(element.type)}›`;
  }
}

function inputText(block: Json): string {
  const element = (block.element ?? {}) as Json;
  const label = textOf(block.label);
  const chosen = new Set(((element.initial_options ?? []) as Json[]).map((o) => o.value));
  let body: string;
  switch (element.type) {
    case 'checkboxes':
      body = ((element.options ?? []) as Json[])
        .map((o) => `${chosen.has(o.value) ? '[x]' : '[ ]'} ${textOf(o.text)}`)
        .join('\n');
      break;
    case 'multi_static_select':
      body = chosen.size > 0 ? [...chosen].join(', ') : '(none selected)';
      break;
    case 'static_select':
      body = textOf((element.initial_option as Json | undefined)?.text) || '(not chosen)';
      break;
    case 'external_select':
      body = '(type to search)';
      break;
    case 'plain_text_input':
      body = typeof element.initial_value === 'string' ? element.initial_value : '(empty)';
      break;
    case 'datetimepicker':
      body = '(a date and a time)';
      break;
    default:
      body = `‹${String(element.type)}›`;
  }
  const hint = textOf(block.hint);
  return `${label}\n${indent(body)}${hint ? `\n${indent(`(${hint})`)}` : ''}`;
}

/** Characters a table may take across; a wider one gives its wrapped columns' room away. */
const TABLE_WIDTH = 140;
/** No column is drawn wider; a wrapped column, no narrower while the table must shrink. */
const COLUMN_MAX = 40;
const WRAPPED_MIN = 14;

/** A table cell as text: raw text as it is, rich text's runs as Slack shows them. */
export function cellText(cell: unknown): string {
  const c = (cell ?? {}) as Json;
  if (c.type === 'raw_text') return String(c.text ?? '');
  if (c.type !== 'rich_text') return '';
  const runs = ((c.elements ?? []) as Json[]).flatMap((e) => (e.elements ?? []) as Json[]);
  return runs.map(runText).join('');
}

function runText(run: Json): string {
  switch (run.type) {
    case 'text':
      return String(run.text ?? '');
    case 'emoji':
      return EMOJI[String(run.name)] ?? `:${String(run.name)}:`;
    case 'user':
      return `@${String(run.user_id)}`;
    case 'date':
      // The ISO fallback, to the minute, narrow enough for a column.
      return toMinute(typeof run.fallback === 'string' ? run.fallback : String(run.timestamp));
    case 'link':
      return String(run.text ?? run.url);
    default:
      return '';
  }
}

/** East Asian wide characters and emoji take two columns of a terminal; marks and joiners none. */
const WIDE =
  /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1FAFF}]/u;
const ZERO_WIDTH = /^(?:\p{M}|[\u200B-\u200D]|\uFE0F)$/u;

/** How many terminal columns `text` takes (near enough: no terminal agrees on every emoji). */
function widthOf(text: string): number {
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return width;
}

/** A word cut into pieces no wider than `width`. */
function pieces(word: string, width: number): string[] {
  const out: string[] = [];
  let piece = '';
  for (const char of word) {
    if (piece !== '' && widthOf(piece + char) > width) {
      out.push(piece);
      piece = '';
    }
    piece += char;
  }
  out.push(piece);
  return out;
}

/** Breaks `text` into lines at most `width` columns wide, at spaces where it can. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      for (const piece of pieces(word, width)) {
        const joined = line === '' ? piece : `${line} ${piece}`;
        if (widthOf(joined) <= width) {
          line = joined;
        } else {
          lines.push(line);
          line = piece;
        }
      }
    }
    lines.push(line);
  }
  return lines;
}

/**
 * Column widths: each as its widest line, within COLUMN_MAX; then, while the table is too wide,
 * the widest of the columns Slack wraps (`is_wrapped`) gives a character away. Ids and dates
 * keep their width: they are read whole.
 */
function columnWidths(grid: readonly string[][], settings: readonly Json[]): number[] {
  const widths: number[] = [];
  for (const row of grid) {
    row.forEach((cell, i) => {
      const widest = Math.max(...cell.split('\n').map(widthOf));
      widths[i] = Math.min(COLUMN_MAX, Math.max(widths[i] ?? 1, widest));
    });
  }
  const across = () => widths.reduce((sum, w) => sum + w + 3, -3);
  const shrinkable = () =>
    widths
      .map((w, i) => (settings[i]?.is_wrapped === true && w > WRAPPED_MIN ? i : -1))
      .filter((i) => i >= 0)
      .sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0));
  for (let next = shrinkable()[0]; across() > TABLE_WIDTH && next !== undefined; ) {
    widths[next] = (widths[next] ?? 0) - 1;
    next = shrinkable()[0];
  }
  return widths;
}

/** A table block as aligned columns, the header row underlined, wrapped cells on more lines. */
function tableText(block: Json): string {
  const grid = ((block.rows ?? []) as unknown[][]).map((row) => row.map(cellText));
  const settings = (block.column_settings ?? []) as Json[];
  const widths = columnWidths(grid, settings);
  const drawRow = (row: readonly string[]) => {
    const cells = widths.map((w, i) => wrap(row[i] ?? '', w));
    const height = Math.max(...cells.map((lines) => lines.length));
    return Array.from({ length: height }, (_, line) =>
      widths
        .map((w, i) => {
          const text = cells[i]?.[line] ?? '';
          const pad = ' '.repeat(Math.max(0, w - widthOf(text)));
          return settings[i]?.align === 'right' ? pad + text : text + pad;
        })
        .join(' │ ')
        .trimEnd(),
    );
  };
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  const [titles = [], ...rows] = grid;
  const body = rows.map(drawRow);
  // Rows of one line each read as a list; once one wraps, a rule keeps the rows apart.
  const apart = body.some((lines) => lines.length > 1);
  return [
    ...drawRow(titles),
    rule,
    ...body.flatMap((lines, i) => (apart && i > 0 ? [rule, ...lines] : lines)),
  ].join('\n');
}

/**
 * A header as it is written (its text may hold a uid or an action key, which are
 * case-sensitive), underlined; a blank line before it unless it opens the message.
 */
function headerText(block: Json, first: boolean): string {
  const text = textOf(block.text);
  return `${first ? '' : '\n'}${text}\n${'═'.repeat(Math.min(WIDTH, widthOf(text)))}`;
}

/** Where a section's second column of fields starts, the same in every section. */
const FIELD_WIDTH = 38;

/**
 * A section's fields two by two as Slack lays them out, each as `Label: value`; a first field
 * wider than its column pushes its neighbour along rather than touching it.
 */
function fieldsText(fields: readonly Json[]): string[] {
  const cells = fields.map((f) => textOf(f).replace(/\n/g, ': '));
  const rows: string[] = [];
  for (let i = 0; i < cells.length; i += 2) {
    const [first = '', second] = cells.slice(i, i + 2);
    const pad = ' '.repeat(Math.max(0, FIELD_WIDTH - widthOf(first)));
    rows.push(second === undefined ? first : `${first}${pad}   ${second}`);
  }
  return rows;
}

export function renderBlocks(blocks: readonly Json[]): string {
  const out: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'header':
        out.push(headerText(block, out.length === 0));
        break;
      case 'section': {
        const parts: string[] = [];
        if (block.text) parts.push(textOf(block.text));
        parts.push(...fieldsText((block.fields ?? []) as Json[]));
        const accessory = block.accessory as Json | undefined;
        if (accessory?.type === 'button') parts.push(`  ${elementText(accessory)}`);
        out.push(parts.join('\n'));
        break;
      }
      case 'context':
        out.push(
          ((block.elements ?? []) as Json[])
            .map(elementText)
            .filter(Boolean)
            .map((t) => `  ${t}`)
            .join('  '),
        );
        break;
      case 'actions':
        out.push(((block.elements ?? []) as Json[]).map(elementText).join(' '));
        break;
      case 'divider':
        out.push('─'.repeat(WIDTH));
        break;
      case 'input':
        out.push(inputText(block));
        break;
      case 'table':
        out.push(tableText(block));
        break;
      default:
        out.push(`‹${String(block.type)} block›`);
    }
  }
  return out.join('\n');
}

/**
 * A message: a reply to a command or click (seen by its author alone unless `in_channel`), or,
 * given `where`, one posted through the Web API (to a channel, a direct message).
 */
export function renderMessage(message: Json, where?: string): string {
  const blocks = message.blocks as Json[] | undefined;
  const visibility = where ?? (message.response_type === 'in_channel' ? 'in channel' : 'only you');
  const body = blocks ? renderBlocks(blocks) : mrkdwnToText(String(message.text ?? ''));
  return `┌ message (${visibility})\n${indent(body, '│ ')}\n└`;
}

export function renderView(view: Json): string {
  if (view.type === 'home') {
    return `╔ Home tab\n${indent(renderBlocks((view.blocks ?? []) as Json[]), '║ ')}\n╚`;
  }
  const title = textOf(view.title);
  const buttons = [view.close, view.submit]
    .filter(Boolean)
    .map((b) => `[ ${textOf(b)} ]`)
    .join(' ');
  const blocks = renderBlocks((view.blocks ?? []) as Json[]);
  return `╔ modal: ${title}\n${indent(blocks, '║ ')}\n║ ${buttons}\n╚`;
}
