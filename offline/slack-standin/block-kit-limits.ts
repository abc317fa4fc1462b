/**
 * Block Kit limits: one table, one way of counting, one walk over a payload, for two callers.
 *
 * - The Slack stand-in refuses what Slack would refuse, so a payload that overflows a limit fails
 *   offline the way it would fail in a real workspace: {@link blockKitProblems} and
 *   {@link viewProblems} give the refusals in Slack's `response_metadata.messages` style
 *   (`[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]`).
 * - Tests check every payload that reached the stand-in: {@link checkMessage}, {@link checkView}
 *   and {@link assertWithinLimits} name each violation by path with the count that broke it
 *   (`blocks[0].text: 3001 > 3000 characters`), including what Slack does not refuse but still
 *   mishandles: `msg_blocks_too_long` (a heuristic) and a truncated message `text`.
 * Both render the same violations, found once.
 *
 * The numbers are those of Slack's Block Kit reference (https://docs.slack.dev/reference/block-kit/,
 * summarised in shared/slack/platform-limits.md).
 *
 * How characters are counted. The reference states every length in "characters" and never says
 * what a character is. The one Slack page that pins the word down is the legacy RTM API's
 * "Limits" (https://docs.slack.dev/legacy/legacy-rtm-api#limits): 4000 characters "will always be
 * under 16k bytes even with a message comprised solely of non-BMP Unicode characters at 4 bytes
 * each". That arithmetic holds only if a character is a Unicode code point: a code point outside
 * the Basic Multilingual Plane is the widest case, four UTF-8 bytes (in UTF-16 units it would be
 * two characters, and a grapheme cluster such as a skin-toned emoji is eight bytes or more, which
 * would break the bound). That page is about RTM message text, not Block Kit, so it is the best
 * evidence rather than a statement; code points are also the usual reading of "characters" for
 * Slack's servers. So {@link countCharacters} counts code points:
 * - 😀 (U+1F600) is one character, though it is two UTF-16 units (`'😀'.length === 2`);
 * - `e` + U+0301 (a combining acute accent) is two, though it shows as one é;
 * - a string is measured as sent: `&amp;` is five. Slack does not say it decodes mrkdwn's
 *   entities before measuring; counting the escaped form can only err on the strict side.
 *
 * Tables (https://docs.slack.dev/reference/block-kit/blocks/table-block/): at most 100 rows of at
 * most 20 cells, each `raw_text` (with some text) or `rich_text`, at most 20 column settings; one
 * table per message (Slack answers `only_one_table_allowed` to a second), and none in a modal or
 * a Home tab, which are not messages. The stand-in refuses both as `invalid_blocks` (a view's as
 * `invalid_arguments`) like its other refusals, with Slack's word in the message.
 *
 * Not checked here: the modal stack depth (a runtime matter, not a payload one).
 */
import type { Block, KnownBlock, View } from '@slack/types';
import { isRecord } from './is-record.ts';

export const BLOCK_KIT_LIMITS = Object.freeze({
  messageBlocks: 50,
  /** Modals and Home tabs. */
  viewBlocks: 100,
  /** Any text object, unless a tighter limit below applies. */
  textObject: 3000,
  sectionFields: 10,
  sectionField: 2000,
  headerText: 150,
  /** An input block's `label` and `hint`. */
  inputLabel: 2000,
  contextElements: 10,
  actionsElements: 25,
  /** Checkboxes and radio buttons. */
  choiceOptions: 10,
  /** Static and multi-static selects: options, and options in one group. */
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
  /** A table's rows, its header row among them. */
  tableRows: 100,
  /** Cells in one row of a table. */
  tableCells: 20,
  tableColumnSettings: 20,
  /** In one message; a modal or Home tab takes none. */
  tablesPerMessage: 1,
  /** Modal `title`, `submit`, `close`. */
  modalTitle: 24,
  privateMetadata: 3000,
  /**
   * All blocks of one message together. Slack does not document how it measures this; it
   * answers `msg_blocks_too_long` at about 13,000 characters of content in practice. The
   * heuristic here sums the length of every `text` string in the blocks (text objects, markdown,
   * rich-text runs and table cells, `raw_text` or rich), i.e. what a reader sees, ignoring ids,
   * urls and JSON syntax.
   */
  messageBlocksText: 13_000,
  /** Top-level message `text`; Slack truncates beyond it (`message_truncated`). */
  messageText: 40_000,
});

