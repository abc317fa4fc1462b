/**
 * Block Kit limits, checked before a payload leaves the app.
 *
 * Slack answers an oversized payload with `invalid_blocks` / `msg_blocks_too_long` (or silently
 * truncates `text`), which the user sees as a command that did nothing. These pure checks name
 * the offending path instead, and tests run them on every payload that reaches the Slack stand-in.
 *
 * The numbers are the limits of Slack's Block Kit reference. Lengths are counted in Unicode
 * code points (an emoji is one "character", not two UTF-16 units); strings are taken as sent,
 * so `&amp;` counts as five. Not checked here: the modal stack depth (a runtime matter, not a payload one).
 */
import type { Block, KnownBlock, View } from '@slack/types';

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  /** Any text object, unless a tighter limit below applies. */
  textObject: 3000,
  sectionFields: 10,
  sectionField: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  /** Checkboxes and radio buttons. */
  choiceOptions: 10,
  /** Static and multi-static selects: options, option groups, and options in one group. */
  selectOptions: 100,
  selectOptionGroups: 100,
  /** Slack's overflow menu reference: "up to five option objects". */
  overflowOptions: 5,
  /** Option `text`, `value`, `description`, and an option group's `label`. */
  option: 75,
  buttonText: 75,
  buttonValue: 2000,
  /** `action_id`, `block_id`, `callback_id`. */
  id: 255,
  /** Modal `title`, `submit`, `close`. */
  modalButton: 24,
  privateMetadata: 3000,
  /**
   * All blocks of one message together. Slack does not document how it measures this; it
   * answers `msg_blocks_too_long` at about 13,000 characters of content in practice. The
   * heuristic here sums the length of every `text` string in the blocks (text objects, markdown
   * and rich-text runs), i.e. what a reader sees, ignoring ids, urls and JSON syntax.
   */
  messageBlocksText: 13_000,
  /** Top-level message `text`; Slack truncates beyond it. */
  messageText: 40_000,
} as const;

/** What a message-posting call sends (chat.postMessage, chat.update, respond, ...). */
export interface MessagePayload {
  text?: string | undefined;
  blocks?: readonly (KnownBlock | Block)[] | undefined;
}

/** Violations of Slack's limits in a message, each naming its path; empty when fine. */
export function checkMessage(message: MessagePayload): string[] {
  return messageViolations(message);
}

/** Violations of Slack's limits in a modal or Home tab view; empty when fine. */
export function checkView(view: View): string[] {
  return viewViolations(view);
}

/** Thrown by {@link assertWithinLimits}; `violations` holds one line per problem. */
export class SlackLimitsError extends Error {
  override readonly name = 'SlackLimitsError';
  constructor(
    readonly kind: 'message' | 'view',
    readonly violations: readonly string[],
  ) {
    super(`${kind} exceeds Slack limits:\n- ${violations.join('\n- ')}`);
  }
}

/**
 * Throws a {@link SlackLimitsError} when the payload breaks a limit.
 *
 * Takes `unknown` because its callers are the Slack Web API stand-in and other test code that
 * hold decoded request bodies. The Web API client sends form-encoded calls with `blocks` (and
 * `view`) as JSON strings; those are decoded here, so a body can be passed as received.
 */
export function assertWithinLimits(kind: 'message' | 'view', payload: unknown): void {
  const out: string[] = [];
  if (kind === 'message') {
    const message = isRecord(payload)
      ? { ...payload, blocks: decodeJson(payload.blocks, 'blocks', out) }
      : payload;
    out.push(...messageViolations(message));
  } else {
    out.push(...viewViolations(decodeJson(payload, 'view', out)));
  }
  if (out.length > 0) throw new SlackLimitsError(kind, out);
}

type Json = Record<string, unknown>;

interface BlockScope {
  readonly out: string[];
  /** action_id -> path of its first use; Slack rejects a repeat within one block. */
  readonly actionIds: Map<string, string>;
}

/** Element types that may sit anywhere in a block kind this module has no specific rules for. */
const ELEMENT_TYPES = new Set([
  'button',
  'checkboxes',
  'channels_select',
  'conversations_select',
  'datepicker',
  'datetimepicker',
  'email_text_input',
  'external_select',
  'file_input',
  'multi_channels_select',
  'multi_conversations_select',
  'multi_external_select',
  'multi_static_select',
  'multi_users_select',
  'number_input',
  'overflow',
  'plain_text_input',
  'radio_buttons',
  'rich_text_input',
  'static_select',
  'timepicker',
  'url_text_input',
  'users_select',
  'workflow_button',
]);

