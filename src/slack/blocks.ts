import type {
  ActionsBlock,
  Button,
  ContextBlock,
  HeaderBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  RawTextElement,
  RichTextBlock,
  RichTextElement,
  SectionBlock,
  TableBlock,
  View,
} from '@slack/types';
import type { SlackMessage } from './deliver.ts';
import { truncate } from './mrkdwn.ts';

// Small, pure Block Kit constructors shared by every feature. Text handed to them is already
// escaped mrkdwn (see mrkdwn.ts); they only enforce Slack's length limits.

export const TEXT_LIMIT = 3000;
export const FIELD_LIMIT = 2000;
/** The options a select shows (static or external), and the characters of an option's text. */
export const SELECT_OPTIONS_LIMIT = 100;
export const OPTION_TEXT_LIMIT = 75;
/**
 * The text of all a message's blocks together. Slack answers `msg_blocks_too_long` at about
 * 13,000 characters and does not say how it counts; {@link blocksTextLength} counts every `text`
 * string, and the margin covers the difference.
 */
export const MESSAGE_TEXT_LIMIT = 12_000;

/** The characters of every `text` string in `blocks` (text objects, elements, rich-text runs). */
export function blocksTextLength(blocks: readonly unknown[]): number {
  let total = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'text' && typeof inner === 'string') total += inner.length;
        else visit(inner);
      }
    }
  };
  visit(blocks);
  return total;
}

export function plain(text: string, max = 75): PlainTextElement {
  return { type: 'plain_text', text: truncate(text, max), emoji: true };
}

export function md(text: string, max = TEXT_LIMIT): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(text, max) };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plain(text, 150) };
}

export function section(text: string, accessory?: Button): SectionBlock {
  return { type: 'section', text: md(text), ...(accessory ? { accessory } : {}) };
}

export function fields(items: readonly string[]): SectionBlock {
  return { type: 'section', fields: items.slice(0, 10).map((item) => md(item, FIELD_LIMIT)) };
}

export function context(items: readonly string[]): ContextBlock {
  return { type: 'context', elements: items.slice(0, 10).map((item) => md(item)) };
}

export function divider(): KnownBlock {
  return { type: 'divider' };
}

export function button(
  text: string,
  actionId: string,
  value: string,
  style?: 'primary' | 'danger',
): Button {
  return {
    type: 'button',
    text: plain(text),
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  };
}

export function actions(elements: readonly Button[], blockId?: string): ActionsBlock {
  return { type: 'actions', elements: [...elements], ...(blockId ? { block_id: blockId } : {}) };
}

// Tables. A message may hold one `table` block (Slack refuses a second with
// `only_one_table_allowed`), and only a message: modals and the Home tab take none. Its cells
// are not mrkdwn: a `raw_text` cell shows its text as it is, and a `rich_text` cell is structured
// runs, so text from outside needs no escaping there (and gets none: no entities, no U+200B) and
// is copied exactly; only an explicit `user`, `channel`, `broadcast` or `link` element mentions
// or links, and the app writes those itself.

/** One cell of a {@link table}. */
export type TableCell = RawTextElement | RichTextBlock;
export type TableColumn = NonNullable<TableBlock['column_settings']>[number];

/** Slack's table: at most 100 rows (the header row among them) of at most 20 cells. */
export const TABLE_ROWS = 100;
export const TABLE_CELLS = 20;
const NOTHING = '—';

/**
 * A cell of plain text, shown and copied exactly as given up to `max` characters (then cut with
 * `…`). Slack refuses an empty cell, so empty text shows `—`.
 */
export function rawText(text: string, max = 300): RawTextElement {
  return { type: 'raw_text', text: text.trim() === '' ? NOTHING : truncate(text, max) };
}

