/**
 * The Block Kit limits Slack enforces when it receives blocks (see
 * shared/slack/platform-limits.md). The stand-in refuses what Slack would refuse, so a test that
 * overflows a limit fails here the way it would fail in a real workspace, not only in production.
 * Messages follow Slack's `response_metadata.messages` style.
 */

export const BLOCK_KIT_LIMITS = Object.freeze({
  messageBlocks: 50,
  viewBlocks: 100,
  text: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  choiceOptions: 10,
  selectOptions: 100,
  optionText: 75,
  optionValue: 75,
  buttonText: 75,
  buttonValue: 2000,
  id: 255,
  viewTitle: 24,
  privateMetadata: 3000,
});

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tooLong(limit: number, pointer: string): string {
  return `[ERROR] must be less than ${limit + 1} characters [json-pointer:${pointer}]`;
}

function tooMany(limit: number, pointer: string): string {
  return `[ERROR] must be less than ${limit + 1} items [json-pointer:${pointer}]`;
}

function stringProblem(value: unknown, limit: number, pointer: string): string[] {
  return typeof value === 'string' && value.length > limit ? [tooLong(limit, pointer)] : [];
}

function arrayProblem(value: unknown, limit: number, pointer: string): string[] {
  return Array.isArray(value) && value.length > limit ? [tooMany(limit, pointer)] : [];
}

/** A text object `{ type, text }`: only its `text` is bounded. */
function textObjectProblems(value: unknown, limit: number, pointer: string): string[] {
  return isRecord(value) ? stringProblem(value.text, limit, `${pointer}/text`) : [];
}

function optionProblems(options: unknown, limit: number, pointer: string): string[] {
  if (!Array.isArray(options)) return [];
  return [
    ...arrayProblem(options, limit, pointer),
    ...options.flatMap((option, index) =>
      isRecord(option)
        ? [
            ...textObjectProblems(
              option.text,
              BLOCK_KIT_LIMITS.optionText,
              `${pointer}/${index}/text`,
            ),
            ...stringProblem(
              option.value,
              BLOCK_KIT_LIMITS.optionValue,
              `${pointer}/${index}/value`,
            ),
          ]
        : [],
    ),
  ];
}

function elementProblems(element: unknown, pointer: string): string[] {
  if (!isRecord(element)) return [];
  const problems = stringProblem(element.action_id, BLOCK_KIT_LIMITS.id, `${pointer}/action_id`);
  switch (element.type) {
    case 'button':
      return [
        ...problems,
        ...textObjectProblems(element.text, BLOCK_KIT_LIMITS.buttonText, `${pointer}/text`),
        ...stringProblem(element.value, BLOCK_KIT_LIMITS.buttonValue, `${pointer}/value`),
      ];
    case 'checkboxes':
    case 'radio_buttons':
      return [
        ...problems,
        ...optionProblems(element.options, BLOCK_KIT_LIMITS.choiceOptions, `${pointer}/options`),
      ];
    case 'static_select':
    case 'multi_static_select':
      return [
        ...problems,
        ...optionProblems(element.options, BLOCK_KIT_LIMITS.selectOptions, `${pointer}/options`),
        ...arrayProblem(
          element.option_groups,
          BLOCK_KIT_LIMITS.selectOptions,
          `${pointer}/option_groups`,
        ),
      ];
    default:
      return problems;
  }
}