function messageViolations(message: unknown): string[] {
  if (!isRecord(message)) return ['message: not an object'];
  const out: string[] = [];
  checkString(message.text, 'text', LIMITS.messageText, out);
  checkBlockList(message.blocks, LIMITS.messageBlocks, out);
  if (Array.isArray(message.blocks)) {
    const total = visibleTextLength(message.blocks);
    if (total > LIMITS.messageBlocksText) {
      out.push(
        `blocks: ${total} > ${LIMITS.messageBlocksText} characters of text in all blocks together (msg_blocks_too_long)`,
      );
    }
  }
  return out;
}

function viewViolations(view: unknown): string[] {
  if (!isRecord(view)) return ['view: not an object'];
  const out: string[] = [];
  checkString(view.callback_id, 'callback_id', LIMITS.id, out);
  checkString(view.private_metadata, 'private_metadata', LIMITS.privateMetadata, out);
  if (view.type === 'modal') {
    if (!isTextObject(view.title)) out.push('title: a modal needs a plain_text title');
    for (const key of ['title', 'submit', 'close']) {
      checkText(view[key], key, LIMITS.modalButton, out);
    }
    const hasInput =
      Array.isArray(view.blocks) && view.blocks.some((b) => isRecord(b) && b.type === 'input');
    // Slack rejects a modal with input blocks but no submit button.
    if (hasInput && view.submit === undefined) {
      out.push('submit: a modal with input blocks needs a submit button');
    }
  }
  if (view.blocks === undefined) out.push('blocks: missing');
  checkBlockList(view.blocks, LIMITS.viewBlocks, out);
  return out;
}

function checkBlockList(blocks: unknown, max: number, out: string[]): void {
  if (blocks === undefined) return;
  if (!Array.isArray(blocks)) {
    out.push('blocks: not an array');
    return;
  }
  if (blocks.length > max) out.push(`blocks: ${blocks.length} > ${max} blocks`);
  const blockIds = new Map<string, string>();
  blocks.forEach((block: unknown, index) => {
    const path = `blocks[${index}]`;
    checkBlock(block, path, out);
    if (isRecord(block) && typeof block.block_id === 'string') {
      noteUnique(block.block_id, `${path}.block_id`, blockIds, out, '');
    }
  });
}

function checkBlock(block: unknown, path: string, out: string[]): void {
  if (!isRecord(block)) {
    out.push(`${path}: not an object`);
    return;
  }
  const scope: BlockScope = { out, actionIds: new Map() };
  checkString(block.block_id, `${path}.block_id`, LIMITS.id, out);
  let handled: readonly string[] = [];
  switch (block.type) {
    case 'rich_text':
      // Rich text has its own structure of styled runs: no text objects, no interactive
      // elements, and no per-run limit; its text still counts towards the message total.
      return;
    case 'section':
      checkText(block.text, `${path}.text`, LIMITS.textObject, out);
      checkCount(block.fields, `${path}.fields`, LIMITS.sectionFields, 'fields', out);
      forEach(block.fields, `${path}.fields`, (field, p) =>
        checkText(field, p, LIMITS.sectionField, out),
      );
      if (isRecord(block.accessory)) checkElement(block.accessory, `${path}.accessory`, scope);
      handled = ['text', 'fields', 'accessory'];
      break;
    case 'header':
      checkText(block.text, `${path}.text`, LIMITS.headerText, out);
      handled = ['text'];
      break;
    case 'context':
      // Its elements are text objects and images: the generic walk below covers them.
      checkCount(block.elements, `${path}.elements`, LIMITS.contextElements, 'elements', out);
      break;
    case 'actions':
      checkCount(block.elements, `${path}.elements`, LIMITS.actionsElements, 'elements', out);
      forEach(block.elements, `${path}.elements`, (element, p) => {
        if (isRecord(element)) checkElement(element, p, scope);
      });
      handled = ['elements'];
      break;
    case 'input':
      if (isRecord(block.element)) checkElement(block.element, `${path}.element`, scope);
      handled = ['element'];
      break;
  }
  scanRest(block, path, handled, scope);
}