/** A cell of rich text: one section of runs (text, `date`, `user`, `emoji`, ...). */
export function richText(elements: readonly RichTextElement[]): RichTextBlock {
  const shown = elements.filter((e) => e.type !== 'text' || e.text !== '');
  return {
    type: 'rich_text',
    elements: [
      {
        type: 'rich_text_section',
        elements: shown.length > 0 ? shown : [{ type: 'text', text: NOTHING }],
      },
    ],
  };
}

/**
 * A time as Slack's `date` element, in each reader's own zone, like `slackDate` in mrkdwn (rich
 * text cannot render `<!date>`); the fallback is ISO-8601 UTC. Undefined for no time, or one
 * that is not a real time.
 */
export function dateElement(
  unixSeconds: number | null | undefined,
  format = '{date_short_pretty} {time}',
): RichTextElement | undefined {
  if (typeof unixSeconds !== 'number' || !Number.isFinite(unixSeconds) || unixSeconds <= 0) {
    return undefined;
  }
  const timestamp = Math.floor(unixSeconds);
  const date = new Date(timestamp * 1000);
  if (Number.isNaN(date.getTime())) return undefined;
  return { type: 'date', timestamp, format, fallback: `${date.toISOString().slice(0, -5)}Z` };
}

/** A table cell of one {@link dateElement}; no time, or not a real one: `—`. */
export function dateCell(
  unixSeconds: number | null | undefined,
  format = '{date_short_pretty} {time}',
): TableCell {
  const element = dateElement(unixSeconds, format);
  return element ? richText([element]) : rawText('');
}

/**
 * A table block: a header row of plain titles, then the rows, cut to Slack's 100 rows of 20
 * cells (callers page well inside that). `columns` sets alignment and wrapping, by position.
 */
export function table(
  titles: readonly string[],
  rows: readonly (readonly TableCell[])[],
  columns: readonly TableColumn[] = [],
): TableBlock {
  return {
    type: 'table',
    rows: [titles.map((title) => rawText(title, 100)), ...rows.map((row) => [...row])]
      .slice(0, TABLE_ROWS)
      .map((row) => row.slice(0, TABLE_CELLS)),
    ...(columns.length > 0 ? { column_settings: columns.slice(0, TABLE_CELLS) } : {}),
  };
}

/** A plain notice, for refusals and input mistakes. */
export function noticeMessage(sentence: string): SlackMessage {
  return { text: sentence, blocks: [section(sentence)] };
}

/**
 * A modal that says one thing and can only be closed: a refusal, a failure, an outcome. Text is
 * escaped mrkdwn; blocks are used as given.
 */
export function messageModal(
  title: string,
  content: string | KnownBlock[],
  options: { callbackId?: string; clearOnClose?: boolean } = {},
): View {
  return {
    type: 'modal',
    ...(options.callbackId ? { callback_id: options.callbackId } : {}),
    title: plain(title, 24),
    close: plain('Close', 24),
    ...(options.clearOnClose !== undefined ? { clear_on_close: options.clearOnClose } : {}),
    blocks: typeof content === 'string' ? [section(content)] : content,
  };
}

/** The message without its rows of buttons (page buttons, share), keeping a section's own. */
export function withoutActions<M extends { blocks?: { type: string }[] }>(message: M): M {
  return message.blocks
    ? { ...message, blocks: message.blocks.filter((b) => b.type !== 'actions') }
    : message;
}

/**
 * The copy that "Share in channel" posts: no buttons at all (not even a section's own, like
 * Edit or Details), since they would act for whoever clicks them, not the sharer.
 */
export function sharedCopy(message: SlackMessage): SlackMessage {
  const { blocks } = withoutActions(message);
  return {
    ...message,
    ...(blocks
      ? {
          blocks: blocks.map((block) => {
            if (block.type !== 'section' || block.accessory?.type !== 'button') return block;
            const { accessory: _button, ...rest } = block;
            return rest;
          }),
        }
      : {}),
    response_type: 'in_channel',
    replace_original: false,
  };
}
