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
};

/** Slack mrkdwn to readable text: dates to their fallback, links to `label (url)`, entities decoded. */
export function mrkdwnToText(text: string): string {
  return text
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
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
    case 'static_select': {
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

export function renderBlocks(blocks: readonly Json[]): string {
  const out: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'header':
        out.push(`\n${textOf(block.text).toUpperCase()}`);
        break;
      case 'section': {
        const parts: string[] = [];
        if (block.text) parts.push(textOf(block.text));
        const fields = (block.fields ?? []) as Json[];
        for (let i = 0; i < fields.length; i += 2) {
          const row = fields.slice(i, i + 2).map((f) => textOf(f).replace(/\n/g, ': '));
          parts.push(row.map((cell) => cell.padEnd(38)).join(' '));
        }
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