/** Slack's characters: Unicode code points (see the header for why). */
export function countCharacters(text: string): number {
  // A surrogate pair is one code point, as `for...of` counts (a lone surrogate is one too).
  // Most text has none: one regex pass, which then allocates nothing, is far cheaper than
  // walking every reply's strings.
  return text.length - (text.match(PAIRS)?.length ?? 0);
}
const PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** What a message-posting call sends (chat.postMessage, chat.update, respond, ...). */
export interface MessagePayload {
  text?: string | undefined;
  blocks?: readonly (KnownBlock | Block)[] | undefined;
}

/**
 * Slack's refusals for `blocks` found at `pointer` (`/blocks` in a message), in Slack's words;
 * empty when Slack accepts them.
 */
export function blockKitProblems(blocks: unknown, pointer: string, maxBlocks: number): string[] {
  const out: Violation[] = [];
  checkBlockList(blocks, { pointer, path: 'blocks' }, maxBlocks, out, 'message');
  return refusals(out);
}

/** Slack's refusals for a view sent to `views.open`, `views.update` or `views.push` (modals only). */
export function viewProblems(view: unknown): string[] {
  const out: Violation[] = [];
  viewViolations(view, ['modal'], out);
  return refusals(out);
}

/** Slack's refusals for a view sent to `views.publish` (Home tabs only). */
export function homeViewProblems(view: unknown): string[] {
  const out: Violation[] = [];
  viewViolations(view, ['home'], out);
  return refusals(out);
}

/** Violations of Slack's limits in a message, each naming its path; empty when fine. */
export function checkMessage(message: MessagePayload): string[] {
  const out: Violation[] = [];
  messageViolations(message, out);
  return out.map(describe);
}

/** Violations of Slack's limits in a modal or Home tab view; empty when fine. */
export function checkView(view: View): string[] {
  const out: Violation[] = [];
  viewViolations(view, VIEW_TYPES, out);
  return out.map(describe);
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
  const out: Violation[] = [];
  if (kind === 'message') {
    const message = isRecord(payload)
      ? {
          ...payload,
          blocks: decodeJson(payload.blocks, { pointer: '/blocks', path: 'blocks' }, out),
        }
      : payload;
    messageViolations(message, out);
  } else {
    viewViolations(decodeJson(payload, { pointer: '/view', path: 'view' }, out), VIEW_TYPES, out);
  }
  if (out.length > 0) throw new SlackLimitsError(kind, out.map(describe));
}

/** Where a value sits: as Slack's JSON pointer, and as a path for a person. */
interface Where {
  readonly pointer: string;
  readonly path: string;
}

/** What Slack does about a violation. */
type Outcome =
  /** Refuses the call: `invalid_blocks`, or `invalid_arguments` for a view. */
  | 'refused'
  /** Refuses the message with `msg_blocks_too_long` (the heuristic above). */
  | 'msg_blocks_too_long'
  /** Posts it with `text` cut short and a `message_truncated` warning. */
  | 'truncated';

interface Violation extends Where {
  /** Slack's wording, without the pointer: `must be less than 3001 characters`. */
  readonly slack: string;
  /** The count or reason, for a person: `3001 > 3000 characters`. */
  readonly detail: string;
  readonly outcome: Outcome;
}

interface BlockScope {
  readonly out: Violation[];
  /** action_id -> path of its first use; Slack rejects a repeat within one block. */
  readonly actionIds: Map<string, string>;
}

type Json = Record<string, unknown>;

const MESSAGE_ROOT: Where = { pointer: '', path: '' };
const VIEW_ROOT: Where = { pointer: '/view', path: '' };
const VIEW_TYPES = ['modal', 'home'] as const;

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

