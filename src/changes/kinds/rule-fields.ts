import { isDeepStrictEqual } from 'node:util';
import type { ModerationRule, RuleUpdate } from '../../cometchat/moderation-model.ts';
import type { PermissionValue } from '../../cometchat/schemas.ts';
import { counted } from '../../replies/sentences.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';

// A moderation rule as the app compares, shows and sends it: the fields a PUT replaces (the
// service's own `active`, `default` and revision are not the rule's to set). Its conditions and
// filters are kept exactly as the service sent them; the app reads a few well-known parts of
// them for a summary and otherwise treats them as data. Pure.

/** The fields a PUT replaces, in the order the app shows them. */
export const RULE_FIELDS = [
  'name',
  'description',
  'enabled',
  'actions',
  'conditions',
  'filters',
] as const;
export type RuleField = (typeof RULE_FIELDS)[number];

/** A rule's conditions and filters as one value: JSON with its keys sorted. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

/** A rule's fields as a change carries them (a change's values are strings and lists). */
export function ruleValues(rule: RuleUpdate): Record<RuleField, PermissionValue> {
  return {
    name: rule.name,
    description: rule.description ?? '',
    enabled: String(rule.enabled),
    actions: [...rule.actions],
    conditions: canonicalJson(rule.conditions),
    filters: canonicalJson(rule.filters),
  };
}

/**
 * The rule a change's values make, for a PUT; undefined when they are not a whole rule (a field
 * missing, or conditions that are not a JSON list).
 */
export function ruleFromValues(
  id: string,
  values: Partial<Record<string, PermissionValue | undefined>>,
): RuleUpdate | undefined {
  const { name, description, enabled, actions } = values;
  const conditions = jsonList(values.conditions);
  const filters = jsonList(values.filters);
  if (typeof name !== 'string' || typeof description !== 'string') return undefined;
  if ((enabled !== 'true' && enabled !== 'false') || !Array.isArray(actions)) return undefined;
  if (!conditions || !filters) return undefined;
  return { id, name, description, enabled: enabled === 'true', actions, conditions, filters };
}

function jsonList(value: PermissionValue | undefined): unknown[] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The fields in which two rules differ, in RULE_FIELDS order. Pure. */
export function ruleDifferences(left: RuleUpdate, right: RuleUpdate): RuleField[] {
  const a = ruleValues(left);
  const b = ruleValues(right);
  return RULE_FIELDS.filter((field) => !isDeepStrictEqual(a[field], b[field]));
}

/** A rule as a PUT takes it: the rule the service answered, less what only the service sets. */
export function ruleUpdateOf(rule: ModerationRule): RuleUpdate {
  const { id, name, description, enabled, actions, conditions, filters } = rule;
  return { id, name, description, enabled, actions, conditions, filters };
}

/** Most characters of a summary of conditions and filters. */
const SUMMARY_CHARS = 300;

/**
 * A rule's conditions and filters in one line, plain text (escape it to show it): a condition
 * of the documented shape reads "message text contains “a”, “b”"; one of another shape is named
 * by its keys; filters are counted. Pure.
 */
export function conditionsSummary(conditions: readonly unknown[], filters: readonly unknown[]) {
  const parts = conditions.map(conditionText);
  const said = parts.length > 0 ? parts.join('; ') : 'no conditions';
  const filtered = filters.length > 0 ? ` · ${counted(filters.length, 'filter')}` : '';
  return truncate(`${said}${filtered}`, SUMMARY_CHARS);
}

function conditionText(condition: unknown): string {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    return 'a condition of an unknown shape';
  }
  const fields = new Map(Object.entries(condition));
  const word = (key: string) => {
    const value = fields.get(key);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const operator = word('operator');
  const subject = ['entity', 'operand', 'type'].flatMap((key) => word(key) ?? []).join(' ');
  if (operator === undefined && subject === '') {
    const keys = [...fields.keys()].slice(0, 4).join(', ');
    return keys === '' ? 'an empty condition' : `a condition of ${keys}`;
  }
  const value = fields.get('value');
  const list = word('list');
  const values = Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
  const shown = [
    ...values.slice(0, 3).map((v) => `“${truncate(v, 40)}”`),
    ...(list ? [`list “${truncate(list, 40)}”`] : []),
  ];
  const more = values.length > 3 ? ` and ${values.length - 3} more` : '';
  const what = shown.length > 0 ? ` ${shown.join(', ')}${more}` : '';
  return `${subject || 'it'}${operator ? ` ${operator}` : ':'}${what}`;
}

/** A field's value in plain words (a table cell, not parsed): lists joined, JSON summarised. */
export function fieldPlainText(field: RuleField, value: PermissionValue | undefined): string {
  if (value === undefined || value === null) return 'none';
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : 'none';
  if (field === 'conditions' || field === 'filters') {
    const list = jsonList(value);
    if (!list) return 'unreadable';
    if (field === 'filters') return list.length > 0 ? counted(list.length, 'filter') : 'none';
    return conditionsSummary(list, []);
  }
  if (field === 'enabled') return value === 'true' ? 'enabled' : 'disabled';
  return value === '' ? 'none' : truncate(value, 200);
}

/** The same in mrkdwn: text in bold and escaped, actions as code, nothing in italics. */
export function fieldValueText(field: RuleField, value: PermissionValue | undefined): string {
  const plain = fieldPlainText(field, value);
  if (value === undefined || value === null || plain === 'none') return '_none_';
  if (Array.isArray(value)) return value.map(code).join(', ');
  return field === 'name' || field === 'description'
    ? `*${escapeMrkdwn(plain)}*`
    : escapeMrkdwn(plain);
}

/** One line per field that differs: "enabled: disabled → enabled". Pure. */
export function ruleChangeLines(
  changes: readonly { key: string; before?: PermissionValue | undefined; after: PermissionValue }[],
): string[] {
  return changes.flatMap((c) => {
    const field = RULE_FIELDS.find((f) => f === c.key);
    if (field === undefined || isDeepStrictEqual(c.before, c.after)) return [];
    return [`${field}: ${fieldValueText(field, c.before)} → ${fieldValueText(field, c.after)}`];
  });
}