function checkElement(element: Json, path: string, scope: BlockScope): void {
  const { out } = scope;
  if (typeof element.action_id === 'string') {
    checkString(element.action_id, `${path}.action_id`, LIMITS.id, out);
    noteUnique(element.action_id, `${path}.action_id`, scope.actionIds, out, ' in this block');
  }
  const handled = ['action_id', 'options', 'option_groups', 'initial_option', 'initial_options'];
  switch (element.type) {
    case 'button':
      checkText(element.text, `${path}.text`, LIMITS.buttonText, out);
      checkString(element.value, `${path}.value`, LIMITS.buttonValue, out);
      handled.push('text', 'value');
      break;
    case 'checkboxes':
    case 'radio_buttons':
      checkCount(element.options, `${path}.options`, LIMITS.choiceOptions, 'options', out);
      break;
    case 'static_select':
    case 'multi_static_select':
      checkCount(element.options, `${path}.options`, LIMITS.selectOptions, 'options', out);
      checkCount(
        element.option_groups,
        `${path}.option_groups`,
        LIMITS.selectOptionGroups,
        'option groups',
        out,
      );
      break;
    case 'overflow':
      checkCount(element.options, `${path}.options`, LIMITS.overflowOptions, 'options', out);
      break;
  }
  forEach(element.options, `${path}.options`, (option, p) => checkOption(option, p, out));
  forEach(element.option_groups, `${path}.option_groups`, (group, p) => {
    if (!isRecord(group)) return;
    checkText(group.label, `${p}.label`, LIMITS.option, out);
    checkCount(group.options, `${p}.options`, LIMITS.selectOptions, 'options', out);
    forEach(group.options, `${p}.options`, (option, q) => checkOption(option, q, out));
  });
  checkOption(element.initial_option, `${path}.initial_option`, out);
  forEach(element.initial_options, `${path}.initial_options`, (option, p) =>
    checkOption(option, p, out),
  );
  // Whatever else the element carries (placeholder, confirm dialog, ...) is held to the
  // general text-object limit.
  scanRest(element, path, handled, scope);
}

function checkOption(option: unknown, path: string, out: string[]): void {
  if (!isRecord(option)) return;
  checkText(option.text, `${path}.text`, LIMITS.option, out);
  checkString(option.value, `${path}.value`, LIMITS.option, out);
  checkText(option.description, `${path}.description`, LIMITS.option, out);
}

/** Walks the keys not in `handled`: text objects get the general limit, elements their rules. */
function scanRest(node: Json, path: string, handled: readonly string[], scope: BlockScope): void {
  for (const [key, child] of Object.entries(node)) {
    if (!handled.includes(key)) scan(child, `${path}.${key}`, scope);
  }
}

function scan(node: unknown, path: string, scope: BlockScope): void {
  if (Array.isArray(node)) {
    forEach(node, path, (child, p) => scan(child, p, scope));
    return;
  }
  if (!isRecord(node)) return;
  if (isTextObject(node)) {
    checkText(node, path, LIMITS.textObject, scope.out);
  } else if (
    typeof node.action_id === 'string' ||
    (typeof node.type === 'string' && ELEMENT_TYPES.has(node.type))
  ) {
    checkElement(node, path, scope);
  } else {
    scanRest(node, path, [], scope);
  }
}

function visibleTextLength(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, n) => sum + visibleTextLength(n), 0);
  if (!isRecord(node)) return 0;
  let sum = 0;
  for (const [key, child] of Object.entries(node)) {
    sum += key === 'text' && typeof child === 'string' ? length(child) : visibleTextLength(child);
  }
  return sum;
}

function checkText(value: unknown, path: string, max: number, out: string[]): void {
  if (isTextObject(value)) checkString(value.text, path, max, out);
}

function checkString(value: unknown, path: string, max: number, out: string[]): void {
  if (typeof value !== 'string') return;
  const n = length(value);
  if (n > max) out.push(`${path}: ${n} > ${max} characters`);
}

function checkCount(value: unknown, path: string, max: number, noun: string, out: string[]) {
  if (Array.isArray(value) && value.length > max) {
    out.push(`${path}: ${value.length} > ${max} ${noun}`);
  }
}

function noteUnique(
  id: string,
  path: string,
  seen: Map<string, string>,
  out: string[],
  where: string,
): void {
  const first = seen.get(id);
  if (first === undefined) seen.set(id, path);
  else out.push(`${path}: duplicate ${JSON.stringify(id)}${where} (first at ${first})`);
}

function forEach(list: unknown, path: string, visit: (item: unknown, path: string) => void) {
  if (!Array.isArray(list)) return;
  list.forEach((item: unknown, i) => {
    visit(item, `${path}[${i}]`);
  });
}

function decodeJson(value: unknown, path: string, out: string[]): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    out.push(`${path}: not valid JSON`);
    return undefined;
  }
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTextObject(value: unknown): value is { type: 'plain_text' | 'mrkdwn'; text: string } {
  return (
    isRecord(value) &&
    (value.type === 'plain_text' || value.type === 'mrkdwn') &&
    typeof value.text === 'string'
  );
}

/** Code points, not UTF-16 units: an emoji counts as one character. */
function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