function refusals(violations: readonly Violation[]): string[] {
  return violations
    .filter((v) => v.outcome === 'refused')
    .map((v) => `[ERROR] ${v.slack} [json-pointer:${v.pointer}]`);
}

function describe(v: Violation): string {
  return `${v.path}: ${v.detail}`;
}

function report(
  out: Violation[],
  where: Where,
  slack: string,
  detail: string,
  outcome: Outcome = 'refused',
): void {
  out.push({ pointer: where.pointer, path: where.path, slack, detail, outcome });
}

function child(where: Where, key: string | number): Where {
  const path =
    typeof key === 'number' ? `${where.path}[${key}]` : where.path ? `${where.path}.${key}` : key;
  return { pointer: `${where.pointer}/${key}`, path };
}

/** A field that is missing: Slack points at the object that lacks it, a person at the field. */
function missing(out: Violation[], parent: Where, field: string, detail = 'missing'): void {
  report(
    out,
    { pointer: parent.pointer, path: child(parent, field).path },
    `missing required field: ${field}`,
    detail,
  );
}

function messageViolations(message: unknown, out: Violation[]): void {
  if (!isRecord(message)) {
    report(out, { pointer: '', path: 'message' }, 'expected an object', 'not an object');
    return;
  }
  if (typeof message.text === 'string') {
    const n = countCharacters(message.text);
    const max = BLOCK_KIT_LIMITS.messageText;
    if (n > max) {
      report(
        out,
        child(MESSAGE_ROOT, 'text'),
        'message_truncated',
        `${n} > ${max} characters`,
        'truncated',
      );
    }
  }
  const blocks = child(MESSAGE_ROOT, 'blocks');
  checkBlockList(message.blocks, blocks, BLOCK_KIT_LIMITS.messageBlocks, out, 'message');
  if (Array.isArray(message.blocks)) {
    const total = visibleTextLength(message.blocks);
    const max = BLOCK_KIT_LIMITS.messageBlocksText;
    if (total > max) {
      report(
        out,
        blocks,
        'msg_blocks_too_long',
        `${total} > ${max} characters of text in all blocks together (msg_blocks_too_long)`,
        'msg_blocks_too_long',
      );
    }
  }
}

function viewViolations(view: unknown, types: readonly string[], out: Violation[]): void {
  if (!isRecord(view)) {
    report(
      out,
      { pointer: '/view', path: 'view' },
      'missing required field: view',
      'not an object',
    );
    return;
  }
  for (const field of ['type', 'blocks']) {
    if (view[field] === undefined) missing(out, VIEW_ROOT, field);
  }
  if (view.type !== undefined && !types.includes(String(view.type))) {
    report(
      out,
      child(VIEW_ROOT, 'type'),
      `unsupported view type ${String(view.type)}`,
      `${JSON.stringify(view.type)} is not one of ${types.join(', ')}`,
    );
  }
  const modal = view.type === 'modal';
  if (modal) {
    const needsTitle = 'a modal needs a plain_text title';
    if (view.title === undefined) missing(out, VIEW_ROOT, 'title', needsTitle);
    else if (!isTextObject(view.title) || view.title.type !== 'plain_text') {
      report(out, child(VIEW_ROOT, 'title'), 'must be a plain_text text object', needsTitle);
    }
    for (const key of ['title', 'submit', 'close']) {
      checkText(view[key], child(VIEW_ROOT, key), BLOCK_KIT_LIMITS.modalTitle, out);
    }
  }
  const privateMetadata = child(VIEW_ROOT, 'private_metadata');
  checkString(view.private_metadata, privateMetadata, BLOCK_KIT_LIMITS.privateMetadata, out);
  checkString(view.callback_id, child(VIEW_ROOT, 'callback_id'), BLOCK_KIT_LIMITS.id, out);
  const hasInput =
    Array.isArray(view.blocks) && view.blocks.some((b) => isRecord(b) && b.type === 'input');
  // Slack rejects a modal with input blocks but no submit button: nothing could submit them.
  if (modal && hasInput && view.submit === undefined) {
    report(
      out,
      { pointer: VIEW_ROOT.pointer, path: 'submit' },
      'must provide a submit property when using input blocks',
      'a modal with input blocks needs a submit button',
    );
  }
  checkBlockList(view.blocks, child(VIEW_ROOT, 'blocks'), BLOCK_KIT_LIMITS.viewBlocks, out, 'view');
}

