import { isRecord } from './is-record.ts';

type ElementState = Record<string, unknown>;
export type ViewStateValues = Record<string, Record<string, ElementState>>;

/**
 * The `state.values` Slack would send for a view whose inputs the user has not touched: each
 * input element with its initial value or options. Tests start from this and change one field,
 * exactly as a person would.
 */
export function initialStateValues(view: unknown): ViewStateValues {
  const values: ViewStateValues = {};
  const blocks = isRecord(view) && Array.isArray(view.blocks) ? view.blocks : [];
  for (const block of blocks) {
    if (!isRecord(block) || block.type !== 'input' || !isRecord(block.element)) continue;
    const element = block.element;
    const blockId = typeof block.block_id === 'string' ? block.block_id : '';
    const actionId = typeof element.action_id === 'string' ? element.action_id : '';
    values[blockId] = { [actionId]: stateOf(element) };
  }
  return values;
}

function stateOf(element: Record<string, unknown>): ElementState {
  const type = element.type;
  switch (type) {
    case 'checkboxes':
    case 'multi_static_select':
      return {
        type,
        selected_options: Array.isArray(element.initial_options) ? element.initial_options : [],
      };
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: element.initial_option ?? null };
    case 'datetimepicker':
      return {
        type,
        selected_date_time:
          typeof element.initial_date_time === 'number' ? element.initial_date_time : null,
      };
    case 'plain_text_input':
      return {
        type,
        value: typeof element.initial_value === 'string' ? element.initial_value : null,
      };
    default:
      return { type };
  }
}