function blockProblems(block: unknown, pointer: string): string[] {
  if (!isRecord(block) || typeof block.type !== 'string') {
    return [`[ERROR] missing required field: type [json-pointer:${pointer}]`];
  }
  const problems = stringProblem(block.block_id, BLOCK_KIT_LIMITS.id, `${pointer}/block_id`);
  switch (block.type) {
    case 'section': {
      const fields = Array.isArray(block.fields) ? block.fields : [];
      return [
        ...problems,
        ...textObjectProblems(block.text, BLOCK_KIT_LIMITS.text, `${pointer}/text`),
        ...arrayProblem(block.fields, BLOCK_KIT_LIMITS.sectionFields, `${pointer}/fields`),
        ...fields.flatMap((field, index) =>
          textObjectProblems(
            field,
            BLOCK_KIT_LIMITS.sectionFieldText,
            `${pointer}/fields/${index}`,
          ),
        ),
        ...elementProblems(block.accessory, `${pointer}/accessory`),
      ];
    }
    case 'header':
      return [
        ...problems,
        ...textObjectProblems(block.text, BLOCK_KIT_LIMITS.headerText, `${pointer}/text`),
      ];
    case 'context':
      return [
        ...problems,
        ...arrayProblem(block.elements, BLOCK_KIT_LIMITS.contextElements, `${pointer}/elements`),
        ...(Array.isArray(block.elements) ? block.elements : []).flatMap((element, index) =>
          textObjectProblems(element, BLOCK_KIT_LIMITS.text, `${pointer}/elements/${index}`),
        ),
      ];
    case 'actions':
      return [
        ...problems,
        ...arrayProblem(block.elements, BLOCK_KIT_LIMITS.actionsElements, `${pointer}/elements`),
        ...(Array.isArray(block.elements) ? block.elements : []).flatMap((element, index) =>
          elementProblems(element, `${pointer}/elements/${index}`),
        ),
      ];
    case 'input':
      return [
        ...problems,
        ...textObjectProblems(block.label, 2000, `${pointer}/label`),
        ...elementProblems(block.element, `${pointer}/element`),
      ];
    default:
      return problems;
  }
}

function duplicateBlockIdProblems(blocks: readonly unknown[], pointer: string): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  blocks.forEach((block, index) => {
    if (!isRecord(block) || typeof block.block_id !== 'string') return;
    if (seen.has(block.block_id)) {
      problems.push(
        `[ERROR] duplicate block_id ${block.block_id} [json-pointer:${pointer}/${index}/block_id]`,
      );
    }
    seen.add(block.block_id);
  });
  return problems;
}

/** Problems Slack would report for `blocks` found at `pointer`; empty when Slack accepts them. */
export function blockKitProblems(blocks: unknown, pointer: string, maxBlocks: number): string[] {
  if (blocks === undefined) return [];
  if (!Array.isArray(blocks)) return [`[ERROR] expected an array [json-pointer:${pointer}]`];
  return [
    ...arrayProblem(blocks, maxBlocks, pointer),
    ...duplicateBlockIdProblems(blocks, pointer),
    ...blocks.flatMap((block, index) => blockProblems(block, `${pointer}/${index}`)),
  ];
}

/** Problems with a modal view as `views.open`, `views.update` and `views.push` check it. */
export function viewProblems(view: unknown): string[] {
  if (!isRecord(view)) return ['[ERROR] missing required field: view [json-pointer:/view]'];
  const missing = ['type', 'title', 'blocks']
    .filter((field) => view[field] === undefined)
    .map((field) => `[ERROR] missing required field: ${field} [json-pointer:/view]`);
  const usesInput =
    Array.isArray(view.blocks) && view.blocks.some((b) => isRecord(b) && b.type === 'input');
  return [
    ...missing,
    ...(view.type !== undefined && view.type !== 'modal'
      ? [`[ERROR] unsupported view type ${String(view.type)} [json-pointer:/view/type]`]
      : []),
    ...textObjectProblems(view.title, BLOCK_KIT_LIMITS.viewTitle, '/view/title'),
    ...textObjectProblems(view.submit, BLOCK_KIT_LIMITS.viewTitle, '/view/submit'),
    ...textObjectProblems(view.close, BLOCK_KIT_LIMITS.viewTitle, '/view/close'),
    ...stringProblem(
      view.private_metadata,
      BLOCK_KIT_LIMITS.privateMetadata,
      '/view/private_metadata',
    ),
    ...stringProblem(view.callback_id, BLOCK_KIT_LIMITS.id, '/view/callback_id'),
    // Slack refuses a modal with input blocks but no submit button: nothing could submit them.
    ...(usesInput && view.submit === undefined
      ? ['[ERROR] must provide a submit property when using input blocks [json-pointer:/view]']
      : []),
    ...blockKitProblems(view.blocks, '/view/blocks', BLOCK_KIT_LIMITS.viewBlocks),
  ];
}