/** Where blocks are shown: a message, or a view (a modal or a Home tab). */
type Surface = 'message' | 'view';

function checkBlockList(
  blocks: unknown,
  where: Where,
  max: number,
  out: Violation[],
  surface: Surface,
): void {
  if (blocks === undefined) return;
  if (!Array.isArray(blocks)) {
    report(out, where, 'expected an array', 'not an array');
    return;
  }
  checkCount(blocks, where, max, 'blocks', out);
  const blockIds = new Map<string, string>();
  blocks.forEach((block: unknown, index) => {
    if (isRecord(block) && typeof block.block_id === 'string') {
      const at = child(child(where, index), 'block_id');
      noteUnique(block.block_id, 'block_id', at, blockIds, out, '');
    }
  });
  checkTablePlaces(blocks, where, surface, out);
  blocks.forEach((block: unknown, index) => {
    checkBlock(block, child(where, index), out);
  });
}

/** Tables are for messages only, one in each. */
function checkTablePlaces(blocks: unknown[], where: Where, surface: Surface, out: Violation[]) {
  const tables: string[] = [];
  blocks.forEach((block: unknown, index) => {
    if (!isRecord(block) || block.type !== 'table') return;
    const at = child(where, index);
    tables.push(at.path);
    if (surface === 'view') {
      report(
        out,
        at,
        'unsupported block type table: tables are for messages only',
        'a table in a modal or Home tab (tables are for messages only)',
      );
    } else if (tables.length > BLOCK_KIT_LIMITS.tablesPerMessage) {
      report(
        out,
        at,
        'only_one_table_allowed',
        `a second table (the first at ${tables[0]}): one per message (only_one_table_allowed)`,
      );
    }
  });
}

function checkBlock(block: unknown, where: Where, out: Violation[]): void {
  if (!isRecord(block)) {
    report(out, where, 'expected an object', 'not an object');
    return;
  }
  if (typeof block.type !== 'string') missing(out, where, 'type');
  const scope: BlockScope = { out, actionIds: new Map() };
  const at = (key: string) => child(where, key);
  checkString(block.block_id, at('block_id'), BLOCK_KIT_LIMITS.id, out);
  let handled: readonly string[] = [];
  switch (block.type) {
    case 'rich_text':
      // Rich text has its own structure of styled runs: no text objects, no interactive
      // elements, and no per-run limit; its text still counts towards the message total.
      return;
    case 'section':
      checkText(block.text, at('text'), BLOCK_KIT_LIMITS.textObject, out);
      checkCount(block.fields, at('fields'), BLOCK_KIT_LIMITS.sectionFields, 'fields', out);
      forEach(block.fields, at('fields'), (field, w) =>
        checkText(field, w, BLOCK_KIT_LIMITS.sectionField, out),
      );
      if (isRecord(block.accessory)) checkElement(block.accessory, at('accessory'), scope);
      handled = ['text', 'fields', 'accessory'];
      break;
    case 'header':
      checkText(block.text, at('text'), BLOCK_KIT_LIMITS.headerText, out);
      handled = ['text'];
      break;
    case 'context':
      // Its elements are text objects and images: the generic walk below covers them.
      checkCount(block.elements, at('elements'), BLOCK_KIT_LIMITS.contextElements, 'elements', out);
      break;
    case 'actions':
      checkCount(block.elements, at('elements'), BLOCK_KIT_LIMITS.actionsElements, 'elements', out);
      forEach(block.elements, at('elements'), (element, w) => {
        if (isRecord(element)) checkElement(element, w, scope);
      });
      handled = ['elements'];
      break;
    case 'input':
      checkText(block.label, at('label'), BLOCK_KIT_LIMITS.inputLabel, out);
      checkText(block.hint, at('hint'), BLOCK_KIT_LIMITS.inputLabel, out);
      if (isRecord(block.element)) checkElement(block.element, at('element'), scope);
      handled = ['label', 'hint', 'element'];
      break;
    case 'table':
      checkTable(block, where, out);
      handled = ['rows', 'column_settings'];
      break;
  }
  scanRest(block, where, handled, scope);
}

const TABLE_CELL_TYPES = new Set(['raw_text', 'rich_text']);

/** A table's own limits; where it may sit is {@link checkTablePlaces}'. */
function checkTable(block: Json, where: Where, out: Violation[]): void {
  const rows = child(where, 'rows');
  if (block.rows === undefined) missing(out, where, 'rows');
  else if (!Array.isArray(block.rows)) report(out, rows, 'expected an array', 'not an array');
  checkCount(block.rows, rows, BLOCK_KIT_LIMITS.tableRows, 'rows', out);
  const settings = child(where, 'column_settings');
  checkCount(
    block.column_settings,
    settings,
    BLOCK_KIT_LIMITS.tableColumnSettings,
    'column settings',
    out,
  );
  forEach(block.rows, rows, (row, w) => {
    if (!Array.isArray(row)) {
      report(out, w, 'expected an array', 'a row that is not an array of cells');
      return;
    }
    checkCount(row, w, BLOCK_KIT_LIMITS.tableCells, 'cells', out);
    forEach(row, w, (cell, at) => checkTableCell(cell, at, out));
  });
}

function checkTableCell(cell: unknown, where: Where, out: Violation[]): void {
  const type = isRecord(cell) ? cell.type : undefined;
  if (typeof type !== 'string' || !TABLE_CELL_TYPES.has(type)) {
    report(
      out,
      where,
      'must be a raw_text or rich_text table cell',
      `${JSON.stringify(type ?? null)} is not a table cell type (raw_text or rich_text)`,
    );
    return;
  }
  // Slack's raw_text: "The minimum length is 1 character".
  const text = isRecord(cell) ? cell.text : undefined;
  if (type === 'raw_text' && (typeof text !== 'string' || countCharacters(text) < 1)) {
    report(out, child(where, 'text'), 'must be more than 0 characters', 'an empty raw_text cell');
  }
}

function checkElement(element: Json, where: Where, scope: BlockScope): void {
  const { out } = scope;
  const at = (key: string) => child(where, key);
  if (typeof element.action_id === 'string') {
    checkString(element.action_id, at('action_id'), BLOCK_KIT_LIMITS.id, out);
    noteUnique(
      element.action_id,
      'action_id',
      at('action_id'),
      scope.actionIds,
      out,
      ' in this block',
    );
  }
  const handled = ['action_id', 'options', 'option_groups', 'initial_option', 'initial_options'];
  switch (element.type) {
    case 'button':
      checkText(element.text, at('text'), BLOCK_KIT_LIMITS.buttonText, out);
      checkString(element.value, at('value'), BLOCK_KIT_LIMITS.buttonValue, out);
      handled.push('text', 'value');
      break;
    case 'checkboxes':
    case 'radio_buttons':
      checkCount(element.options, at('options'), BLOCK_KIT_LIMITS.choiceOptions, 'options', out);
      break;
    case 'static_select':
    case 'multi_static_select':
      checkCount(element.options, at('options'), BLOCK_KIT_LIMITS.selectOptions, 'options', out);
      checkCount(
        element.option_groups,
        at('option_groups'),
        BLOCK_KIT_LIMITS.selectOptionGroups,
        'option groups',
        out,
      );
      break;
    case 'overflow':
      checkCount(element.options, at('options'), BLOCK_KIT_LIMITS.overflowOptions, 'options', out);
      break;
  }
  forEach(element.options, at('options'), (option, w) => checkOption(option, w, out));
  forEach(element.option_groups, at('option_groups'), (group, w) => {
    if (!isRecord(group)) return;
    checkText(group.label, child(w, 'label'), BLOCK_KIT_LIMITS.option, out);
    checkCount(group.options, child(w, 'options'), BLOCK_KIT_LIMITS.selectOptions, 'options', out);
    forEach(group.options, child(w, 'options'), (option, v) => checkOption(option, v, out));
  });
  checkOption(element.initial_option, at('initial_option'), out);
  forEach(element.initial_options, at('initial_options'), (option, w) =>
    checkOption(option, w, out),
  );
  // Whatever else the element carries (placeholder, confirm dialog, ...) is held to the
  // general text-object limit.
  scanRest(element, where, handled, scope);
}

function checkOption(option: unknown, where: Where, out: Violation[]): void {
  if (!isRecord(option)) return;
  checkText(option.text, child(where, 'text'), BLOCK_KIT_LIMITS.option, out);
  checkString(option.value, child(where, 'value'), BLOCK_KIT_LIMITS.option, out);
  checkText(option.description, child(where, 'description'), BLOCK_KIT_LIMITS.option, out);
}

/** Walks the keys not in `handled`: text objects get the general limit, elements their rules. */
function scanRest(node: Json, where: Where, handled: readonly string[], scope: BlockScope): void {
  for (const [key, value] of Object.entries(node)) {
    if (!handled.includes(key)) scan(value, child(where, key), scope);
  }
}

function scan(node: unknown, where: Where, scope: BlockScope): void {
  if (Array.isArray(node)) {
    forEach(node, where, (item, w) => scan(item, w, scope));
    return;
  }
  if (!isRecord(node)) return;
  if (isTextObject(node)) {
    checkText(node, where, BLOCK_KIT_LIMITS.textObject, scope.out);
  } else if (
    typeof node.action_id === 'string' ||
    (typeof node.type === 'string' && ELEMENT_TYPES.has(node.type))
  ) {
    checkElement(node, where, scope);
  } else {
    scanRest(node, where, [], scope);
  }
}

function visibleTextLength(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, n) => sum + visibleTextLength(n), 0);
  if (!isRecord(node)) return 0;
  let sum = 0;
  for (const [key, value] of Object.entries(node)) {
    sum +=
      key === 'text' && typeof value === 'string'
        ? countCharacters(value)
        : visibleTextLength(value);
  }
  return sum;
}

/** A text object `{ type, text }`: its `text` is what is bounded, the object is what is named. */
function checkText(value: unknown, where: Where, max: number, out: Violation[]): void {
  if (!isTextObject(value)) return;
  checkString(value.text, { pointer: `${where.pointer}/text`, path: where.path }, max, out);
}

function checkString(value: unknown, where: Where, max: number, out: Violation[]): void {
  if (typeof value !== 'string') return;
  const n = countCharacters(value);
  if (n > max) {
    report(out, where, `must be less than ${max + 1} characters`, `${n} > ${max} characters`);
  }
}

function checkCount(value: unknown, where: Where, max: number, noun: string, out: Violation[]) {
  if (Array.isArray(value) && value.length > max) {
    report(out, where, `must be less than ${max + 1} items`, `${value.length} > ${max} ${noun}`);
  }
}

function noteUnique(
  id: string,
  field: 'block_id' | 'action_id',
  where: Where,
  seen: Map<string, string>,
  out: Violation[],
  scope: string,
): void {
  const first = seen.get(id);
  if (first === undefined) {
    seen.set(id, where.path);
    return;
  }
  report(
    out,
    where,
    `duplicate ${field} ${id}`,
    `duplicate ${JSON.stringify(id)}${scope} (first at ${first})`,
  );
}

function forEach(list: unknown, where: Where, visit: (item: unknown, where: Where) => void) {
  if (!Array.isArray(list)) return;
  list.forEach((item: unknown, index) => {
    visit(item, child(where, index));
  });
}

function decodeJson(value: unknown, where: Where, out: Violation[]): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    report(out, where, 'invalid JSON', 'not valid JSON');
    return undefined;
  }
}

function isTextObject(value: unknown): value is { type: 'plain_text' | 'mrkdwn'; text: string } {
  return (
    isRecord(value) &&
    (value.type === 'plain_text' || value.type === 'mrkdwn') &&
    typeof value.text === 'string'
  );
}
